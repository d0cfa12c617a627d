/**
 * Local `$ref` resolution with chain following and cycle detection.
 *
 * @internal
 */
import type { JsonSchema, Resolved } from "../JsonSchema.js"
import type { JsonValue } from "../JsonValue.js"
import { annotations, children } from "./keywords.js"
import * as P from "./pointer.js"

const isSchemaValue = (v: JsonValue | undefined): v is JsonSchema =>
  typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))

const stripFragment = (u: string): string => {
  const i = u.indexOf("#")
  return i < 0 ? u : u.slice(0, i)
}

/** The pointer a `$ref` names inside the root, or why it names none. */
const locate = (root: JsonSchema, ref: string): string | "external" | "missing" => {
  const hash = ref.indexOf("#")
  const base = hash < 0 ? ref : ref.slice(0, hash)
  if (base !== "") {
    const id = typeof root === "object" ? root["$id"] : undefined
    if (typeof id !== "string" || stripFragment(id) !== base) return "external"
  }
  const fragment = hash < 0 ? "" : P.decodeFragment(ref.slice(hash + 1))
  if (fragment === "" || fragment.startsWith("/")) return fragment
  return findAnchor(root, fragment) ?? "missing"
}

/** The pointer of the subschema declaring `$anchor` (or draft-07 `$id: "#name"`) `name`. */
const findAnchor = (root: JsonSchema, name: string): string | undefined => {
  const seen = new Set<object>()
  const stack: Array<{ readonly schema: JsonValue; readonly pointer: string }> = [{ schema: root, pointer: "" }]
  while (stack.length > 0) {
    const { pointer, schema } = stack.pop()!
    if (typeof schema !== "object" || schema === null || Array.isArray(schema) || seen.has(schema)) continue
    seen.add(schema)
    const s = schema as { readonly [k: string]: JsonValue }
    if (s["$anchor"] === name || s["$id"] === "#" + name) return pointer
    for (const c of children(s)) {
      let p = pointer
      for (const t of c.tokens) p = P.append(p, t)
      stack.push({ schema: c.schema, pointer: p })
    }
  }
  return undefined
}

/** Whether a schema is nothing but a `$ref` (annotations aside), so resolving may follow it. */
const pureRef = (s: JsonSchema): string | undefined => {
  if (typeof s !== "object") return undefined
  const ref = s["$ref"]
  if (typeof ref !== "string") return undefined
  for (const k of Object.keys(s)) if (k !== "$ref" && !annotations.has(k)) return undefined
  return ref
}

/** Resolves `ref` against `root`, following pure `$ref` chains. */
export const resolveRef = (root: JsonSchema, ref: string): Resolved => {
  const visited = new Set<string>()
  let current = ref
  for (;;) {
    const where = locate(root, current)
    if (where === "external" || where === "missing") return { _tag: "Unresolvable", ref: current, reason: where }
    const canonical = P.format(P.parse(where))
    if (visited.has(canonical)) return { _tag: "Unresolvable", ref, reason: "cycle" }
    visited.add(canonical)
    const target = P.get(root, canonical)
    if (!isSchemaValue(target)) return { _tag: "Unresolvable", ref: current, reason: "missing" }
    const next = pureRef(target)
    if (next === undefined) return { _tag: "Resolved", schema: target, pointer: canonical }
    current = next
  }
}

/**
 * What `widen` does at each subschema location: the ref schema, which keywords hold value positions
 * (wrapped), which judge the same instance (traversed) and which are kept as they are, and the pointer
 * translation that keeps local `$ref`s pointing at the same subschema after wrapping moved it.
 *
 * @internal
 */
import type { JsonSchemaObject } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"
import * as P from "./pointer.js"

/** A schema object as the walk reads it. */
export type Obj = Record<string, unknown>

/** Whether `u` is a plain object (prototype `Object.prototype` or `null`). */
export const isPlain = (u: unknown): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** Sets an own property, `__proto__` included, without touching any prototype. */
export const define = (o: Obj, k: string, v: unknown): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

const freeze = <A>(a: A): A => {
  if (typeof a === "object" && a !== null) {
    for (const v of Object.values(a)) freeze(v)
    Object.freeze(a)
  }
  return a
}

/** The JSON Schema of a sentinel ref; `minLength` keeps `$tool` non-empty, as `isRef` reads it. */
export const refSchema: JsonSchemaObject = freeze({
  type: "object",
  // short: it is repeated at every value position of every tool the model sees
  description: "Instead of a value: a reference to an earlier tool call's result ($tool: its call id).",
  properties: {
    $tool: { type: "string", minLength: 1 },
    $path: { type: "string" },
    $artifact: { type: "string" }
  },
  required: ["$tool"],
  additionalProperties: false
})

/** Whether a subschema is the ref schema (by identity, else by content), so it is never widened itself. */
export const isRefSchema = (u: unknown): boolean => {
  if (u === refSchema) return true
  if (!isPlain(u)) return false
  const props = u["properties"]
  return isPlain(props) && Object.prototype.hasOwnProperty.call(props, "$tool") &&
    JsonValue.equals(u as JsonValue.JsonValue, refSchema)
}

/** Annotation keywords: siblings that keep an `anyOf` node a pure union. */
const annotations: ReadonlySet<string> = new Set([
  "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"
])

/** Whether a node is a pure union: `anyOf` and annotations only. */
export const isPureAnyOf = (node: Obj): node is Obj & { readonly anyOf: ReadonlyArray<unknown> } => {
  if (!Array.isArray(node["anyOf"])) return false
  for (const key of Object.keys(node)) if (key !== "anyOf" && !annotations.has(key)) return false
  return true
}

/** Whether `wrapNode` puts a node inside a new `anyOf: [node, ref]` (rather than leaving or appending to it). */
export const getsWrapper = (node: unknown): boolean => isPlain(node) && !isRefSchema(node) && !isPureAnyOf(node)

/** A value position's schema, made to accept a ref too: a pure union gets the ref branch appended in place. */
export const wrapNode = (node: Obj): Obj => {
  if (isRefSchema(node)) return node
  if (!isPureAnyOf(node)) return { anyOf: [node, refSchema] }
  if (node.anyOf.some(isRefSchema)) return node
  const out: Obj = {}
  for (const key of Object.keys(node)) define(out, key, key === "anyOf" ? [...node.anyOf, refSchema] : node[key])
  return out
}

/**
 * How a subschema location is treated: `wrap` (a value position), `same` (it judges the parent's own
 * instance: traversed, never wrapped) or `keep` (`not`, `if`, `propertyNames`, `contentSchema`: widening
 * inside `not` would reject refs, `if` only selects a branch, and names and decoded content are not values
 * a ref stands for; their `$ref`s are still re-pointed).
 */
export type Mode = "wrap" | "same" | "keep"

const single: Readonly<Record<string, Mode>> = {
  additionalProperties: "wrap", additionalItems: "wrap", unevaluatedProperties: "wrap", unevaluatedItems: "wrap",
  contains: "wrap", items: "wrap", then: "same", else: "same", not: "keep", if: "keep", propertyNames: "keep",
  contentSchema: "keep"
}
const list: Readonly<Record<string, Mode>> = { prefixItems: "wrap", items: "wrap", allOf: "same", anyOf: "same", oneOf: "same" }
const map: Readonly<Record<string, Mode>> = {
  properties: "wrap", patternProperties: "wrap", $defs: "same", definitions: "same", dependentSchemas: "same", dependencies: "same"
}

const own = (table: Readonly<Record<string, Mode>>, key: string): Mode | undefined =>
  Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined

/** A subschema location: keyword, name or index (`undefined` for a single subschema), the subschema, its mode. */
export interface Slot {
  readonly key: string
  readonly sub: string | undefined
  readonly value: Obj
  readonly mode: Mode
}

/** The object subschemas of a node (booleans are never slots: `true` takes a ref, `false` takes nothing). */
export const slotsOf = (node: Obj, parent: Mode): Array<Slot> => {
  const out: Array<Slot> = []
  const modeOf = (m: Mode): Mode => (parent === "keep" ? "keep" : m)
  for (const key of Object.keys(node)) {
    const v = node[key]
    const one = own(single, key)
    const many = own(list, key)
    const named = own(map, key)
    if (one !== undefined && isPlain(v)) out.push({ key, sub: undefined, value: v, mode: modeOf(one) })
    else if (many !== undefined && Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (isPlain(v[i])) out.push({ key, sub: String(i), value: v[i], mode: modeOf(many) })
    } else if (named !== undefined && isPlain(v)) {
      for (const name of Object.keys(v)) if (isPlain(v[name])) out.push({ key, sub: name, value: v[name] as Obj, mode: modeOf(named) })
    }
  }
  return out
}

const unsafe = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g

/**
 * A local `$ref` (`#/…`) re-pointed into the widened schema: `anyOf/0` is inserted after every value
 * position on the way that got a wrapper. `undefined` when nothing moves (or it is not a local pointer).
 */
export const translate = (root: unknown, ref: string): string | undefined => {
  if (!ref.startsWith("#")) return undefined
  const tokens = P.parse(ref)
  if (tokens.length === 0 || !ref.slice(1).replace(/^%2F/i, "/").startsWith("/")) return undefined
  const out: Array<string> = []
  let cur: unknown = root
  let keep = false
  let moved = false
  let i = 0
  while (i < tokens.length && isPlain(cur)) {
    const key = tokens[i]!
    const v = cur[key]
    let child: unknown
    let mode: Mode | undefined
    if (own(single, key) !== undefined && isPlain(v)) [child, mode] = [v, own(single, key)]
    else if (i + 1 < tokens.length && own(list, key) !== undefined && Array.isArray(v) && /^(0|[1-9]\d*)$/.test(tokens[i + 1]!)) {
      ;[child, mode] = [v[Number(tokens[i + 1])], own(list, key)]
    } else if (i + 1 < tokens.length && own(map, key) !== undefined && isPlain(v) && Object.prototype.hasOwnProperty.call(v, tokens[i + 1]!)) {
      ;[child, mode] = [v[tokens[i + 1]!], own(map, key)]
    } else break
    const step = isPlain(v) && own(single, key) !== undefined ? 1 : 2
    out.push(...tokens.slice(i, i + step))
    i += step
    keep ||= mode === "keep"
    if (!keep && mode === "wrap" && getsWrapper(child)) {
      out.push("anyOf", "0")
      moved = true
    }
    cur = child
  }
  if (!moved) return undefined
  out.push(...tokens.slice(i))
  try {
    return "#" + P.format(out).replace(unsafe, (c) => encodeURIComponent(c))
  } catch {
    return undefined // a lone surrogate cannot be percent-encoded: the ref is left as it was
  }
}

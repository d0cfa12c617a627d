/**
 * The per-schema-object rules of `upgrade`, as pure functions on one node whose subschemas are already
 * upgraded. Each rule edits an ordered `Map` (so `__proto__` is an ordinary key) and reports its changes.
 *
 * @internal
 */
import { annotations } from "./keywords.js"
import * as T from "./typeNames.js"

/** One node being rewritten: its keywords in order, where it is, and where its changes go. */
export interface Node {
  readonly m: Map<string, unknown>
  readonly path: string
  readonly report: (keyword: string, change: string) => void
}

const isPlain = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The type list after mapping published names, and what happened to each name. */
export const mapTypes = (t: unknown): {
  readonly types: ReadonlyArray<string> | undefined
  readonly items: T.JsonType | undefined
  readonly notes: ReadonlyArray<string>
} => {
  const names = typeof t === "string" ? [t] : Array.isArray(t) ? t : undefined
  if (names === undefined) return { types: undefined, items: undefined, notes: [`\`type\` ${JSON.stringify(t) ?? String(t)} is not a type name; removed (no type constraint)`] }
  const out: Array<string> = []
  const notes: Array<string> = names.length === 0 ? ["an empty `type` list is not valid; removed (no type constraint)"] : []
  let items: T.JsonType | undefined
  let any = false
  for (const n of names) {
    if (typeof n !== "string") {
      notes.push(`\`type\` entry ${JSON.stringify(n) ?? String(n)} is not a type name; removed`)
      continue
    }
    if (T.isJsonType(n)) {
      if (out.includes(n)) notes.push(`duplicate type \`${n}\` removed`)
      else out.push(n)
      continue
    }
    const meaning = T.meaning(n)
    if (meaning._tag === "Any") {
      any = true
      notes.push(`type \`${n}\` means any value; the type constraint is removed`)
    } else if (meaning._tag === "Unknown") {
      notes.push(`unknown type name \`${n}\` removed; the value is not constrained by type`)
    } else {
      if (!out.includes(meaning.type)) out.push(meaning.type)
      if (meaning.items !== undefined) items = meaning.items
      notes.push(`type \`${n}\` is read as \`${meaning.type}\`${meaning.items === undefined ? "" : ` of \`${meaning.items}\``}`)
    }
  }
  return { types: any ? undefined : out, items: any ? undefined : items, notes }
}

/** Published type names to JSON Schema types (`dict` → `object`, `list(str)` → array of string, `any` → none). */
export const types = (n: Node): void => {
  if (!n.m.has("type")) return
  const r = mapTypes(n.m.get("type"))
  if (r.notes.length === 0) return
  for (const note of r.notes) n.report("type", note)
  if (r.types === undefined || r.types.length === 0) n.m.delete("type")
  else n.m.set("type", r.types.length === 1 ? r.types[0] : r.types)
  if (r.items !== undefined && !n.m.has("items") && r.types?.includes("array")) n.m.set("items", { type: r.items })
}

/** Keywords that stay on the outside when `nullable` wraps a schema in `anyOf`. */
export const outside: ReadonlySet<string> = new Set([
  ...annotations, "$defs", "definitions", "$id", "$schema", "$anchor", "$dynamicAnchor", "nullable"
])

const rejectsNullAnyway = ["const", "allOf", "anyOf", "oneOf", "not", "$ref", "$dynamicRef", "if", "then", "else"]

/** Whether `nullable: true` must wrap the node (`anyOf: [node, {type: "null"}]`) rather than widen `type`/`enum`. */
export const wrapsForNull = (m: ReadonlyMap<string, unknown>): boolean => {
  if (m.get("nullable") !== true) return false
  if (rejectsNullAnyway.some((k) => m.has(k))) return true
  if (m.has("type") || Array.isArray(m.get("enum"))) return false
  for (const k of m.keys()) if (!outside.has(k)) return true
  return false
}

/** OpenAPI 3.0 `nullable: true` to a type union with `"null"` (and `null` in an `enum`), or an `anyOf` wrap. */
export const nullable = (n: Node): void => {
  if (!n.m.has("nullable")) return
  const v = n.m.get("nullable")
  if (v !== true) {
    n.m.delete("nullable")
    n.report("nullable", `\`nullable: ${JSON.stringify(v) ?? String(v)}\` has no effect; removed`)
    return
  }
  if (wrapsForNull(n.m)) {
    const inner = new Map<string, unknown>()
    for (const [k, x] of [...n.m]) {
      if (!outside.has(k)) {
        inner.set(k, x)
        n.m.delete(k)
      }
    }
    n.m.delete("nullable")
    n.m.set("anyOf", [inner, { type: "null" }])
    n.report("nullable", "`nullable: true` became `anyOf: [<the schema>, {type: null}]`")
    return
  }
  n.m.delete("nullable")
  const t = n.m.get("type")
  if (typeof t === "string" && t !== "null") n.m.set("type", [t, "null"])
  else if (Array.isArray(t) && !t.includes("null")) n.m.set("type", [...t, "null"])
  const e = n.m.get("enum")
  if (Array.isArray(e) && !e.includes(null)) n.m.set("enum", [...e, null])
  n.report("nullable", "`nullable: true` became `\"null\"` in `type`" + (Array.isArray(e) ? " and `null` in `enum`" : ""))
}

/** Draft-07 tuples: `items: [...]` to `prefixItems`, `additionalItems` to `items`. */
export const tuples = (n: Node): void => {
  const items = n.m.get("items")
  if (Array.isArray(items)) {
    n.m.delete("items")
    if (n.m.has("prefixItems")) {
      n.report("items", "array-form `items` dropped: `prefixItems` already gives the tuple")
    } else if (items.length === 0) {
      n.report("items", "empty array-form `items` constrains nothing; removed")
    } else {
      n.m.set("prefixItems", items)
      n.report("items", "array-form `items` became `prefixItems`")
    }
    if (n.m.has("additionalItems")) {
      n.m.set("items", n.m.get("additionalItems"))
      n.m.delete("additionalItems")
      n.report("additionalItems", "`additionalItems` became `items`")
    }
  } else if (n.m.has("additionalItems")) {
    n.m.delete("additionalItems")
    n.report("additionalItems", "`additionalItems` without array-form `items` has no effect; removed")
  }
}

/** Draft-07 `dependencies` split into `dependentRequired` (arrays) and `dependentSchemas` (schemas). */
export const dependencies = (n: Node): void => {
  if (!n.m.has("dependencies")) return
  const deps = n.m.get("dependencies")
  n.m.delete("dependencies")
  if (!isPlain(deps)) {
    n.report("dependencies", "`dependencies` is not an object; removed")
    return
  }
  const required = new Map<string, unknown>(isPlain(n.m.get("dependentRequired")) ? Object.entries(n.m.get("dependentRequired") as object) : [])
  const schemas = new Map<string, unknown>(isPlain(n.m.get("dependentSchemas")) ? Object.entries(n.m.get("dependentSchemas") as object) : [])
  for (const k of Object.keys(deps)) {
    const d = deps[k]
    const target = Array.isArray(d) ? required : schemas
    if (!target.has(k)) target.set(k, d)
  }
  if (required.size > 0) n.m.set("dependentRequired", required)
  if (schemas.size > 0) n.m.set("dependentSchemas", schemas)
  n.report("dependencies", "`dependencies` split into `dependentRequired` and `dependentSchemas`")
}

/** Whether a node's `definitions` can become `$defs` (no `$defs`, or one without clashing names). */
export const renamesDefinitions = (node: Record<string, unknown> | ReadonlyMap<string, unknown>): boolean => {
  const get = (k: string) => (node instanceof Map ? node.get(k) : Object.prototype.hasOwnProperty.call(node, k) ? (node as Record<string, unknown>)[k] : undefined)
  const defs = get("definitions")
  if (!isPlain(defs)) return false
  const existing = get("$defs")
  if (existing === undefined) return true
  return isPlain(existing) && Object.keys(defs).every((k) => !Object.prototype.hasOwnProperty.call(existing, k))
}

/** Draft-07 `definitions` to `$defs` (the `$ref`s into it are rewritten separately). */
export const definitions = (n: Node): void => {
  if (!renamesDefinitions(n.m)) return
  const defs = n.m.get("definitions") as Record<string, unknown>
  const existing = n.m.get("$defs")
  const merged = new Map<string, unknown>(isPlain(existing) ? Object.entries(existing) : [])
  for (const k of Object.keys(defs)) merged.set(k, defs[k])
  n.m.delete("definitions")
  n.m.set("$defs", merged)
  n.report("definitions", "`definitions` became `$defs`")
}

/** Draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` to their numeric form. */
export const exclusiveBounds = (n: Node): void => {
  for (const [ex, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    const v = n.m.get(ex)
    if (typeof v !== "boolean") continue
    const b = n.m.get(bound)
    n.m.delete(ex)
    if (v && typeof b === "number") {
      n.m.delete(bound)
      n.m.set(ex, b)
      n.report(ex, `draft-04 \`${ex}: true\` with \`${bound}: ${b}\` became \`${ex}: ${b}\``)
    } else {
      n.report(ex, `draft-04 boolean \`${ex}: ${v}\` without a numeric \`${bound}\` has no effect; removed`)
    }
  }
}

/**
 * Empty `allOf` is dropped (an empty conjunction holds); an empty `anyOf`/`oneOf` or `enum` admits nothing,
 * so the schema becomes `false` (2020-12's meta-schema forbids the empty arrays, and Ajv rejects `enum: []`).
 */
export const emptyLists = (n: Node): boolean => {
  if (Array.isArray(n.m.get("allOf")) && (n.m.get("allOf") as Array<unknown>).length === 0) {
    n.m.delete("allOf")
    n.report("allOf", "empty `allOf` holds for every value; removed")
  }
  for (const k of ["anyOf", "oneOf", "enum"]) {
    const v = n.m.get(k)
    if (Array.isArray(v) && v.length === 0) {
      n.report(k, `empty \`${k}\` admits no value; the schema became \`false\``)
      return true
    }
  }
  return false
}

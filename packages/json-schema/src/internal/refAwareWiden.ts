/**
 * `widen`: an iterative post-order rewrite (no recursion, so 10,000-level nesting is fine) that lets every
 * value position also accept a sentinel ref. Unchanged subtrees are shared with the input, which is never
 * mutated; the ref schema itself is one frozen object shared by every position.
 *
 * @internal
 */
import type { JsonSchema, JsonSchemaObject } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"

type Obj = Record<string, unknown>

const isPlain = (u: unknown): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const define = (o: Obj, k: string, v: unknown): void => {
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
  description: "Instead of a literal value: a reference to an earlier tool call's result ($tool: its call id; $path: a dotted path into it; $artifact: an artifact id).",
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

/** Keywords whose single subschema is a value position (it judges a value inside the instance). */
const valueSingle: ReadonlySet<string> = new Set([
  "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems", "contains", "items"
])
/** Keywords whose subschema map holds value positions. */
const valueMap: ReadonlySet<string> = new Set(["properties", "patternProperties"])
/** Keywords whose subschemas judge the same instance as their parent: traversed, never wrapped. */
const sameArray: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf"])
const sameSingle: ReadonlySet<string> = new Set(["then", "else"])
const sameMap: ReadonlySet<string> = new Set(["$defs", "definitions", "dependentSchemas", "dependencies"])
// `not`, `if`, `propertyNames` and `contentSchema` are left alone: widening inside `not` would reject refs,
// `if` only selects a branch, and property names and decoded content are not values a ref can stand for.

/** Annotation keywords: siblings that keep an `anyOf` node a pure union. */
const annotations: ReadonlySet<string> = new Set([
  "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"
])

/** A subschema position of a node: keyword, optional name or index, the subschema, and whether it is wrapped. */
interface Slot {
  readonly key: string
  readonly sub: string | undefined
  readonly value: Obj
  readonly wrap: boolean
}

const pushMap = (out: Array<Slot>, key: string, map: Obj, wrap: boolean): void => {
  for (const name of Object.keys(map)) {
    const s = map[name]
    if (isPlain(s)) out.push({ key, sub: name, value: s, wrap })
  }
}

const pushArray = (out: Array<Slot>, key: string, list: ReadonlyArray<unknown>, wrap: boolean): void => {
  for (let i = 0; i < list.length; i++) {
    const s = list[i]
    if (isPlain(s)) out.push({ key, sub: String(i), value: s, wrap })
  }
}

// Boolean subschemas are never slots: `true` already accepts a ref and `false` admits no value at all.
const slotsOf = (node: Obj): Array<Slot> => {
  const out: Array<Slot> = []
  for (const key of Object.keys(node)) {
    const v = node[key]
    if (valueSingle.has(key) || sameSingle.has(key)) {
      if (isPlain(v)) out.push({ key, sub: undefined, value: v, wrap: valueSingle.has(key) })
      else if (key === "items" && Array.isArray(v)) pushArray(out, key, v, true)
    } else if (key === "prefixItems" || sameArray.has(key)) {
      if (Array.isArray(v)) pushArray(out, key, v, key === "prefixItems")
    } else if ((valueMap.has(key) || sameMap.has(key)) && isPlain(v)) {
      pushMap(out, key, v, valueMap.has(key))
    }
  }
  return out
}

const isPureAnyOf = (node: Obj): node is Obj & { readonly anyOf: ReadonlyArray<unknown> } => {
  if (!Array.isArray(node["anyOf"])) return false
  for (const key of Object.keys(node)) if (key !== "anyOf" && !annotations.has(key)) return false
  return true
}

/** A value position's schema, made to accept a ref too: a pure union gets the ref branch appended in place. */
const wrapNode = (node: Obj): Obj => {
  if (isRefSchema(node)) return node
  if (!isPureAnyOf(node)) return { anyOf: [node, refSchema] }
  if (node.anyOf.some(isRefSchema)) return node
  const out: Obj = {}
  for (const key of Object.keys(node)) define(out, key, key === "anyOf" ? [...node.anyOf, refSchema] : node[key])
  return out
}

const copy = (o: Obj): Obj => {
  const out: Obj = {}
  for (const key of Object.keys(o)) define(out, key, o[key])
  return out
}

/** A copy of `node` with the rewritten slots put in (containers copied, never written through). */
const rebuild = (node: Obj, slots: ReadonlyArray<Slot>, results: ReadonlyArray<Obj>): Obj => {
  const out = copy(node)
  const copied = new Map<string, Obj | Array<unknown>>()
  for (let j = 0; j < slots.length; j++) {
    const s = slots[j]!
    const r = results[j]!
    if (r === s.value) continue
    if (s.sub === undefined) {
      define(out, s.key, r)
      continue
    }
    let c = copied.get(s.key)
    if (c === undefined) {
      const orig = node[s.key]
      c = Array.isArray(orig) ? [...orig] : copy(orig as Obj)
      copied.set(s.key, c)
      define(out, s.key, c)
    }
    if (Array.isArray(c)) c[Number(s.sub)] = r
    else define(c, s.sub, r)
  }
  return out
}

interface Frame {
  readonly node: Obj
  readonly wrap: boolean
  readonly owned: boolean
  readonly slots: Array<Slot>
  readonly results: Array<Obj>
}

const frame = (node: Obj, wrap: boolean, active: Set<Obj>): Frame => {
  // a node already on the path is a cycle (only a hostile, non-JSON input has one): it is left as it is
  const owned = !active.has(node)
  const leaf = !owned || isRefSchema(node)
  active.add(node)
  return { node, wrap: wrap && !leaf, owned, slots: leaf ? [] : slotsOf(node), results: [] }
}

/** Widens a schema; see `RefAware.widen`. Throws only on an unreadable (hostile) object. */
export const widenUnsafe = (schema: JsonSchema): JsonSchema => {
  if (!isPlain(schema)) return schema
  const active = new Set<Obj>()
  const stack: Array<Frame> = [frame(schema, false, active)]
  for (;;) {
    const f = stack[stack.length - 1]!
    const next = f.slots[f.results.length]
    if (next !== undefined) {
      stack.push(frame(next.value, next.wrap, active))
      continue
    }
    stack.pop()
    if (f.owned) active.delete(f.node)
    let changed = false
    for (let j = 0; j < f.slots.length && !changed; j++) changed = f.results[j] !== f.slots[j]!.value
    const body = changed ? rebuild(f.node, f.slots, f.results) : f.node
    const out = f.wrap ? wrapNode(body) : body
    const parent = stack[stack.length - 1]
    if (parent === undefined) return out as JsonSchemaObject
    parent.results.push(out)
  }
}

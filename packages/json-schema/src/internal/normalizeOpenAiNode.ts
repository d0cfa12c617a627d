/**
 * Shared pieces of the OpenAI strict-mode transform: the reason it gives up, own-property access that
 * never reads a prototype, and the node predicates (pure union, nullable, types) both passes use.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import type { JsonObject, JsonValue } from "../JsonValue.js"

/** Why strict enforcement gave up at a node (thrown inside the transform, caught once: fail open). */
export class NotStrict {
  readonly _tag = "NotStrict"
  constructor(readonly path: string, readonly reason: string) {}
}

/** A change sentence collector, shared by both passes of one run. */
export type Changes = Array<{ readonly path: string; readonly change: string }>

/** A mutable object under construction: every key is set as an own property (`__proto__` included). */
export type Draft = Record<string, JsonValue>

/** Schema nodes deeper than this are refused before they can exhaust the stack. */
export const maxDepth = 200

/** The value of an own property, never an inherited one (`constructor`, `__proto__`). */
export const own = (o: JsonObject, key: string): JsonValue | undefined =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined

/** Sets an own enumerable property without ever touching a prototype. */
export const set = (o: Draft, key: string, value: JsonValue): void => {
  // only `__proto__` has a setter on a plain object; every other key is an ordinary own property
  if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
  else o[key] = value
}

/** A fresh draft object (plain prototype, so the output is an ordinary JSON object). */
export const draft = (): Draft => ({})

/** Whether a value is a plain JSON object (a schema object, a `properties` map). */
export const isObject = (u: JsonValue | JsonSchema | undefined): u is JsonObject =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** JSON of a value for a change sentence, cut short so a huge value cannot flood the log. */
export const show = (v: JsonValue): string => {
  const s = JSON.stringify(v)
  return s.length > 80 ? `${s.slice(0, 77)}...` : s
}

/** The type names a node declares (`type` string or array); `undefined` when it declares none. */
export const typesOf = (node: JsonObject): ReadonlyArray<string> | undefined => {
  const t = own(node, "type")
  if (typeof t === "string") return [t]
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string")
  return undefined
}

/** Whether a node declares the given type. */
export const hasType = (node: JsonObject, name: string): boolean => typesOf(node)?.includes(name) === true

/** A pure union: `anyOf` and at most a `description`, nothing that constrains next to the union. */
export const isPureUnion = (node: JsonValue): node is JsonObject => {
  if (!isObject(node) || !Array.isArray(own(node, "anyOf"))) return false
  for (const k of Object.keys(node)) if (k !== "anyOf" && k !== "description") return false
  return true
}

/** Whether a (strictified) node already accepts `null`, so making it nullable would add nothing. */
export const acceptsNull = (node: JsonValue): boolean => {
  if (!isObject(node)) return false
  if (isPureUnion(node)) return (own(node, "anyOf") as ReadonlyArray<JsonValue>).some(acceptsNull)
  if (own(node, "anyOf") !== undefined || own(node, "$ref") !== undefined) return false
  if (!hasType(node, "null")) return false
  const values = own(node, "enum")
  return values === undefined || (Array.isArray(values) && values.includes(null))
}

/** A fresh `{ "type": "null" }` schema, the branch that makes a node nullable. */
export const nullSchema = (): Draft => ({ type: "null" })

/** Schemas whose tree (shared subschemas counted each time they occur) is larger than this are refused. */
export const maxNodes = 1_000_000

/**
 * How many values the schema holds as a tree (a subschema shared by reference counts at each place), or
 * `undefined` when it is not JSON (a function, `NaN`, a class instance, a cycle) or larger than `maxNodes`.
 * Linear in the distinct objects, so a shared-reference bomb is measured, not walked.
 */
export const treeSize = (root: unknown): number | undefined => {
  const done = new Map<object, number>()
  const open = new Set<object>()
  const stack: Array<{ readonly v: unknown; readonly exit: boolean }> = [{ v: root, exit: false }]
  let last = 0
  while (stack.length > 0) {
    const { exit, v } = stack.pop()!
    if (typeof v === "string" || typeof v === "boolean" || v === null) continue
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return undefined
      continue
    }
    if (typeof v !== "object") return undefined
    if (exit) {
      let size = 1
      for (const c of Object.values(v)) size += typeof c === "object" && c !== null ? done.get(c)! : 1
      if (size > maxNodes) return undefined
      open.delete(v)
      done.set(v, size)
      last = size
      continue
    }
    if (done.has(v)) continue
    if (open.has(v)) return undefined
    const proto = Object.getPrototypeOf(v)
    if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return undefined
    open.add(v)
    stack.push({ v, exit: true })
    for (const c of Object.values(v)) stack.push({ v: c, exit: false })
  }
  return typeof root === "object" && root !== null ? last : 1
}

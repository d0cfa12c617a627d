/**
 * The JSON value type and its guards.
 *
 * @since 0.1.0
 */

/** A JSON value: what `JSON.parse` returns and `JSON.stringify` writes without loss. */
export type JsonValue = null | boolean | number | string | JsonArray | JsonObject

/** A JSON array. */
export type JsonArray = ReadonlyArray<JsonValue>

/** A JSON object. Keys are own properties; `__proto__` is an ordinary key. */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/** Whether `u` is a plain JSON object (not an array, not null). */
export const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether `u` is a JSON array. */
export const isArray = (u: unknown): u is JsonArray => Array.isArray(u)

/** The JSON Schema type name of a value: `"integer"` for whole numbers, `"number"` otherwise. */
export const typeOf = (
  u: JsonValue
): "null" | "boolean" | "integer" | "number" | "string" | "array" | "object" =>
  u === null
    ? "null"
    : typeof u === "boolean"
    ? "boolean"
    : typeof u === "number"
    ? Number.isInteger(u) ? "integer" : "number"
    : typeof u === "string"
    ? "string"
    : Array.isArray(u)
    ? "array"
    : "object"

/**
 * Whether a value is JSON all the way down: finite numbers, plain objects and arrays whose members are own
 * enumerable data properties (no getters, symbols or holes), no cycles (a member shared by two parents is
 * fine). Iterative, so 10,000-level nesting costs no stack; total, so a throwing Proxy trap is "not JSON".
 */
export const isJsonValue = (u: unknown): u is JsonValue => {
  try {
    const ancestors = new Set<object>()
    const stack: Array<unknown> = [u]
    while (stack.length > 0) {
      const v = stack.pop()
      if (v === LEAVE) {
        ancestors.delete(stack.pop() as object)
        continue
      }
      if (v === null || typeof v === "boolean" || typeof v === "string") continue
      if (typeof v === "number") {
        if (!Number.isFinite(v)) return false
        continue
      }
      if (typeof v !== "object" || ancestors.has(v) || !membersOf(v, stack)) return false
      ancestors.add(v)
    }
    return true
  } catch {
    return false
  }
}

// Marks, on isJsonValue's stack, the point where an object's members are done and it stops being an ancestor.
const LEAVE = Symbol("leave")

/** Pushes `v`, a leave marker and its members; false when `v` is not a plain object or a dense array. */
const membersOf = (v: object, stack: Array<unknown>): boolean => {
  const isArray = Array.isArray(v)
  if (!isArray) {
    const proto = Object.getPrototypeOf(v)
    if (proto !== Object.prototype && proto !== null) return false
  }
  const keys = Reflect.ownKeys(v)
  if (isArray && keys.length !== v.length + 1) return false // holes, or extra keys beside `length`
  stack.push(v, LEAVE)
  for (const k of keys) {
    if (isArray && k === "length") continue
    if (typeof k === "symbol") return false
    const d = Object.getOwnPropertyDescriptor(v, k)
    if (d === undefined || !("value" in d) || !d.enumerable) return false
    stack.push(d.value)
  }
  return true
}

/**
 * Builds an object from entries without touching any prototype: a `__proto__` key becomes an own
 * property, never the object's prototype.
 */
export const fromEntries = (entries: Iterable<readonly [string, JsonValue]>): JsonObject => {
  const out: Record<string, JsonValue> = {}
  if (typeof entries !== "object" || entries === null || typeof entries[Symbol.iterator] !== "function") return out
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length < 2 || typeof entry[0] !== "string") continue
    Object.defineProperty(out, entry[0], { value: entry[1], enumerable: true, writable: true, configurable: true })
  }
  return out
}

/**
 * Structural equality of two JSON values (object key order ignored), as JSON Schema's `const` and `enum` use it.
 * Iterative, so 10,000-level nesting compares without running out of stack.
 */
export const equals = (a: JsonValue, b: JsonValue): boolean => {
  const stack: Array<JsonValue> = [a, b]
  while (stack.length > 0) {
    const y = stack.pop()!
    const x = stack.pop()!
    if (x === y) continue
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push(x[i]!, y[i]!)
      continue
    }
    if (Array.isArray(y)) return false
    const kx = Object.keys(x)
    if (kx.length !== Object.keys(y).length) return false
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false
      stack.push((x as JsonObject)[k]!, (y as JsonObject)[k]!)
    }
  }
  return true
}

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

/**
 * `JSON.stringify(value)` for values of any depth, never throwing: the engine's writer first, and when it
 * runs out of stack (V8 does at a few thousand levels) an iterative writer with the same output for data
 * (members that are `undefined`, functions or symbols left out of objects and `null` in arrays, non-finite
 * numbers `null`). `undefined` when there is no JSON text: a cycle, a `bigint`, a top-level `undefined`.
 */
export const stringify = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value)
  } catch (e) {
    if (!(e instanceof RangeError)) return undefined
  }
  try {
    return writeIteratively(value)
  } catch {
    return undefined
  }
}

interface Frame {
  readonly entries: ReadonlyArray<readonly [string | undefined, unknown]>
  readonly container: object
  readonly close: string
  i: number
}

// What `JSON.stringify` writes for a leaf: `undefined` for a container, "" for a value it leaves out.
const leaf = (v: unknown): string | undefined => {
  if (v === null) return "null"
  switch (typeof v) {
    case "object":
      return undefined
    case "number":
      return Number.isFinite(v) ? String(v) : "null"
    case "string":
    case "boolean":
      return JSON.stringify(v)
    case "bigint":
      throw new TypeError("a bigint is not JSON")
    default:
      return ""
  }
}

/** The iterative writer behind `stringify` (linear in the output; a cycle throws). */
const writeIteratively = (value: unknown): string | undefined => {
  const out: Array<string> = []
  const stack: Array<Frame> = []
  const open = new Set<object>()
  const put = (v: unknown): void => {
    const s = leaf(v)
    if (s !== undefined) return void out.push(s === "" ? "null" : s)
    const o = v as object
    if (open.has(o)) throw new TypeError("a cycle is not JSON")
    open.add(o)
    const entries = Array.isArray(o)
      ? o.map((x): readonly [undefined, unknown] => [undefined, x])
      : Object.keys(o).map((k): readonly [string, unknown] => [k, (o as Record<string, unknown>)[k]]).filter(([, x]) => leaf(x) !== "")
    out.push(Array.isArray(o) ? "[" : "{")
    stack.push({ entries, container: o, close: Array.isArray(o) ? "]" : "}", i: 0 })
  }
  if (leaf(value) === "") return undefined
  put(value)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.i === frame.entries.length) {
      out.push(frame.close)
      open.delete(frame.container)
      stack.pop()
      continue
    }
    const [key, member] = frame.entries[frame.i]!
    if (frame.i++ > 0) out.push(",")
    if (key !== undefined) out.push(JSON.stringify(key), ":")
    put(member)
  }
  return out.join("")
}

/**
 * Defensive reads over values of unknown origin: nothing here invokes a getter, a `toString`, a
 * `Symbol.toPrimitive` or a Proxy trap without catching what it throws.
 *
 * @internal
 */
import type { JsonValue as J } from "@toolgate/json-schema"

type JsonValue = J.JsonValue
type JsonObject = J.JsonObject

/** An own data property of `u`, never an inherited or accessor one; `undefined` when absent or unreadable. */
export const ownValue = (u: unknown, key: string): unknown => {
  if (typeof u !== "object" || u === null) return undefined
  try {
    const d = Object.getOwnPropertyDescriptor(u, key)
    return d !== undefined && "value" in d ? d.value : undefined
  } catch {
    return undefined
  }
}

/** Whether `u` has an own data property `key`. */
export const hasOwnValue = (u: unknown, key: string): boolean => {
  if (typeof u !== "object" || u === null) return false
  try {
    const d = Object.getOwnPropertyDescriptor(u, key)
    return d !== undefined && "value" in d
  } catch {
    return false
  }
}

/** A property read (inherited getters included, as `Error.message` may be one) that never throws. */
export const safeGet = (u: unknown, key: string): unknown => {
  if (typeof u !== "object" && typeof u !== "function") return undefined
  if (u === null) return undefined
  try {
    return (u as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** Whether `u` is a plain object (not an array, not null); a Proxy that throws is not. */
export const isPlainObject = (u: unknown): u is JsonObject => {
  if (typeof u !== "object" || u === null) return false
  try {
    if (Array.isArray(u)) return false
    const proto = Object.getPrototypeOf(u)
    return proto === Object.prototype || proto === null
  } catch {
    return false
  }
}

/** `JSON.parse` that answers `undefined` instead of throwing. */
export const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/** A short, single-line description of any value, for messages; never throws. */
export const describe = (u: unknown, max = 60): string => {
  try {
    if (u === null) return "null"
    if (u === undefined) return "nothing"
    if (typeof u === "string") return `string ${JSON.stringify(clip(u, max))}`
    if (typeof u === "number" || typeof u === "boolean") return `${typeof u} ${String(u)}`
    if (Array.isArray(u)) return `an array of ${u.length} item${u.length === 1 ? "" : "s"}`
    if (typeof u === "object") return "an object"
    return `a ${typeof u}`
  } catch {
    return "an unreadable value"
  }
}

/** Clips `s` to at most `max` code units, never between a surrogate pair, marking the cut with "…". */
export const clip = (s: string, max: number): string => {
  if (s.length <= max) return s
  let end = Math.max(0, max - 1)
  if (end > 0 && isHighSurrogate(s.charCodeAt(end - 1))) end -= 1
  return `${s.slice(0, end)}…`
}

/** Whether a UTF-16 code unit opens a surrogate pair. */
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/** Whether a UTF-16 code unit closes a surrogate pair. */
export const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** `String(u)`, or `""` when converting throws (a hostile `toString` or `Symbol.toPrimitive`). */
export const safeString = (u: unknown): string => {
  try {
    return String(u)
  } catch {
    return ""
  }
}

type Frame =
  | { readonly items: ReadonlyArray<JsonValue>; i: number }
  | { readonly object: JsonObject; readonly keys: ReadonlyArray<string>; i: number }

/**
 * `JSON.stringify` for a JSON value of any depth: the native one first, and an iterative writer with the
 * same output when the native one runs out of stack (V8 does at a few thousand levels).
 */
export const stringify = (value: JsonValue): string => {
  try {
    return JSON.stringify(value)
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
  }
  return stringifyIterative(value)
}

/** The iterative writer behind `stringify`: same output as `JSON.stringify` for JSON values, no recursion. */
export const stringifyIterative = (value: JsonValue): string => {
  const out: Array<string> = []
  const stack: Array<Frame> = []
  const open = (v: JsonValue): void => {
    if (v === null || typeof v !== "object") out.push(JSON.stringify(v))
    else if (Array.isArray(v)) {
      out.push("[")
      stack.push({ items: v, i: 0 })
    } else {
      out.push("{")
      stack.push({ object: v as JsonObject, keys: Object.keys(v), i: 0 })
    }
  }
  open(value)
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!
    const n = "items" in f ? f.items.length : f.keys.length
    if (f.i >= n) {
      out.push("items" in f ? "]" : "}")
      stack.pop()
      continue
    }
    if (f.i > 0) out.push(",")
    const i = f.i++
    if ("items" in f) open(f.items[i]!)
    else {
      const key = f.keys[i]!
      out.push(JSON.stringify(key), ":")
      open(f.object[key]!)
    }
  }
  return out.join("")
}

/**
 * Defensive reads over values of unknown origin: nothing here invokes a getter, a `toString`, a
 * `Symbol.toPrimitive` or a Proxy trap without catching what it throws.
 *
 * @internal
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import { clip } from "@toolgate/json-schema/Text"

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

/** `String(u)`, or `""` when converting throws (a hostile `toString` or `Symbol.toPrimitive`). */
export const safeString = (u: unknown): string => {
  try {
    return String(u)
  } catch {
    return ""
  }
}

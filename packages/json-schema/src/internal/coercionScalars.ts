/**
 * Scalar rules of the lenient coercion and the small schema readers they rely on.
 *
 * @internal
 */
import type { JsonSchema, JsonSchemaObject } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"
import { byIdentity } from "./compileCache.js"

/** A JSON Schema type name. */
export type TypeName = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object"

const typeNames: ReadonlySet<string> = new Set(["null", "boolean", "integer", "number", "string", "array", "object"])

/** The own value of `key` in a schema map, never an inherited one (`__proto__`, `constructor`). */
export const own = (o: JsonValue.JsonObject, key: string): JsonValue.JsonValue | undefined =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined

/** The schema's own keyword value as an object, when it is one. */
export const objectKeyword = (schema: JsonSchemaObject, keyword: string): JsonValue.JsonObject | undefined => {
  const v = own(schema, keyword)
  return JsonValue.isObject(v) ? v : undefined
}

/** The schema's own keyword value as an array, when it is one. */
export const arrayKeyword = (schema: JsonSchemaObject, keyword: string): JsonValue.JsonArray | undefined => {
  const v = own(schema, keyword)
  return Array.isArray(v) ? v : undefined
}

/** Whether a value is a schema (a boolean or an object). */
export const isSchemaValue = (u: JsonValue.JsonValue | undefined): u is JsonSchema =>
  typeof u === "boolean" || JsonValue.isObject(u)

/** The values of `enum`, or `const` as a one-value enum, or undefined when neither is declared. */
export const enumValues = (schema: JsonSchemaObject): JsonValue.JsonArray | undefined => {
  const e = arrayKeyword(schema, "enum")
  if (e !== undefined) return e
  return Object.prototype.hasOwnProperty.call(schema, "const") ? [schema["const"]!] : undefined
}

/**
 * What coercion asks of an enum's values, read once per array (an enum of a million values is then a
 * lookup, not a scan per call): its scalars, each string by its lower case (`null` when two share one),
 * the types of its values and whether a blank string is among them.
 */
interface EnumIndex {
  readonly scalars: ReadonlySet<unknown>
  readonly spellings: ReadonlyMap<string, string | null>
  readonly types: ReadonlySet<TypeName>
  readonly blank: boolean
}

const enumIndex = byIdentity((values: JsonValue.JsonArray): EnumIndex => {
  const scalars = new Set<unknown>(), spellings = new Map<string, string | null>(), types = new Set<TypeName>()
  let blank = false
  for (const v of values) {
    types.add(JsonValue.typeOf(v))
    if (typeof v === "object" && v !== null) continue
    scalars.add(v)
    if (typeof v !== "string") continue
    blank ||= isBlank(v)
    const lower = v.toLowerCase()
    spellings.set(lower, spellings.has(lower) ? null : v)
  }
  return { scalars, spellings, types, blank }
})

/** Whether an enum's values hold the scalar `v` (a string, number, boolean or `null`). */
export const enumHas = (values: JsonValue.JsonArray, v: string | number | boolean | null): boolean => enumIndex(values).scalars.has(v)

/** Whether an enum's values hold a blank string. */
export const enumHasBlank = (values: JsonValue.JsonArray): boolean => enumIndex(values).blank

/**
 * The types a schema node allows by its own `type`, or, without one, the types of its `enum` / `const`
 * values; undefined when the node says nothing about types (then no type-directed rule applies).
 */
export const allowedTypes = (schema: JsonSchemaObject): ReadonlySet<TypeName> | undefined => {
  const t = own(schema, "type")
  if (typeof t === "string") return typeNames.has(t) ? new Set([t as TypeName]) : undefined
  if (Array.isArray(t)) {
    const names = t.filter((x): x is TypeName => typeof x === "string" && typeNames.has(x))
    return names.length === t.length ? new Set(names) : undefined
  }
  const values = enumValues(schema)
  return values === undefined ? undefined : enumIndex(values).types
}

/** Whether a set of allowed types accepts a value of the given type (`integer` counts as a `number`). */
export const allows = (types: ReadonlySet<TypeName>, t: TypeName): boolean =>
  types.has(t) || (t === "integer" && types.has("number"))

/** Whether a string may be blank: empty, or its first character is not printable ASCII (which settles "no"). */
export const mayBeBlank = (s: string): boolean => {
  if (s.length === 0) return true
  const c = s.charCodeAt(0)
  return c <= 32 || c >= 127
}

/** Whether a string is empty or only whitespace: an unused optional field the model filled in. */
export const isBlank = (s: string): boolean => mayBeBlank(s) && s.trim().length === 0

// The JSON number grammar only: no hex, no "", no "Infinity", no leading "+" or zeros.
const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** A decimal string as a finite number (surrounding whitespace allowed), or undefined. */
export const parseNumber = (s: string): number | undefined => {
  const t = s.trim()
  if (!jsonNumber.test(t)) return undefined
  const n = Number(t)
  if (!Number.isFinite(n)) return undefined
  return n === 0 ? 0 : n
}

/** A decimal string as a safe integer (`"30.0"` is 30, `"1.5"` is not an integer), or undefined. */
export const parseInteger = (s: string): number | undefined => {
  const n = parseNumber(s)
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined
}

const truthy: ReadonlySet<string> = new Set(["true", "yes", "1"])
const falsy: ReadonlySet<string> = new Set(["false", "no", "0"])

/** `"true"`/`"yes"`/`"1"` and `"false"`/`"no"`/`"0"`, trimmed, any case, as a boolean, or undefined. */
export const parseBoolean = (s: string): boolean | undefined => {
  const t = s.trim().toLowerCase()
  return truthy.has(t) ? true : falsy.has(t) ? false : undefined
}

/** A string holding a JSON array or object (decoded), or undefined; never throws. */
export const parseContainer = (s: string, want: "array" | "object"): JsonValue.JsonValue | undefined => {
  const t = s.trim()
  if (t[0] !== (want === "array" ? "[" : "{")) return undefined
  try {
    const v: unknown = JSON.parse(t)
    return want === "array" ? (Array.isArray(v) ? v : undefined) : JsonValue.isObject(v) ? v : undefined
  } catch {
    return undefined
  }
}

/** A key's spelling with case, `_` and `-` removed: `user_id`, `userId` and `UserID` all read `userid`. */
export const keyShape = (key: string): string => key.replace(/[_-]/g, "").toLowerCase()

/** The one declared string enum value equal to `s` ignoring case, or undefined (none, or several). */
export const enumSpelling = (values: JsonValue.JsonArray, s: string): string | undefined =>
  enumIndex(values).spellings.get(s.toLowerCase()) ?? undefined

/** Field name of a path as the model wrote it: `filters.0.name` ("" for the whole arguments). */
export const fieldOf = (path: ReadonlyArray<string | number>): string => path.join(".")

const regexCache = new Map<string, RegExp | null>()

/** A `patternProperties` pattern as a Unicode RegExp, or null when it does not compile. */
export const patternOf = (pattern: string): RegExp | null => {
  const hit = regexCache.get(pattern)
  if (hit !== undefined) return hit
  let re: RegExp | null
  try {
    re = new RegExp(pattern, "u")
  } catch {
    re = null
  }
  if (regexCache.size < 1000) regexCache.set(pattern, re)
  return re
}

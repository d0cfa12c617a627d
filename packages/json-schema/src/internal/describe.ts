/**
 * Words for schemas and values in issue messages: what a schema wants ("string or null", "one of: a, b")
 * and what a model sent (`string "abc"`), truncated so a 10 MB argument never becomes a 10 MB message.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import { prefix } from "../Text.js"
import type { JsonValue } from "../JsonValue.js"
import { byIdentity } from "./compileCache.js"

/** Resolves a `$ref` of the schema being described (local refs only). */
export type Resolve = (ref: string) => JsonSchema | undefined

const MAX_TEXT = 60
const MAX_LIST = 12

/** A short JSON rendering of a value: strings quoted and cut, containers summarised. */
export const preview = (v: unknown): string => {
  if (typeof v === "string") {
    return v.length > MAX_TEXT ? JSON.stringify(prefix(v, MAX_TEXT)).slice(0, -1) + `…" (${v.length} characters)` : JSON.stringify(v)
  }
  if (v === null || typeof v === "number" || typeof v === "boolean") return String(v)
  if (Array.isArray(v)) return v.length === 0 ? "[]" : `an array of ${v.length} item${v.length === 1 ? "" : "s"}`
  if (typeof v === "object") {
    const keys = Object.keys(v)
    if (keys.length === 0) return "{}"
    const more = keys.length > MAX_LIST ? `, … (${keys.length - MAX_LIST} more)` : ""
    return `an object with keys ${keys.slice(0, MAX_LIST).map(preview).join(", ")}${more}`
  }
  return typeof v
}

/** What a value is, for "got …": `string "abc"`, `number 1.5`, `null`, `array (3 items)`. */
export const got = (v: unknown): string => {
  if (v === null) return "null"
  if (typeof v === "string") return `string ${preview(v)}`
  if (typeof v === "number") return `${Number.isInteger(v) ? "integer" : "number"} ${v}`
  if (typeof v === "boolean") return `boolean ${v}`
  if (Array.isArray(v)) return v.length === 0 ? "an empty array" : preview(v)
  if (typeof v === "object") return preview(v)
  return "nothing"
}

/** An argument name for a message: cut in the middle past 80 characters (the `field` itself stays exact). */
export const name = (field: string): string =>
  field.length <= 80 ? field : `${field.slice(0, 40)}…${field.slice(-30)} (${field.length} characters)`

/** A list cut to a readable length: `a, b, c, … (40 more)`. */
export const list = (items: ReadonlyArray<string>, max = MAX_LIST): string =>
  items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")}, … (${items.length - max} more)`

/** An enum member as a model would write it: strings bare, everything else as JSON. */
export const member = (v: unknown): string => (typeof v === "string" ? (v.length > MAX_TEXT ? preview(v) : v) : preview(v))

/** An enum's values as `list` shows them, only the shown ones rendered (an enum may hold a million values). */
export const members = (values: ReadonlyArray<unknown>, max = MAX_LIST): string =>
  values.length <= max ? list(values.map(member), max) : `${values.slice(0, max).map(member).join(", ")}, … (${values.length - max} more)`

/** `"string or null"` from a `type` keyword value. */
export const typeWords = (t: unknown): string | undefined => {
  if (typeof t === "string") return t
  if (Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === "string")) return orList(t as Array<string>)
  return undefined
}

const orList = (xs: ReadonlyArray<string>): string => {
  const u = [...new Set(xs)]
  return u.length <= 2 ? u.join(" or ") : `${list(u.slice(0, -1))} or ${u[u.length - 1]}`
}

/** What a schema wants, in a few words; `undefined` when nothing short can be said. */
export const summary = (s: JsonSchema | undefined, resolve: Resolve, depth = 0): string | undefined => {
  if (s === undefined || depth > 4) return undefined
  if (s === true) return "any value"
  if (s === false) return "nothing (not allowed)"
  if ("const" in s) return `exactly ${preview(s["const"])}`
  const e = s["enum"]
  if (Array.isArray(e)) return `one of: ${members(e)}`
  const t = typeWords(s["type"])
  if (t !== undefined) return t === "array" ? arrayWords(s, resolve, depth) : t
  for (const k of ["anyOf", "oneOf"] as const) {
    const bs = s[k]
    if (Array.isArray(bs) && bs.length > 0) {
      const words = bs.map((b) => summary(b as JsonSchema, resolve, depth + 1))
      if (words.every((w): w is string => w !== undefined)) return orList(words)
    }
  }
  const ref = s["$ref"]
  if (typeof ref === "string") return summary(resolve(ref), resolve, depth + 1)
  return undefined
}

const arrayWords = (s: { readonly [k: string]: JsonValue }, resolve: Resolve, depth: number): string => {
  const items = s["items"]
  if (typeof items !== "object" || items === null || Array.isArray(items)) return "array"
  const inner = summary(items as JsonSchema, resolve, depth + 1)
  return inner === undefined || inner.includes(",") ? "array" : `array of ${inner}`
}

/** Whether a value could satisfy a schema's `type` / `const` / `enum` (a cheap branch filter). */
export const typeFits = (s: JsonSchema | undefined, v: unknown, resolve: Resolve, depth = 0): boolean => {
  if (s === undefined || s === true) return true
  if (s === false) return false
  if (depth > 4) return true
  const ref = s["$ref"]
  if (typeof ref === "string" && !typeFits(resolve(ref), v, resolve, depth + 1)) return false
  const e = s["enum"]
  if (Array.isArray(e) && !inEnum(e, v)) return false
  if ("const" in s && !sameScalar(s["const"], v)) return false
  const t = s["type"]
  const ts = typeof t === "string" ? [t] : Array.isArray(t) ? t : undefined
  return ts === undefined || ts.some((x) => typeMatches(x, v))
}

/** An enum's scalars in a set, and whether it holds an object or array: read once per array. */
const enumShape = byIdentity((e: ReadonlyArray<unknown>) => ({
  scalars: new Set(e.filter((x) => typeof x !== "object" || x === null)),
  composite: e.some((x) => typeof x === "object" && x !== null)
}))

/** Whether `v` could be a member of enum `e`, as `sameScalar` reads it (any object for an object member). */
const inEnum = (e: ReadonlyArray<unknown>, v: unknown): boolean => {
  const shape = enumShape(e)
  return typeof v === "object" && v !== null ? shape.composite : shape.scalars.has(v)
}

const sameScalar = (a: unknown, b: unknown): boolean =>
  typeof a === "object" && a !== null ? typeof b === "object" && b !== null : a === b

const typeMatches = (t: unknown, v: unknown): boolean => {
  switch (t) {
    case "null":
      return v === null
    case "boolean":
      return typeof v === "boolean"
    case "string":
      return typeof v === "string"
    case "integer":
      return typeof v === "number" && Number.isInteger(v)
    case "number":
      return typeof v === "number"
    case "array":
      return Array.isArray(v)
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v)
    default:
      return true
  }
}

/** The schema's description when it reads as a description of the value (short, one line). */
export const describedAs = (s: JsonSchema | undefined): string | undefined => {
  if (typeof s !== "object") return undefined
  const d = s["description"]
  if (typeof d !== "string") return undefined
  const t = d.trim()
  return t.length > 0 && t.length <= 120 && !t.includes("\n") ? t.replace(/\.$/, "") : undefined
}

/**
 * The schema-directed walk behind `Coercion.coerce` for values the schema rejects. Each node applies,
 * in order: its `$ref` target and `allOf` members, the scalar rules, the object or array rules
 * (recursing into children), then a branch of `anyOf`/`oneOf` when exactly one validates.
 * Copy-on-write: an untouched subtree comes back as the same reference.
 *
 * @internal
 */
import type { Coercion, Rule } from "../Coercion.js"
import { type JsonSchema, type JsonSchemaObject, resolveRef } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"
import { at, type Context, type Entry, note, type Path, validAt } from "./coercionContext.js"
import * as Keys from "./coercionKeys.js"
import * as Schema from "./coercionSchema.js"
import * as S from "./coercionScalars.js"

/**
 * What holds for the current value across the schemas applied to it: the nodes already entered (a `$ref`
 * loop guard), the keys it must have, and the pointer of the schema it entered by (the one that judges it).
 */
interface Group {
  readonly seen: Set<object>
  readonly required: ReadonlySet<string>
  readonly ptr: string
}

// Nested unions can multiply the work; past this many node visits in union trials, values stay as they are.
const budget = 100_000

/** Applies every lenient rule the schema directs to `value`. */
export const coerce = (
  root: JsonSchema,
  value: JsonValue.JsonValue,
  strictNulls: boolean,
  keepEmpty = false
): { readonly value: JsonValue.JsonValue; readonly coercions: ReadonlyArray<Coercion> } => {
  const ctx: Context = { root, strictNulls, keepEmpty, out: [], budget: { left: budget }, trial: false }
  const v = walk(ctx, root, "", value, [], undefined)
  return { value: v, coercions: ctx.out }
}

const walk = (
  ctx: Context,
  schema: JsonSchema,
  ptr: string,
  value: JsonValue.JsonValue,
  path: Path,
  group: Group | undefined
): JsonValue.JsonValue => {
  if (!JsonValue.isObject(schema) || (ctx.trial && ctx.budget.left-- <= 0)) return value
  const g = group ?? { seen: new Set<object>(), required: Schema.requiredOf(ctx.root, schema), ptr }
  if (g.seen.has(schema)) return value
  g.seen.add(schema)
  let v = value
  const ref = S.own(schema, "$ref")
  if (typeof ref === "string") {
    const r = resolveRef(ctx.root, ref)
    if (r._tag === "Resolved") v = walk(ctx, r.schema, r.pointer, v, path, g)
  }
  const allOf = S.arrayKeyword(schema, "allOf") ?? []
  for (let i = 0; i < allOf.length; i++) {
    const m = allOf[i]
    if (S.isSchemaValue(m)) v = walk(ctx, m, at(ptr, "allOf", i), v, path, g)
  }
  v = scalar(ctx, schema, v, path)
  if (JsonValue.isObject(v)) v = object(ctx, schema, ptr, v, path, g)
  else if (Array.isArray(v)) v = array(ctx, schema, ptr, v, path)
  v = union(ctx, schema, ptr, "anyOf", v, path, g)
  v = union(ctx, schema, ptr, "oneOf", v, path, g)
  g.seen.delete(schema)
  return v
}

const isNullWord = (s: string): boolean => s.trim().toLowerCase() === "null"

/** The string rules: `"null"` for a nullable node, type-directed decoding, enum spelling. */
const scalar = (ctx: Context, schema: JsonSchemaObject, v: JsonValue.JsonValue, path: Path): JsonValue.JsonValue => {
  if (typeof v !== "string") return v
  const values = S.enumValues(schema)
  if (values !== undefined && S.enumHas(values, v)) return v
  const types = S.allowedTypes(schema)
  const nullable = values !== undefined
    ? S.enumHas(values, null)
    : types !== undefined && types.has("null") && !types.has("string")
  if (nullable && isNullWord(v)) {
    note(ctx, path, "string-null", v, null)
    return null
  }
  if (types !== undefined && !types.has("string")) {
    const decoded = decode(types, v)
    if (decoded !== undefined) {
      note(ctx, path, decoded[0], v, decoded[1])
      return decoded[1]
    }
  }
  const spelling = values === undefined ? undefined : S.enumSpelling(values, v)
  if (spelling === undefined || spelling === v) return v
  note(ctx, path, "enum-case", v, spelling)
  return spelling
}

/** A string decoded as the first allowed type it reads as: number, integer, boolean, array, object. */
const decode = (types: ReadonlySet<S.TypeName>, s: string): readonly [Rule, JsonValue.JsonValue] | undefined => {
  if (types.has("number")) {
    const n = S.parseNumber(s)
    if (n !== undefined) return ["string-to-number", n]
  } else if (types.has("integer")) {
    const n = S.parseInteger(s)
    if (n !== undefined) return ["string-to-integer", n]
  }
  if (types.has("boolean")) {
    const b = S.parseBoolean(s)
    if (b !== undefined) return ["string-to-boolean", b]
  }
  if (types.has("array")) {
    const a = S.parseContainer(s, "array")
    if (a !== undefined) return ["string-to-array", a]
  }
  if (types.has("object")) {
    const o = S.parseContainer(s, "object")
    if (o !== undefined) return ["string-to-object", o]
  }
  return undefined
}

/** The object rules: strict-provider nulls, the `properties` wrapper, key spelling, then each member. */
const object = (
  ctx: Context,
  schema: JsonSchemaObject,
  ptr: string,
  obj: JsonValue.JsonObject,
  path: Path,
  g: Group
): JsonValue.JsonValue => {
  const props = S.objectKeyword(schema, "properties")
  const patterns = S.objectKeyword(schema, "patternProperties")
  const extra = S.own(schema, "additionalProperties")
  if (props === undefined && patterns === undefined && !S.isSchemaValue(extra)) return obj
  const required = new Set(g.required)
  for (const k of S.arrayKeyword(schema, "required") ?? []) if (typeof k === "string") required.add(k)
  let entries: ReadonlyArray<Entry> = Object.keys(obj).map((k) => [k, obj[k]!, [...path, k]])
  let changed = false
  if (props !== undefined) {
    const before = entries
    if (ctx.strictNulls) entries = Keys.dropStrictNulls(ctx, props, required, entries)
    let invalid: boolean | undefined
    // The key rules repair only an object that the schema it entered by rejects (not just this member).
    const isInvalid = () => (invalid ??= validAt(ctx, g.ptr, obj) === false)
    entries = Keys.unwrap(ctx, props, patterns, entries, path, isInvalid)
    entries = Keys.rename(ctx, props, patterns, entries, isInvalid)
    changed = entries !== before
  }
  const out: Array<readonly [string, JsonValue.JsonValue]> = []
  for (const [k, x, written] of entries) {
    const declared = props === undefined ? undefined : S.own(props, k)
    if (
      !ctx.keepEmpty && typeof x === "string" && S.isSchemaValue(declared) && !required.has(k) && S.isBlank(x) &&
      Schema.isFiller(Schema.fillers(ctx.root, declared), x)
    ) {
      note(ctx, written, "drop-empty-optional", x, undefined)
      changed = true
      continue
    }
    const y = member(ctx, ptr, { declared, patterns, extra }, k, x, written)
    if (y !== x) changed = true
    out.push([k, y])
  }
  return changed ? JsonValue.fromEntries(out) : obj
}

/** One member value through its declared, pattern and additional subschemas. */
const member = (
  ctx: Context,
  ptr: string,
  s: {
    readonly declared: JsonValue.JsonValue | undefined
    readonly patterns: JsonValue.JsonObject | undefined
    readonly extra: JsonValue.JsonValue | undefined
  },
  key: string,
  x: JsonValue.JsonValue,
  written: Path
): JsonValue.JsonValue => {
  let y = x
  if (S.isSchemaValue(s.declared)) y = walk(ctx, s.declared, at(ptr, "properties", key), y, written, undefined)
  let matched = false
  for (const p of s.patterns === undefined ? [] : Object.keys(s.patterns)) {
    const ps = s.patterns![p]
    if (S.patternOf(p)?.test(key) !== true || !S.isSchemaValue(ps)) continue
    matched = true
    y = walk(ctx, ps, at(ptr, "patternProperties", p), y, written, undefined)
  }
  if (s.declared === undefined && !matched && S.isSchemaValue(s.extra)) {
    y = walk(ctx, s.extra, at(ptr, "additionalProperties"), y, written, undefined)
  }
  return y
}

/** `prefixItems` (or draft-07 tuple `items`) by position, then `items` (or `additionalItems`) for the rest. */
const array = (
  ctx: Context,
  schema: JsonSchemaObject,
  ptr: string,
  arr: JsonValue.JsonArray,
  path: Path
): JsonValue.JsonValue => {
  const items = S.own(schema, "items")
  const tuple = Array.isArray(items)
  const prefix = S.arrayKeyword(schema, "prefixItems") ?? (tuple ? items : undefined)
  const prefixKw = tuple && S.arrayKeyword(schema, "prefixItems") === undefined ? "items" : "prefixItems"
  const rest = tuple ? S.own(schema, "additionalItems") : items
  const restKw = tuple ? "additionalItems" : "items"
  if (prefix === undefined && !S.isSchemaValue(rest)) return arr
  let out: Array<JsonValue.JsonValue> | undefined
  for (let i = 0; i < arr.length; i++) {
    const inPrefix = prefix !== undefined && i < prefix.length
    const s = inPrefix ? prefix[i] : rest
    if (!S.isSchemaValue(s)) continue
    const y = walk(ctx, s, inPrefix ? at(ptr, prefixKw, i) : at(ptr, restKw), arr[i]!, [...path, i], undefined)
    if (y !== arr[i]) (out ??= arr.slice())[i] = y
  }
  return out ?? arr
}

/** Takes a branch's coercion only when exactly one branch accepts the value after its own coercion. */
const union = (
  ctx: Context,
  schema: JsonSchemaObject,
  ptr: string,
  keyword: "anyOf" | "oneOf",
  v: JsonValue.JsonValue,
  path: Path,
  g: Group
): JsonValue.JsonValue => {
  const branches = S.arrayKeyword(schema, keyword)
  if (branches === undefined) return v
  let chosen: { readonly value: JsonValue.JsonValue; readonly out: ReadonlyArray<Coercion> } | undefined
  for (let i = 0; i < branches.length; i++) {
    const b = branches[i]
    if (!S.isSchemaValue(b)) continue
    const bptr = at(ptr, keyword, i)
    const trial: Context = { ...ctx, out: [], trial: true }
    const required = new Set([...g.required, ...Schema.requiredOf(ctx.root, b)])
    const tv = walk(trial, b, bptr, v, path, { seen: g.seen, required, ptr: bptr })
    const ok = validAt(ctx, bptr, tv)
    if (ok === undefined) return v
    if (!ok) continue
    if (chosen !== undefined) return v
    chosen = { value: tv, out: trial.out }
  }
  if (chosen === undefined) return v
  ctx.out.push(...chosen.out)
  return chosen.value
}

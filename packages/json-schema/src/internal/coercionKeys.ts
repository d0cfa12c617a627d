/**
 * The object-key rules: strict-provider nulls, the `{"properties": {…}}` wrapper, and key spelling.
 *
 * @internal
 */
import * as JsonValue from "../JsonValue.js"
import { type Context, type Entry, note, type Path } from "./coercionContext.js"
import * as Schema from "./coercionSchema.js"
import * as S from "./coercionScalars.js"

/** Whether a key matches one of the `patternProperties`. */
export const matchesPattern = (patterns: JsonValue.JsonObject | undefined, key: string): boolean => {
  if (patterns === undefined) return false
  for (const p of Object.keys(patterns)) if (S.patternOf(p)?.test(key) === true) return true
  return false
}

/** Drops `null`s on optional, non-nullable declared keys (the strict-provider option). */
export const dropStrictNulls = (
  ctx: Context,
  props: JsonValue.JsonObject,
  required: ReadonlySet<string>,
  entries: ReadonlyArray<Entry>
): ReadonlyArray<Entry> => {
  const kept = entries.filter(([k, x, written]) => {
    const declared = S.own(props, k)
    if (x !== null || !S.isSchemaValue(declared) || required.has(k) || Schema.acceptsNull(ctx.root, declared)) {
      return true
    }
    note(ctx, written, "drop-strict-null", null, undefined)
    return false
  })
  return kept.length === entries.length ? entries : kept
}

/** `{"properties": {…}}` around the real arguments: lift its keys, the top-level ones winning. */
export const unwrap = (
  ctx: Context,
  props: JsonValue.JsonObject,
  patterns: JsonValue.JsonObject | undefined,
  entries: ReadonlyArray<Entry>,
  path: Path,
  isInvalid: () => boolean
): ReadonlyArray<Entry> => {
  const wrapper = entries.find(([k]) => k === "properties")
  if (wrapper === undefined || S.own(props, "properties") !== undefined || matchesPattern(patterns, "properties")) {
    return entries
  }
  const inner = wrapper[1]
  if (!JsonValue.isObject(inner) || !Object.keys(inner).some((k) => S.own(props, k) !== undefined)) return entries
  if (!isInvalid()) return entries
  const outer = new Set(entries.map(([k]) => k))
  const lifted: Array<Entry> = []
  for (const e of entries) {
    if (e !== wrapper) lifted.push(e)
    else {
      for (const k of Object.keys(inner)) if (!outer.has(k)) lifted.push([k, inner[k]!, [...path, "properties", k]])
    }
  }
  note(ctx, wrapper[2], "unwrap-properties", inner, undefined)
  return lifted
}

/** Keys that differ from one declared, absent key only by case or `_`/`-` spelling take its name. */
export const rename = (
  ctx: Context,
  props: JsonValue.JsonObject,
  patterns: JsonValue.JsonObject | undefined,
  entries: ReadonlyArray<Entry>,
  isInvalid: () => boolean
): ReadonlyArray<Entry> => {
  const present = new Set(entries.map(([k]) => k))
  const wanted = new Map<string, string>()
  const claims = new Map<string, number>()
  let shapes: Map<string, Array<string>> | undefined
  for (const [k] of entries) {
    if (S.own(props, k) !== undefined || matchesPattern(patterns, k)) continue
    shapes ??= shapesOf(props)
    const candidates = shapes.get(S.keyShape(k))
    if (candidates === undefined || candidates.length !== 1 || present.has(candidates[0]!)) continue
    wanted.set(k, candidates[0]!)
    claims.set(candidates[0]!, (claims.get(candidates[0]!) ?? 0) + 1)
  }
  for (const [k, d] of wanted) if (claims.get(d)! > 1) wanted.delete(k)
  if (wanted.size === 0 || !isInvalid()) return entries
  return entries.map((e) => {
    const d = wanted.get(e[0])
    if (d === undefined) return e
    note(ctx, e[2], "rename-key", e[0], d)
    return [d, e[1], e[2]] as const
  })
}

const shapesOf = (props: JsonValue.JsonObject): Map<string, Array<string>> => {
  const shapes = new Map<string, Array<string>>()
  for (const d of Object.keys(props)) {
    const s = S.keyShape(d)
    const list = shapes.get(s)
    if (list === undefined) shapes.set(s, [d])
    else list.push(d)
  }
  return shapes
}


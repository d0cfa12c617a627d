/**
 * Numbers: cloud bounds against local bounds (doubles compare exactly, as the validator compares them),
 * `multipleOf` with exact rational arithmetic, and the numeric formats of ajv-formats.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { Rules } from "@toolgate/json-schema/Validator"
import { numberFormats, universalFormats } from "./subschemaKeywords.js"
import type { Node, Outcome } from "./subschemaModel.js"
import { all, cloudAt, counter, kw, num, proven, unknown, where } from "./subschemaModel.js"
import type { Base } from "./subschemaTypes.js"

/** The cloud's numeric range: bounds with their exclusivity, and its `multipleOf` values. */
export interface Range {
  readonly lo: number | undefined
  readonly loEx: boolean
  readonly hi: number | undefined
  readonly hiEx: boolean
  readonly steps: ReadonlyArray<number>
  readonly formats: ReadonlyArray<string>
}

/** The range a cloud conjunction allows (integers only: bounds tightened to whole numbers). */
export const range = (nodes: ReadonlyArray<Node>, integersOnly: boolean): Range => {
  let lo: number | undefined, hi: number | undefined
  let loEx = false, hiEx = false
  const steps: Array<number> = []
  const formats: Array<string> = []
  const low = (v: number, ex: boolean) => {
    if (lo === undefined || v > lo || (v === lo && ex)) (lo = v), (loEx = ex)
  }
  const high = (v: number, ex: boolean) => {
    if (hi === undefined || v < hi || (v === hi && ex)) (hi = v), (hiEx = ex)
  }
  for (const n of nodes) {
    const min = num(kw(n, "minimum")), emin = num(kw(n, "exclusiveMinimum"))
    const max = num(kw(n, "maximum")), emax = num(kw(n, "exclusiveMaximum"))
    if (min !== undefined) low(min, false)
    if (emin !== undefined) low(emin, true)
    if (max !== undefined) high(max, false)
    if (emax !== undefined) high(emax, true)
    const m = num(kw(n, "multipleOf"))
    if (m !== undefined && m > 0) steps.push(m)
    const f = kw(n, "format")
    if (typeof f === "string") formats.push(f)
  }
  if (integersOnly) {
    if (lo !== undefined) (lo = loEx ? Math.floor(lo) + 1 : Math.ceil(lo)), (loEx = false)
    if (hi !== undefined) (hi = hiEx ? Math.ceil(hi) - 1 : Math.floor(hi)), (hiEx = false)
  }
  return { lo, loEx, hi, hiEx, steps, formats }
}

const within = (r: Range, lo: number, hi: number): boolean =>
  r.lo !== undefined && r.hi !== undefined && r.lo >= lo && r.hi <= hi

/** A few numbers below `x` and at `x` (witness candidates for a lower bound), snapped to the cloud's steps. */
const around = (r: Range, xs: ReadonlyArray<number>, integers: boolean): ReadonlyArray<JsonValue> => {
  const out: Array<number> = []
  for (const x of xs) {
    if (!Number.isFinite(x)) continue
    const v = integers ? Math.round(x) : x
    out.push(v)
    for (const s of r.steps) out.push(Math.floor(v / s) * s, Math.ceil(v / s) * s)
  }
  return out.filter(Number.isFinite).map((v) => (v === 0 ? 0 : v))
}

/** Numbers strictly between two bounds (the midpoint and next to each end), for witnesses that honour exclusivity. */
const between = (a: number | undefined, b: number | undefined): ReadonlyArray<number> => {
  if (a === undefined || b === undefined || !(a < b)) return []
  const eps = (Math.abs(a) + Math.abs(b) + 1) * 1e-9
  const mid = (a + b) / 2
  let short = mid
  for (let k = 1; k <= 17; k++) {
    const v = Number(mid.toPrecision(k))
    if (v > a && v < b) {
      short = v
      break
    }
  }
  return [short, a + eps, b - eps].filter((x) => x > a && x < b)
}

/** Checks the local numeric keywords against a cloud conjunction restricted to `base`. */
export const check = (nodes: ReadonlyArray<Node>, base: Base, local: Node): Outcome => {
  const ints = base === "integer"
  const r = range(nodes, ints)
  const at = (k: string) => ({ cloudPath: cloudAt(nodes), localPath: where(local, k) })
  const bound = (k: string, test: (v: number) => boolean, xs: (v: number) => ReadonlyArray<number>, say: (v: number) => string) => (): Outcome => {
    const raw = kw(local, k)
    if (raw === undefined) return proven
    const v = num(raw)
    if (v === undefined) return unknown(k, where(local, k))
    return test(v) ? proven : counter({ ...at(k), message: say(v) }, around(r, xs(v).filter((x) => (r.lo === undefined || x >= r.lo) && (r.hi === undefined || x <= r.hi)), ints))
  }
  const lo = r.lo, hi = r.hi
  return all([
    bound("minimum", (m) => lo !== undefined && lo >= m, (m) => [lo ?? m - 1, m - 1, m - 0.5, -1e9, ...between(lo, m)], (m) =>
      `the local schema requires a minimum of ${m}; the cloud schema allows ${lo === undefined ? "any lower value" : `values from ${lo}`}`),
    bound("exclusiveMinimum", (m) => lo !== undefined && (lo > m || (lo === m && r.loEx)), (m) => [lo ?? m, m, m - 1, -1e9, ...between(lo, m)], (m) =>
      `the local schema requires values above ${m}; the cloud schema allows ${lo === undefined ? "lower values" : `values from ${lo}`}`),
    bound("maximum", (m) => hi !== undefined && hi <= m, (m) => [hi ?? m + 1, m + 1, m + 0.5, 1e9, ...between(m, hi)], (m) =>
      `the local schema allows at most ${m}; the cloud schema allows ${hi === undefined ? "any higher value" : `values up to ${hi}`}`),
    bound("exclusiveMaximum", (m) => hi !== undefined && (hi < m || (hi === m && r.hiEx)), (m) => [hi ?? m, m, m + 1, 1e9, ...between(m, hi)], (m) =>
      `the local schema requires values below ${m}; the cloud schema allows ${hi === undefined ? "higher values" : `values up to ${hi}`}`),
    () => multipleOf(nodes, r, base, local),
    () => numericFormat(nodes, r, base, local)
  ])
}

/**
 * The validator's `multipleOf` is exact on the decimals JSON writes (see `ajvKeywords`), so a cloud step that
 * is itself a multiple of the local divisor proves it, and so does 1 for a cloud of integers (`multipleOf:
 * 0.5` holds for every integer).
 */
const multipleOf = (nodes: ReadonlyArray<Node>, r: Range, base: Base, local: Node): Outcome => {
  const raw = kw(local, "multipleOf")
  if (raw === undefined) return proven
  const m = num(raw)
  if (m === undefined || m <= 0) return unknown("multipleOf", where(local, "multipleOf"))
  if (r.steps.some((s) => Rules.isMultipleOf(s, m)) || (base === "integer" && Rules.isMultipleOf(1, m))) return proven
  const start = r.lo ?? (r.hi !== undefined ? Math.min(r.hi, 0) : 0)
  const cands: Array<JsonValue> = []
  if (base === "fraction") cands.push(start + 0.5, m / 2, 0.5, start + m / 2)
  for (const s of r.steps) for (let j = 1; j <= 3; j++) cands.push(s * j, Math.ceil(start / s) * s + s * j)
  for (let j = 0; j < 3; j++) cands.push(Math.ceil(start) + j)
  if (r.hi !== undefined) for (let j = 0; j < 3; j++) cands.push(Math.floor(r.hi) - j)
  return counter({
    cloudPath: cloudAt(nodes),
    localPath: where(local, "multipleOf"),
    message: `the local schema requires a multiple of ${m}; the cloud schema does not guarantee it`
  }, cands.filter((x) => typeof x === "number" && Number.isFinite(x) && (base === "integer") === Number.isInteger(x)))
}

const numericFormat = (nodes: ReadonlyArray<Node>, r: Range, base: Base, local: Node): Outcome => {
  const f = kw(local, "format")
  if (typeof f !== "string" || !numberFormats.has(f) || universalFormats.has(f) || r.formats.includes(f)) return proven
  // as ajv-formats checks them: int64 is any whole number, int32 one within [-2^31, 2^31 - 1]
  if (base === "integer" && (f === "int64" || r.formats.includes("int32") || within(r, -(2 ** 31), 2 ** 31 - 1))) return proven
  return counter({
    cloudPath: cloudAt(nodes),
    localPath: where(local, "format"),
    message: `the local schema requires format \`${f}\`; the cloud schema allows numbers outside it`
  }, [0.5, r.lo ?? -1, 2 ** 31, 2 ** 64, -(2 ** 64)].map((x) => (base === "integer" ? Math.round(x) : x)))
}

/** A whole number the cloud range probably allows (a witness candidate). */
export const pickInteger = (nodes: ReadonlyArray<Node>): number => {
  const r = range(nodes, true)
  let v = r.lo !== undefined ? Math.max(r.lo, Math.min(0, r.hi ?? 0)) : Math.min(1, r.hi ?? 1)
  const step = r.steps.find((s) => Number.isInteger(s))
  if (step !== undefined) v = Math.ceil(v / step) * step
  return v === 0 ? 0 : v
}

/** A fractional number the cloud range probably allows (a witness candidate). */
export const pickFraction = (nodes: ReadonlyArray<Node>): number => {
  const r = range(nodes, false)
  if (r.lo !== undefined && r.hi !== undefined) return r.lo + (r.hi - r.lo) / 2 === Math.round(r.lo + (r.hi - r.lo) / 2) ? r.lo + (r.hi - r.lo) / 4 : r.lo + (r.hi - r.lo) / 2
  if (r.lo !== undefined) return Math.floor(r.lo) + 0.5
  if (r.hi !== undefined) return Math.ceil(r.hi) - 0.5
  return 0.5
}

const intervalKeys: ReadonlySet<string> = new Set(["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])

/**
 * Whether the union of local numeric branches (each only `type` and bounds) covers the cloud range of
 * `base`: the branches' intervals are merged (whole-number intervals join when adjacent) and the cloud
 * interval must lie inside one merged piece. A branch with any other constraint is not used.
 */
export const coveredByUnion = (nodes: ReadonlyArray<Node>, base: Base, branches: ReadonlyArray<Node>, inert: ReadonlySet<string>): boolean => {
  const ints = base === "integer"
  const r = range(nodes, ints)
  if (r.steps.length > 0 && !ints) return false
  const pieces: Array<{ lo: number; loEx: boolean; hi: number; hiEx: boolean }> = []
  for (const b of branches) {
    if (typeof b.schema !== "object") continue
    if (Object.keys(b.schema).some((k) => !intervalKeys.has(k) && !inert.has(k))) continue
    const t = kw(b, "type")
    const allows = t === undefined || t === "number" || (t === "integer" && ints) || (Array.isArray(t) && (t.includes("number") || (ints && t.includes("integer"))))
    if (!allows) continue
    const br = range([b], ints)
    pieces.push({ lo: br.lo ?? -Infinity, loEx: br.loEx, hi: br.hi ?? Infinity, hiEx: br.hiEx })
  }
  pieces.sort((a, b) => a.lo - b.lo || Number(a.loEx) - Number(b.loEx))
  const lo = r.lo ?? -Infinity, hi = r.hi ?? Infinity
  let reach = -Infinity, reachEx = true, started = false
  for (const p of pieces) {
    const startsBefore = p.lo < lo || (p.lo === lo && (!p.loEx || r.loEx))
    if (!started) {
      if (!startsBefore) return false
      started = true
      reach = p.hi, reachEx = p.hiEx
    } else {
      const joins = ints ? p.lo <= reach + 1 : p.lo < reach || (p.lo === reach && !(p.loEx && reachEx))
      if (!joins) break
      if (p.hi > reach || (p.hi === reach && !p.hiEx)) (reach = p.hi), (reachEx = p.hiEx)
    }
    if (reach > hi || (reach === hi && (!reachEx || r.hiEx))) return true
  }
  return false
}

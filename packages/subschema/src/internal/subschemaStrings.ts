/**
 * Strings: lengths (code points, as the validator counts them), `pattern` (inclusion decided on automata,
 * with the cloud's lengths; witnesses drawn from the difference; nothing is ever sampled to claim
 * inclusion) and `format` as ajv-formats enforces it.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { numberFormats, stringFormats, universalFormats } from "./subschemaKeywords.js"
import type { Node, Outcome } from "./subschemaModel.js"
import { all, cloudAt, counter, kw, num, proven, regex, unknown, where } from "./subschemaModel.js"
import * as Automata from "./patternAutomata.js"
import { matching } from "./subschemaPatterns.js"

/** What a cloud conjunction says about strings. */
export interface Shape {
  readonly min: number
  readonly max: number
  readonly patterns: ReadonlyArray<string>
  readonly formats: ReadonlyArray<string>
}

/** The string shape of a cloud conjunction. */
export const shape = (nodes: ReadonlyArray<Node>): Shape => {
  let min = 0, max = Infinity
  const patterns: Array<string> = [], formats: Array<string> = []
  for (const n of nodes) {
    const a = num(kw(n, "minLength")), b = num(kw(n, "maxLength"))
    if (a !== undefined) min = Math.max(min, a)
    if (b !== undefined) max = Math.min(max, b)
    const p = kw(n, "pattern"), f = kw(n, "format")
    if (typeof p === "string") patterns.push(p)
    if (typeof f === "string" && stringFormats.has(f)) formats.push(f)
  }
  return { min, max, patterns, formats }
}

/** Patterns every string matches (the validator tests with `RegExp.prototype.test`, unanchored). */
const universal: ReadonlySet<string> = new Set(["", ".*", "^.*", "^", "[\\s\\S]*", "^[\\s\\S]*$", "^[\\s\\S]*", "(.*)", "^(.*)"])

/** Lookaround, backreferences and named backreferences: never modelled on the local side. */
const irregular = /\(\?<?[=!]|\\[1-9]|\\k</

/** Sample strings per format (witness candidates). */
const formatSamples: Readonly<Record<string, string>> = {
  date: "2024-01-31", time: "12:00:00Z", "date-time": "2024-01-31T12:00:00Z", "iso-time": "12:00:00",
  "iso-date-time": "2024-01-31T12:00:00", duration: "P1D", uri: "https://example.com/a", "uri-reference": "a",
  "uri-template": "https://example.com/{id}", url: "https://example.com/a", email: "user@example.com",
  hostname: "example.com", ipv4: "192.0.2.1", ipv6: "2001:db8::1", regex: "^a", uuid: "123e4567-e89b-12d3-a456-426614174000",
  "json-pointer": "/a", "json-pointer-uri-fragment": "#/a", "relative-json-pointer": "0/a", byte: "YQ==",
  password: "x", binary: "x"
}

const plain = ["x", "", "a", "0", "ab", "abc", "A", "1", "-", "x y", "_", "a1", "~", "(", "%", "example", "\n"]

/** Strings the cloud shape probably allows, best first (witness candidates; verified later). */
export const candidates = (s: Shape): ReadonlyArray<string> => {
  const generated = s.patterns.flatMap((p) => {
    const m = matching(p, s.min)
    return m === undefined ? [] : [m]
  })
  if (s.patterns.length > 0) generated.push(...Automata.strings(s.patterns, [], s.min, s.max, 2))
  const base = s.formats.length > 0 ? [formatSamples[s.formats[0]!] ?? "x", ...generated] : [...generated, ...plain]
  const out: Array<string> = []
  for (const b of base) {
    const len = [...b].length
    const v = len < s.min ? b + "x".repeat(s.min - len) : b
    if ([...v].length <= s.max) out.push(v)
  }
  const regs = s.patterns.map(regex)
  return out.filter((v) => regs.every((r) => r === undefined || r.test(v)))
}

/** Up to `count` distinct strings the cloud shape allows by its lengths and patterns (witness candidates). */
export const variety = (nodes: ReadonlyArray<Node>, count: number): ReadonlyArray<string> => {
  const s = shape(nodes)
  const drawn = s.patterns.length > 0 ? Automata.strings(s.patterns, [], s.min, s.max, count) : []
  return [...new Set([...drawn, ...candidates(s)])].slice(0, count)
}

/** A string the cloud shape probably allows. */
export const pick = (nodes: ReadonlyArray<Node>): string | undefined => candidates(shape(nodes))[0]

/** Checks the local string keywords against a cloud conjunction (its string values). */
export const check = (nodes: ReadonlyArray<Node>, local: Node): Outcome => {
  const s = shape(nodes)
  const cloudPath = cloudAt(nodes)
  const pool = candidates(s)
  const len = (k: string, ok: (v: number) => boolean, say: (v: number) => string, ws: (v: number) => ReadonlyArray<JsonValue>) => (): Outcome => {
    const raw = kw(local, k)
    if (raw === undefined) return proven
    const v = num(raw)
    if (v === undefined || v < 0) return unknown(k, where(local, k))
    return ok(v) ? proven : counter({ cloudPath, localPath: where(local, k), message: say(v) }, ws(v))
  }
  return all([
    len("minLength", (v) => s.min >= v, (v) => `the local schema requires at least ${v} characters; the cloud schema allows ${s.min}`,
      () => [...pool.filter((x) => [...x].length === s.min), "x".repeat(s.min)]),
    len("maxLength", (v) => s.max <= v, (v) => `the local schema allows at most ${v} characters; the cloud schema allows ${s.max === Infinity ? "longer strings" : s.max}`,
      (v) => pool.map((x) => x + "x".repeat(Math.max(0, v + 1 - [...x].length)))),
    () => pattern(s, pool, cloudPath, local),
    () => format(s, pool, cloudPath, local)
  ])
}

const pattern = (s: Shape, pool: ReadonlyArray<string>, cloudPath: string, local: Node): Outcome => {
  const p = kw(local, "pattern")
  if (p === undefined) return proven
  const at = where(local, "pattern")
  if (typeof p !== "string") return unknown("pattern", at)
  const r = regex(p)
  if (r === undefined) return unknown("pattern (not a valid regular expression)", at)
  if (universal.has(p) || s.patterns.includes(p)) return proven
  const decided = Automata.includes(s.patterns, p, s.min, s.max)
  if (decided._tag === "Included") return proven
  const found = decided._tag === "Excluded" ? decided.witnesses : []
  if (found.length === 0 && irregular.test(p)) return unknown("pattern with lookaround or backreference (local)", at)
  const ws = [...found, ...pool.filter((v) => !r.test(v))]
  if (ws.length === 0) return unknown(decided._tag === "Unsupported" ? decided.reason : "pattern (no string to show)", at)
  return counter({ cloudPath, localPath: at, message: `the local schema requires pattern ${JSON.stringify(p)}; the cloud schema allows ${JSON.stringify(ws[0])}` }, ws)
}

const format = (s: Shape, pool: ReadonlyArray<string>, cloudPath: string, local: Node): Outcome => {
  const f = kw(local, "format")
  if (f === undefined) return proven
  const at = where(local, "format")
  if (typeof f !== "string") return unknown("format", at)
  // the validator ignores formats ajv-formats does not define, and numeric formats never see strings
  if (!stringFormats.has(f) || numberFormats.has(f) || universalFormats.has(f) || s.formats.includes(f)) return proven
  return counter(
    { cloudPath, localPath: at, message: `the local schema requires format \`${f}\`; the cloud schema does not guarantee it` },
    [...pool, "x", "", "(", "x".repeat(Math.max(1, s.min))]
  )
}

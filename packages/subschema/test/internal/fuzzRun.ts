/**
 * The fuzz suite's runner: seeded pairs through `Subschema.check`; every `Subtype` is tested against values
 * the cloud validator accepts (sampled from the cloud schema), every `Drift` witness is re-checked by a
 * fresh validator instance (not the prover's cache). A failure is minimized (keywords, branches and values
 * dropped while it still fails) so it can be read and pinned as a regression.
 */
import { Either } from "effect"
import * as JsonSchemas from "@toolgate/json-schema/JsonSchema"
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import type { Rng } from "@toolgate/test-support/fuzzGenerate"
import { mutate, rng, rootSchema } from "@toolgate/test-support/fuzzGenerate"
import { tools as corpusTools } from "@toolgate/test-support/corpus"
import { releasePair } from "./fuzzReleases.js"
import { anyValue, sample } from "./fuzzSample.js"

/** Every corpus tool's parameters after `upgrade`, for mutation. */
export const tools = (): ReadonlyArray<JsonSchema> => corpusTools().map((t) => JsonSchemas.upgrade(t.parameters).schema)

/** A pair the prover got wrong: its verdict, and the value both validators split on (for a `Subtype`). */
export interface Failure {
  readonly kind: "Subtype" | "Drift"
  readonly cloud: JsonSchema
  readonly local: JsonSchema
  readonly value: JsonValue
}

/** What a run saw: verdict counts, Unsupported constructs, time per `check` (ms) and failures. */
export interface Report {
  pairs: number
  readonly verdicts: Record<"Subtype" | "Drift" | "Unsupported", number>
  readonly constructs: Map<string, number>
  readonly times: Array<number>
  readonly checkedValues: number
  readonly failures: Array<Failure>
}

/** Options of `run`. */
export interface Options {
  readonly seed: number
  readonly count: number
  /** Real tool schemas (upgraded) to mutate; none: only generated schemas. */
  readonly tools?: ReadonlyArray<JsonSchema>
  /** Where pairs come from: the mixed generator (default), or two releases of one real tool (`fuzzReleases`). */
  readonly source?: "mixed" | "releases"
  /** Candidate values sampled per `Subtype` (default 24). */
  readonly samples?: number
  /**
   * The prover under test (default: this package's source). The bench passes the built package's, so the
   * batch it times is the code an app installs, like every other bench line.
   */
  readonly check?: Check
}

/** A prover: `Subschema.check`, from the source or from a build. */
export type Check = (cloud: JsonSchema, local: JsonSchema) => Subschema.Verdict

// The judge's own instance. Its cache is small: what it answers is the same at any size, and 4,096 compiled
// validators (~280 MB on fuzz schemas) would slow every young-generation collection in the checks it judges.
const fresh = Either.getOrThrow(Validator.make({ cacheSize: 256 }))

const accepts = (s: JsonSchema, v: JsonValue): boolean | undefined => {
  const c = fresh.compile(s)
  return Either.isLeft(c) ? undefined : c.right.validate(v).length === 0
}

/** The pair number `i` of a seed: random, mutated (either way), twice mutated, a corpus tool, or a dialect flip. */
export const pair = (r: Rng, tools: ReadonlyArray<JsonSchema>): readonly [JsonSchema, JsonSchema] => {
  const k = r.int(20)
  const flip = <A>(a: A, b: A): readonly [A, A] => (r.chance(0.5) ? [a, b] : [b, a])
  if (k < 5) return [rootSchema(r), rootSchema(r)]
  if (k < 15) { const s = rootSchema(r); return flip(s, k < 12 ? mutate(r, s) : mutate(r, mutate(r, s))) }
  if (k < 19 && tools.length > 0) { const t = r.pick(tools); return flip(t, mutate(r, t)) }
  const s = rootSchema(r, false)
  return flip(s, typeof s === "object" ? { ...s, $schema: "http://json-schema.org/draft-07/schema#" } : s)
}

/** The failure of one pair, or undefined; `seen` counts the cloud values tested. */
const judge = (r: Rng, cloud: JsonSchema, local: JsonSchema, v: Subschema.Verdict, samples: number, seen: { n: number }): Failure | undefined => {
  if (v._tag === "Drift") {
    return accepts(cloud, v.witness) === true && accepts(local, v.witness) === false ? undefined : { kind: "Drift", cloud, local, value: v.witness }
  }
  if (v._tag !== "Subtype" || Either.isLeft(fresh.compile(cloud))) return undefined
  if (Either.isLeft(fresh.compile(local))) return { kind: "Subtype", cloud, local, value: null }
  for (let i = 0; i < samples; i++) {
    const x = i % 4 === 3 ? anyValue(r) : sample(r, cloud, cloud)
    if (accepts(cloud, x) !== true) continue
    seen.n++
    if (accepts(local, x) === false) return { kind: "Subtype", cloud, local, value: x }
  }
  return undefined
}

/** Runs `count` pairs of `seed`. */
export const run = (options: Options): Report => {
  const r = rng(options.seed)
  const report: Report = { pairs: 0, verdicts: { Subtype: 0, Drift: 0, Unsupported: 0 }, constructs: new Map(), times: [], checkedValues: 0, failures: [] }
  const seen = { n: 0 }
  const check = options.check ?? Subschema.check
  for (let i = 0; i < options.count; i++) {
    const [cloud, local] = options.source === "releases" && (options.tools?.length ?? 0) > 0 ? releasePair(r, options.tools!) : pair(r, options.tools ?? [])
    const start = performance.now()
    const v = check(cloud, local)
    report.times.push(performance.now() - start)
    report.pairs++
    report.verdicts[v._tag]++
    if (v._tag === "Unsupported") {
      const c = v.construct.replace(/ for: .*| \(.*|: .*/, "")
      report.constructs.set(c, (report.constructs.get(c) ?? 0) + 1)
    }
    const f = judge(r, cloud, local, v, options.samples ?? 24, seen)
    if (f !== undefined) report.failures.push(f)
  }
  return { ...report, checkedValues: seen.n }
}

/** Whether a (smaller) pair still fails the way `f` did under the prover `check`. */
const stillFails = (check: Check, f: Failure, cloud: JsonSchema, local: JsonSchema, value: JsonValue): boolean => {
  const v = check(cloud, local)
  if (f.kind === "Drift") return v._tag === "Drift" && !(accepts(cloud, v.witness) === true && accepts(local, v.witness) === false)
  if (v._tag !== "Subtype") return false
  if (Either.isLeft(fresh.compile(local))) return Either.isRight(fresh.compile(cloud))
  return accepts(cloud, value) === true && accepts(local, value) === false
}

/** Smaller variants of a JSON value: a key or element dropped, a child shrunk, a scalar simplified. */
function* shrinks(v: JsonValue): Generator<JsonValue> {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield [...v.slice(0, i), ...v.slice(i + 1)]
    for (let i = 0; i < v.length; i++) for (const s of shrinks(v[i]!)) yield [...v.slice(0, i), s, ...v.slice(i + 1)]
  } else if (typeof v === "object" && v !== null) {
    const o = v as { readonly [k: string]: JsonValue }
    const keys = Object.keys(o)
    const rebuild = (k: string, x: JsonValue | undefined): JsonValue => {
      const out: Record<string, JsonValue> = {}
      for (const j of keys) {
        const y = j === k ? x : o[j]!
        if (y !== undefined) Object.defineProperty(out, j, { value: y, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
    for (const k of keys) yield rebuild(k, undefined)
    for (const k of keys) {
      if (typeof o[k] === "object" && o[k] !== null) yield rebuild(k, true)
      for (const s of shrinks(o[k]!)) yield rebuild(k, s)
    }
  } else if (typeof v === "number" && v !== 0) yield 0
  else if (typeof v === "string" && v !== "") yield ""
}

/** A failure made as small as it will go while it still fails under `check`, the prover it failed (at most `limit` tries). */
export const minimize = (f: Failure, limit = 3000, check: Check = Subschema.check): Failure => {
  let cur = f
  let tries = 0
  let progress = true
  while (progress && tries < limit) {
    progress = false
    const parts = [
      (x: JsonValue): Failure => ({ ...cur, cloud: x as JsonSchema }),
      (x: JsonValue): Failure => ({ ...cur, local: x as JsonSchema }),
      (x: JsonValue): Failure => ({ ...cur, value: x })
    ] as const
    const sources: ReadonlyArray<JsonValue> = [cur.cloud, cur.local, cur.value]
    for (let p = 0; p < (f.kind === "Subtype" ? 3 : 2) && !progress; p++) {
      for (const s of shrinks(sources[p]!)) {
        if (++tries > limit) break
        const next = parts[p]!(s)
        if ((p < 2 && typeof s !== "boolean" && (typeof s !== "object" || s === null || Array.isArray(s))) || !safely(() => stillFails(check, f, next.cloud, next.local, next.value))) continue
        cur = next
        progress = true
        break
      }
    }
  }
  return cur
}

const safely = (f: () => boolean): boolean => {
  try {
    return f()
  } catch {
    return false
  }
}

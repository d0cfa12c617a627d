/**
 * The prover's cost: time per pair over the containment suite and over corpus self / narrowed / widened
 * pairs (median and p99, each pair proved once, cold), and the drift gate's cost for a 50-tool profile,
 * cold (new content: validators compiled for witnesses included) and warm (verdicts cached). The
 * targets: containment 2020-12 decided right (judged against the validator) ≥ 98.5%, and a fuzz batch
 * with Unsupported ≤ 5%, 0 unsound, median ≤ 0.5 ms and p99 ≤ 10 ms per pair.
 */
import { batch } from "./fuzz.js"
import { JsonSchema, Validator } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import { Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { collectGarbage } from "./harness.js"

const corpus = resolve(import.meta.dirname, "../corpus")

type Obj = { [key: string]: JsonSchema.JsonSchema | ReadonlyArray<unknown> | unknown }
type Pair = readonly [cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema]

const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".json") ? [join(dir, e.name)] : []
  )

/** Every directional question of both containment folders. */
const containment = (): Array<Pair> =>
  ["draft2020-12", "draft7"].flatMap((folder) =>
    walk(join(corpus, "containment", folder)).flatMap((file) =>
      (JSON.parse(readFileSync(file, "utf8")) as Array<{ schema1: JsonSchema.JsonSchema; schema2: JsonSchema.JsonSchema; tests: Record<string, boolean> }>)
        .flatMap((q): Array<Pair> => [
          [q.schema1, q.schema2],
          ...("s2SubsetEqOfs1" in q.tests ? [[q.schema2, q.schema1] as const] : [])
        ])
    )
  )

const validates = (s: JsonSchema.JsonSchema, v: unknown): boolean => {
  const c = Validator.compile(s)
  return Either.isRight(c) && c.right.validate(v).length === 0
}

/** The values of a cloud side that is a `const` or an `anyOf` of `const`s (as the containment test reads them). */
const finiteValues = (s: JsonSchema.JsonSchema): ReadonlyArray<unknown> | undefined => {
  if (typeof s !== "object") return undefined
  if ("const" in s) return [s["const"]]
  const any = s["anyOf"]
  return Array.isArray(any) && any.every((b) => typeof b === "object" && b !== null && "const" in b) ? any.map((b) => (b as { const: unknown }).const) : undefined
}

/**
 * The share of 2020-12 containment questions answered right or with a validator deviation shown concretely
 * (a verified `Drift` witness, or a finite cloud every value of which the local validator accepts).
 */
const agreement = (): number => {
  let total = 0, agree = 0
  for (const file of walk(join(corpus, "containment", "draft2020-12"))) {
    for (const q of JSON.parse(readFileSync(file, "utf8")) as Array<{ schema1: JsonSchema.JsonSchema; schema2: JsonSchema.JsonSchema; tests: Record<string, boolean> }>) {
      const asked: Array<readonly [JsonSchema.JsonSchema, JsonSchema.JsonSchema, boolean]> = [[q.schema1, q.schema2, q.tests["s1SubsetEqOfs2"] === true]]
      if ("s2SubsetEqOfs1" in q.tests) asked.push([q.schema2, q.schema1, q.tests["s2SubsetEqOfs1"] === true])
      for (const [cloud, local, truth] of asked) {
        total++
        const v = Subschema.check(cloud, local)
        if (v._tag === "Unsupported") continue
        if ((v._tag === "Subtype") === truth || (v._tag === "Drift" && validates(cloud, v.witness) && !validates(local, v.witness))) agree++
        else if (v._tag === "Subtype" && finiteValues(cloud)?.every((x) => validates(local, x)) === true) agree++
      }
    }
  }
  return agree / total
}

const copy = <A>(x: A): A => JSON.parse(JSON.stringify(x)) as A

/** Every corpus tool's upgraded object schema: against a copy of itself, a narrowed copy and two widened ones. */
const corpusPairs = (): Array<Pair> => {
  const pairs: Array<Pair> = []
  for (const line of readFileSync(join(corpus, "tools.jsonl"), "utf8").split("\n")) {
    if (line.trim() === "") continue
    const local = JsonSchema.upgrade((JSON.parse(line) as { parameters: unknown }).parameters).schema
    if (typeof local !== "object" || typeof local["properties"] !== "object") continue
    const names = Object.keys(local["properties"] as Obj)
    const required = Array.isArray(local["required"]) ? local["required"] as Array<string> : []
    pairs.push([copy(local), local])
    pairs.push([{ ...copy(local), required: names, additionalProperties: false }, local])
    if (required.length > 0) pairs.push([{ ...copy(local), required: required.slice(1) }, local])
    pairs.push([{ ...copy(local), properties: { ...copy(local["properties"] as Obj), extra: { type: "string" } } }, { ...local, additionalProperties: false }])
  }
  return pairs
}

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

/**
 * A full collection, run before each timed part: so that no part pays, in a few of its pairs, for collecting
 * what the part before it left (the p99 is the tenth-slowest of 1,000 pairs: a handful of pauses moves it).
 */
const collect: () => void = collectGarbage

/**
 * Each pair proved once (the first call: nothing cached for it), in ns. The pairs are made here and dropped on
 * return (the corpus pairs alone are ~250 MB; a live heap that size makes every young-generation collection in
 * the parts after it 2–3× slower).
 */
const perPair = (pairsOf: () => ReadonlyArray<Pair>): Array<number> => {
  const pairs = pairsOf()
  collect()
  return pairs.map(([cloud, local]) => {
    const start = performance.now()
    Subschema.check(cloud, local)
    return (performance.now() - start) * 1e6
  })
}

/** A 50-tool profile made new by a nonce in every description, so no verdict or validator is cached. */
const profile = (pairs: ReadonlyArray<Pair>, nonce: number): Array<Pair> =>
  pairs.slice(0, 50).map(([cloud, local]) => [
    { ...(cloud as Obj), description: `profile ${nonce}` } as JsonSchema.JsonSchema,
    { ...(local as Obj), description: `profile ${nonce}` } as JsonSchema.JsonSchema
  ])

const gate = (tools: ReadonlyArray<Pair>): number => {
  const start = performance.now()
  for (const [cloud, local] of tools) Subschema.check(cloud, local)
  return (performance.now() - start) * 1e6
}

const line = (name: string, ns: number, target: number): boolean => {
  const ok = ns <= target
  console.log(`  ${ok ? "✔" : "✘"} ${name.padEnd(44)} ${(ns / 1e6).toFixed(3).padStart(8)} ms  (target ≤ ${target / 1e6} ms)`)
  return ok
}

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async () => {
  console.log("\nSubschema.check: per pair, each proved once")
  const results = []
  let met = true
  for (const [name, pairsOf] of Object.entries({ "containment suite": containment, "corpus self/narrowed/widened": corpusPairs })) {
    const times = perPair(pairsOf)
    const median = quantile(times, 0.5)
    const p99 = quantile(times, 0.99)
    console.log(`  ${name}: ${times.length} pairs`)
    met = line(`${name}: median`, median, 0.5e6) && met
    met = line(`${name}: p99`, p99, 10e6) && met
    console.log(`    max ${(Math.max(...times) / 1e6).toFixed(1)} ms`)
    results.push({ suite: "Subschema", name: `${name} median`, nsPerOp: median, baseline: "absolute", ratio: median / 0.5e6 })
    results.push({ suite: "Subschema", name: `${name} p99`, nsPerOp: p99, baseline: "absolute", ratio: p99 / 10e6 })
  }
  const agreed = agreement()
  const agreeOk = agreed >= 0.985
  console.log(`  ${agreeOk ? "✔" : "✘"} ${"containment 2020-12 decided right".padEnd(44)} ${(100 * agreed).toFixed(2).padStart(8)} %   (target ≥ 98.5 %)`)
  met = agreeOk && met
  results.push({ suite: "Subschema", name: "containment 2020-12 decided right (share)", nsPerOp: agreed, baseline: "absolute", ratio: 0.985 / agreed })
  collect()
  const fuzz = batch(1, 1_000, 8)
  met = line("fuzz batch (seed 1, 1,000 pairs): median", fuzz.median * 1e6, 0.5e6) && met
  met = line("fuzz batch (seed 1, 1,000 pairs): p99", fuzz.p99 * 1e6, 10e6) && met
  const fuzzOk = fuzz.unsupported <= 0.05 && fuzz.failures.length === 0
  console.log(`  ${fuzzOk ? "✔" : "✘"} ${"fuzz batch: Unsupported / unsound".padEnd(44)} ${(100 * fuzz.unsupported).toFixed(1).padStart(8)} % / ${fuzz.failures.length}  (target ≤ 5 % / 0)`)
  met = fuzzOk && met
  results.push({ suite: "Subschema", name: "fuzz batch median", nsPerOp: fuzz.median * 1e6, baseline: "absolute", ratio: fuzz.median / 0.5 })
  results.push({ suite: "Subschema", name: "fuzz batch p99", nsPerOp: fuzz.p99 * 1e6, baseline: "absolute", ratio: fuzz.p99 / 10 })
  results.push({ suite: "Subschema", name: "fuzz batch Unsupported (share)", nsPerOp: fuzz.unsupported, baseline: "absolute", ratio: fuzz.unsupported / 0.05 })
  // The drift gate of one session: 50 corpus tools against narrowed cloud copies (the everyday, proven case).
  const tools = corpusPairs().filter((_, i) => i % 4 === 1)
  const colds: Array<number> = []
  const warms: Array<number> = []
  for (let round = 0; round < 5; round++) {
    const fresh = profile(tools.slice(round * 50), Date.now() + round)
    colds.push(gate(fresh))
    warms.push(gate(fresh))
  }
  const cold = quantile(colds, 0.5)
  const warm = quantile(warms, 0.5)
  met = line("50-tool profile, cold (median of 5)", cold, 50e6) && met
  met = line("50-tool profile, warm (median of 5)", warm, 1e6) && met
  results.push({ suite: "Subschema", name: "50-tool profile cold", nsPerOp: cold, baseline: "absolute", ratio: cold / 50e6 })
  results.push({ suite: "Subschema", name: "50-tool profile warm", nsPerOp: warm, baseline: "absolute", ratio: warm / 1e6 })
  return { results, met }
}

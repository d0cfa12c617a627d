/**
 * The provider dialects' cost: each `Normalize` target over every corpus tool (after `JsonSchema.upgrade`),
 * timed tool by tool. The figure is the median over tools of each tool's median time across passes; the
 * target is absolute (≤ 20 µs per tool per target), with a `structuredClone` of the same schema as the
 * baseline for context (a transform that copies the schema once costs about that much).
 */
import { JsonSchema, Normalize, RefAware } from "@toolgate/json-schema"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { do_not_optimize } from "mitata"
import { median, report } from "./harness.js"

const corpus = resolve(import.meta.dirname, "../corpus/tools.jsonl")

/** Every corpus tool's upgraded schema. */
const load = (): ReadonlyArray<JsonSchema.JsonSchema> =>
  readFileSync(corpus, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JsonSchema.upgrade((JSON.parse(line) as { parameters: unknown }).parameters).schema)

const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}

const BASELINE = "structuredClone (baseline)"

/** One candidate: a name and the transform applied to one schema. */
interface Transform {
  readonly name: string
  readonly run: (schema: JsonSchema.JsonSchema) => unknown
}

const transforms: ReadonlyArray<Transform> = [
  { name: BASELINE, run: (s) => structuredClone(s) },
  { name: "Normalize.openAiStrict", run: (s) => Normalize.openAiStrict(s) },
  { name: "Normalize.google", run: (s) => Normalize.google(s) },
  { name: "Normalize.cca", run: (s) => Normalize.cca(s) },
  { name: "Normalize.mcp", run: (s) => Normalize.mcp(s) },
  { name: "RefAware.widen", run: (s) => RefAware.widen(s) }
]

/**
 * Times every transform on every schema, `passes` times, the transforms interleaved within each pass so
 * machine noise falls on all alike; returns each transform's per-tool medians (ns).
 */
const perTool = (schemas: ReadonlyArray<JsonSchema.JsonSchema>, passes: number): Map<string, Array<number>> => {
  const samples = new Map(transforms.map((t) => [t.name, schemas.map((): Array<number> => [])]))
  for (const t of transforms) for (const s of schemas) do_not_optimize(t.run(s)) // warm-up (JIT, lazy compiles)
  for (let pass = 0; pass < passes; pass++) {
    for (const t of transforms) {
      const rows = samples.get(t.name)!
      for (let i = 0; i < schemas.length; i++) {
        const start = performance.now()
        do_not_optimize(t.run(schemas[i]!))
        rows[i]!.push((performance.now() - start) * 1e6)
      }
    }
  }
  return new Map([...samples].map(([name, rows]) => [name, rows.map(median)]))
}

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async () => {
  const schemas = load()
  console.log(`normalize: ${schemas.length} corpus tools (upgraded), median per tool over 7 passes`)
  const times = perTool(schemas, 7)
  const nsPerOp = new Map([...times].map(([name, xs]) => [name, median(xs)]))
  for (const [name, xs] of times) {
    console.log(`  ${name.padEnd(30)} median ${(median(xs) / 1000).toFixed(2)} µs, p90 ${(percentile(xs, 0.9) / 1000).toFixed(2)} µs, max ${(Math.max(...xs) / 1000).toFixed(0)} µs`)
  }
  const targets = transforms
    .filter((t) => t.name.startsWith("Normalize."))
    .map((t) => ({ name: `${t.name} median per tool`, candidate: t.name, baseline: BASELINE, maxNs: 20_000 }))
  return report("Normalize: median time per tool per target (ns)", nsPerOp, BASELINE, targets)
}

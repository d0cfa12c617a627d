/**
 * `npx tsx --conditions=@toolgate/source bench/fuzz.ts --seed 1 --count 10000`: the prover's fuzz suite
 * at any size. Pairs are generated from the seed (random, mutated, corpus tools, dialect flips; with
 * `--releases`, two releases of one real tool schema as APIs change between versions); every
 * `Subtype` is tested against sampled cloud values, every `Drift` witness re-checked by a fresh validator.
 * Prints the verdicts, the Unsupported constructs, the time per pair, and each failure minimized as one
 * JSON line (`{kind, cloud, local, value}`) ready to pin in packages/subschema/test/Subschema.regressions.test.ts. Exits 1
 * on any failure.
 */
import { Subschema } from "@toolgate/subschema"
import { minimize, run, tools } from "../packages/subschema/test/internal/fuzzRun.js"
import type { Report } from "../packages/subschema/test/internal/fuzzRun.js"

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0
}

/**
 * One batch: the report with its summary figures. The prover timed is `@toolgate/subschema`'s: the built
 * package under `npm run bench`, the source under `npm run fuzz` (its `@toolgate/source` condition).
 */
export const batch = (seed: number, count: number, samples = 24, source: "mixed" | "releases" = "mixed"): Report & { readonly unsupported: number; readonly median: number; readonly p99: number } => {
  const report = run({ seed, count, tools: tools(), samples, check: Subschema.check, source })
  return { ...report, unsupported: report.verdicts.Unsupported / report.pairs, median: quantile(report.times, 0.5), p99: quantile(report.times, 0.99) }
}

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback
  if (!Number.isInteger(v) || v < 0) {
    console.error(`--${name} takes a whole number`)
    process.exit(2)
  }
  return v
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seed = flag("seed", 1), count = flag("count", 1_000), samples = flag("samples", 24)
  const started = performance.now()
  // `--releases`: pairs from two releases of one real tool (a field made required, an enum narrowed, …)
  const source = process.argv.includes("--releases") ? "releases" : "mixed"
  const b = batch(seed, count, samples, source)
  const pct = (n: number) => `${(100 * n / b.pairs).toFixed(1)}%`
  console.log(`seed ${seed}${source === "releases" ? " (releases of corpus tools)" : ""}, ${b.pairs} pairs in ${((performance.now() - started) / 1000).toFixed(1)} s; ${b.checkedValues} cloud values tested under Subtype`)
  console.log(`  Subtype ${b.verdicts.Subtype} (${pct(b.verdicts.Subtype)}), Drift ${b.verdicts.Drift} (${pct(b.verdicts.Drift)}), Unsupported ${b.verdicts.Unsupported} (${pct(b.verdicts.Unsupported)})`)
  console.log(`  check per pair: median ${b.median.toFixed(3)} ms, p99 ${b.p99.toFixed(2)} ms, max ${Math.max(...b.times).toFixed(1)} ms`)
  for (const [c, n] of [...b.constructs].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`  ${String(n).padStart(6)}  ${c}`)
  console.log(b.failures.length === 0 ? "no failures" : `${b.failures.length} FAILURES (minimized):`)
  for (const f of b.failures) console.log(JSON.stringify(minimize(f, 3000, Subschema.check)))
  process.exitCode = b.failures.length === 0 ? 0 : 1
}

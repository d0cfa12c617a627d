/**
 * The prover's fuzz suite, seeded and bounded: generated pairs (every keyword family, `$ref` recursion,
 * both dialects), mutated copies, mutated corpus tools and dialect flips. Every `Subtype` is tested against
 * values sampled from the cloud schema that the cloud validator accepts; every `Drift` witness is re-checked
 * by a fresh validator instance. `npx tsx bench/fuzz.ts --seed N --count M` runs more and minimizes failures.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Failure } from "./internal/fuzzRun.js"
import { minimize, run, tools } from "./internal/fuzzRun.js"

const corpusTools = tools()

const show = (fs: ReadonlyArray<Failure>): string => fs.slice(0, 3).map((f) => JSON.stringify(minimize(f, 500))).join("\n")

describe("Subschema fuzz suite", () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: 1,000 pairs, no Subtype contradicted by a sampled cloud value, every Drift witness verified`, { timeout: 240_000 }, () => {
      const report = run({ seed, count: 1_000, tools: corpusTools, samples: 16 })
      assert.strictEqual(report.pairs, 1_000)
      assert.isAbove(report.verdicts.Subtype, 300)
      assert.isAbove(report.verdicts.Drift, 100)
      assert.isAbove(report.checkedValues, 3_000)
      assert.deepStrictEqual(report.failures.length, 0, show(report.failures))
    })
  }
})

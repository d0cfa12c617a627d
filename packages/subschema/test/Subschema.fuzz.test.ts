/**
 * The prover's fuzz suite, seeded and bounded: generated pairs (every keyword family, `$ref` recursion,
 * both dialects), mutated copies, mutated corpus tools and dialect flips. Every `Subtype` is tested against
 * values sampled from the cloud schema that the cloud validator accepts; every `Drift` witness is re-checked
 * by a fresh validator instance. `npx tsx bench/fuzz.ts --seed N --count M` runs more and minimizes failures.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Failure } from "./internal/fuzzRun.js"
import { minimize, run, tools } from "./internal/fuzzRun.js"
import type * as Subschema from "../src/Subschema.js"

const corpusTools = tools()

const show = (fs: ReadonlyArray<Failure>): string => fs.slice(0, 3).map((f) => JSON.stringify(minimize(f, 500))).join("\n")

/** Ten batches of 100 pairs (seeds `first`…`first + 9`), yielding between them so the test worker stays responsive. */
const batches = async (first: number) => {
  const total = { pairs: 0, Subtype: 0, Drift: 0, values: 0, failures: [] as Array<Failure> }
  for (let seed = first; seed < first + 10; seed++) {
    const report = run({ seed, count: 100, tools: corpusTools, samples: 16 })
    total.pairs += report.pairs
    total.Subtype += report.verdicts.Subtype
    total.Drift += report.verdicts.Drift
    total.values += report.checkedValues
    total.failures.push(...report.failures)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return total
}

describe("Subschema fuzz suite", () => {
  for (const first of [1, 11]) {
    it(`seeds ${first}–${first + 9}: 1,000 pairs, no Subtype contradicted by a sampled cloud value, every Drift witness verified`, { timeout: 240_000 }, async () => {
      const total = await batches(first)
      assert.strictEqual(total.pairs, 1_000)
      assert.isAbove(total.Subtype, 300)
      assert.isAbove(total.Drift, 100)
      assert.isAbove(total.values, 3_000)
      assert.deepStrictEqual(total.failures.length, 0, show(total.failures))
    })
  }

  it("minimize shrinks a failure under the prover it was found with, not always this package's", () => {
    // A prover that wrongly proves every pair: `"abc"` under string ⊆ number is a failure for it, not for the real one.
    const wrong = (): Subschema.Verdict => ({ _tag: "Subtype" })
    const f: Failure = { kind: "Subtype", cloud: { type: "string" }, local: { type: "number" }, value: "abc" }
    assert.strictEqual(minimize(f, 100, wrong).value, "")
    assert.deepStrictEqual(minimize(f, 100), f)
  })
})

/**
 * The prover on a second source of pairs: a real tool schema against its next or previous release, changed
 * the ways APIs change between versions (a field made required, an enum narrowed, a type widened, a bound
 * moved, a field added, an object closed, a description reworded). Every `Subtype` is tested against
 * sampled cloud values, every `Drift` witness re-checked; `Unsupported` stays rare.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Failure } from "./internal/fuzzRun.js"
import { minimize, run, tools } from "./internal/fuzzRun.js"

const corpusTools = tools()

describe("Subschema fuzz suite: releases of real tools", () => {
  it("seeds 1–5: 1,000 release pairs, none unsound, at most 1% Unsupported", { timeout: 300_000 }, async () => {
    const total = { pairs: 0, Subtype: 0, Drift: 0, Unsupported: 0, failures: [] as Array<Failure> }
    for (let seed = 1; seed <= 5; seed++) {
      const report = run({ seed, count: 200, tools: corpusTools, samples: 16, source: "releases" })
      total.pairs += report.pairs
      total.Subtype += report.verdicts.Subtype
      total.Drift += report.verdicts.Drift
      total.Unsupported += report.verdicts.Unsupported
      total.failures.push(...report.failures)
      await new Promise((resolve) => setImmediate(resolve))
    }
    assert.strictEqual(total.pairs, 1_000)
    assert.deepStrictEqual(total.failures.length, 0, total.failures.slice(0, 3).map((f) => JSON.stringify(minimize(f, 500))).join("\n"))
    assert.isAbove(total.Subtype, 300)
    assert.isAbove(total.Drift, 300)
    assert.isAtMost(total.Unsupported, 10, JSON.stringify(total))
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Outcome } from "@toolgate/cli"

const schema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city"],
  additionalProperties: false
}

describe("Outcome.decide", () => {
  it("repairs a near-miss under the lenient policy and reports the coercion", () => {
    const outcome = Outcome.decide({ schema, args: '{"city":"Oslo","days":"3"}', policy: "lenient" })
    assert.strictEqual(outcome._tag, "Valid")
    if (outcome._tag !== "Valid") return
    assert.deepStrictEqual(outcome.value, { city: "Oslo", days: 3 })
    assert.deepStrictEqual(outcome.coercions.map((c) => [c.field, c.rule]), [["days", "string-to-integer"]])
    assert.strictEqual(Outcome.exitCode(outcome), 0)
  })

  it("leaves the same near-miss invalid under the strict policy, with an invalid_args envelope", () => {
    const outcome = Outcome.decide({ tool: "weather", schema, args: '{"city":"Oslo","days":"3"}', policy: "strict" })
    assert.strictEqual(outcome._tag, "Invalid")
    if (outcome._tag !== "Invalid") return
    assert.deepInclude(outcome.envelope, { ok: false, kind: "invalid_args", field: "days", tool: "weather", retryable: true })
    assert.strictEqual(Outcome.exitCode(outcome), 1)
  })

  it("upgrades BFCL-style schemas before validating and reports the changes", () => {
    const outcome = Outcome.decide({
      schema: { type: "dict", properties: { rate: { type: "float" } }, required: ["rate"] },
      args: { rate: 0.5 },
      policy: "strict"
    })
    assert.strictEqual(outcome._tag, "Valid")
    if (outcome._tag !== "Valid") return
    assert.isAtLeast(outcome.upgrades.length, 2)
  })

  it("turns unusable schemas into a bad-input outcome, never a throw", () => {
    for (const bad of [42, "object", null, [], { minLength: "x" }, { pattern: "(" }, { $ref: "https://example.com/x" }]) {
      const outcome = Outcome.decide({ schema: bad, args: "{}", policy: "lenient" })
      assert.strictEqual(outcome._tag, "BadInput", JSON.stringify(bad))
      assert.strictEqual(Outcome.exitCode(outcome), 2)
    }
  })

  it("survives hostile arguments: truncated JSON, __proto__ keys, deep nesting, a huge string", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const hostile = ['{"city":"Os', '{"__proto__":{"polluted":true},"city":"x"}', deep, JSON.stringify({ city: "x".repeat(10_000_000) })]
    const statuses = hostile.map((args) => Outcome.decide({ schema, args, policy: "lenient" })._tag)
    assert.deepStrictEqual(statuses, ["Invalid", "Invalid", "Invalid", "Valid"])
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })
})

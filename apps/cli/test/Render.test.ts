import { assert, describe, it } from "@effect/vitest"
import { Outcome, Render } from "@toolgate/cli"
import { JsonValue } from "@toolgate/json-schema"

const nested = (levels: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { a: v, skip: undefined }
  return v
}

describe("Render", () => {
  it("text and json print 10,000- and 100,000-level values instead of overflowing the stack", () => {
    for (const levels of [10_000, 100_000]) {
      const value = nested(levels)
      const outcome: Outcome.Outcome = { _tag: "Valid", value, coercions: [], upgrades: [] }
      assert.include(Render.text(outcome, "lenient"), "executor receives: {\"a\":[{\"a\":[")
      const line = Render.json(outcome)
      assert.isAbove(line.length, levels * 2)
      assert.strictEqual(JsonValue.stringify(value), line.slice(line.indexOf("\"value\":") + 8, line.indexOf(",\"coercions\"")))
    }
  })

  it("__proto__ and constructor keys print as data and pollute nothing; a 10 MB value prints clipped", () => {
    const outcome = Outcome.decide({
      schema: { type: "object", properties: { a: { type: "integer" } } },
      args: `{"__proto__":{"polluted":1},"constructor":"1","a":"2","big":"${"x".repeat(10_000_000)}"}`,
      policy: "lenient"
    })
    const text = Render.text(outcome, "lenient")
    assert.include(text, 'executor receives: {"__proto__":{"polluted":1},"constructor":"1","a":2')
    assert.isBelow(text.length, 1_000)
    assert.strictEqual(JSON.parse(Render.json(outcome, JSON.parse('{"__proto__":{"x":1}}'))).value.a, 2)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.isUndefined(({} as Record<string, unknown>)["x"])
  })

  it("wrong types and values that are not JSON do not throw", () => {
    assert.strictEqual(Render.text(null as never, "lenient"), "✘ bad input: not an outcome")
    assert.strictEqual(Render.text(5 as never, undefined as never), "✘ bad input: not an outcome")
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const odd: Outcome.Outcome = { _tag: "Valid", value: cyclic, coercions: [], upgrades: [] }
    assert.include(Render.text(odd, "lenient"), "executor receives: (not JSON)")
    assert.strictEqual(JSON.parse(Render.json(odd))._tag, "BadInput")
    assert.include(Render.json({ _tag: "Valid", value: 10n, coercions: [], upgrades: [] }), "not JSON")
  })
})

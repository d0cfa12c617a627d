import { describe, expect, it } from "@effect/vitest"
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
      expect(Render.text(outcome, "lenient")).toContain("executor receives: {\"a\":[{\"a\":[")
      const line = Render.json(outcome)
      expect(line.length).toBeGreaterThan(levels * 2)
      expect(JsonValue.stringify(value)).toBe(line.slice(line.indexOf("\"value\":") + 8, line.indexOf(",\"coercions\"")))
    }
  })

  it("__proto__ and constructor keys print as data and pollute nothing; a 10 MB value prints clipped", () => {
    const outcome = Outcome.decide({
      schema: { type: "object", properties: { a: { type: "integer" } } },
      args: `{"__proto__":{"polluted":1},"constructor":"1","a":"2","big":"${"x".repeat(10_000_000)}"}`,
      policy: "lenient"
    })
    const text = Render.text(outcome, "lenient")
    expect(text).toContain('executor receives: {"__proto__":{"polluted":1},"constructor":"1","a":2')
    expect(text.length).toBeLessThan(1_000)
    expect(JSON.parse(Render.json(outcome, JSON.parse('{"__proto__":{"x":1}}'))).value.a).toBe(2)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    expect(({} as Record<string, unknown>)["x"]).toBeUndefined()
  })

  it("wrong types and values that are not JSON do not throw", () => {
    expect(Render.text(null as never, "lenient")).toBe("✘ bad input: not an outcome")
    expect(Render.text(5 as never, undefined as never)).toBe("✘ bad input: not an outcome")
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const odd: Outcome.Outcome = { _tag: "Valid", value: cyclic, coercions: [], upgrades: [] }
    expect(Render.text(odd, "lenient")).toContain("executor receives: (not JSON)")
    expect(JSON.parse(Render.json(odd))._tag).toBe("BadInput")
    expect(Render.json({ _tag: "Valid", value: 10n, coercions: [], upgrades: [] })).toContain("not JSON")
  })
})

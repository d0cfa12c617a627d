import { describe, expect, it } from "@effect/vitest"
import { Subschema } from "@toolgate/json-schema"
import { toolgate } from "./toolgate.js"

const optionalUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } } })
const requiredUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } }, required: ["units"] })

describe("toolgate subschema (the process)", () => {
  it("exits 0 for a proven subtype and 1 for drift, naming the reason and a witness", () => {
    expect(toolgate("subschema", requiredUnits, optionalUnits).code).toBe(0)
    const drift = toolgate("subschema", optionalUnits, requiredUnits, "--json")
    expect(drift.code).toBe(1)
    const verdict = JSON.parse(drift.stdout.trim()) as Subschema.Verdict
    expect(verdict._tag).toBe("Drift")
    if (verdict._tag !== "Drift") return
    expect(verdict.witness).toEqual({})
    expect(verdict.reasons[0]?.message).toContain("units")
  })

  it("exits 2 when it cannot model the local side (fail closed) and 3 for bad input", () => {
    const unsupported = toolgate("subschema", '{"type":"string","pattern":"^a"}', '{"type":"string","pattern":"^(?!b)"}')
    expect(unsupported.code).toBe(2)
    expect(unsupported.stdout).toContain("unsupported")
    const missing = toolgate("subschema", "no/such/cloud.json", optionalUnits)
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain("no/such/cloud.json")
    expect(toolgate("subschema", "[1,2]", optionalUnits).code).toBe(3)
    // a command-line mistake is bad input too, never 2 (which a CI script reads as "unsupported")
    const noLocal = toolgate("subschema", optionalUnits)
    expect(noLocal.code).toBe(3)
    expect(noLocal.stderr).toContain("LOCAL")
    expect(toolgate("subschema", optionalUnits, optionalUnits, "--bogus").code).toBe(3)
    expect(toolgate("subschema", "__proto__", '{"constructor":{"prototype":1}}').code).toBe(3)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { Subschema } from "@toolgate/json-schema"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toolgate } from "./toolgate.js"

const optionalUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } } })
const requiredUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } }, required: ["units"] })

describe("toolgate subschema (the process)", () => {
  it("exits 0 for a proven subtype and 1 for drift, naming the reason and a witness", () => {
    expect(toolgate("subschema", "--cloud-json", requiredUnits, "--local-json", optionalUnits).code).toBe(0)
    const drift = toolgate("subschema", "--cloud-json", optionalUnits, "--local-json", requiredUnits, "--json")
    expect(drift.code).toBe(1)
    const verdict = JSON.parse(drift.stdout.trim()) as Subschema.Verdict & { exitCode: number }
    expect(verdict._tag).toBe("Drift")
    expect(verdict.exitCode).toBe(1)
    if (verdict._tag !== "Drift") return
    expect(verdict.witness).toEqual({})
    expect(verdict.reasons[0]?.message).toContain("units")
  })

  it("exits 2 when it cannot model the local side (fail closed) and 3 for bad input", () => {
    const unsupported = toolgate("subschema", "--cloud-json", '{"type":"string","pattern":"^a"}', "--local-json", '{"type":"string","pattern":"^(?!b)"}')
    expect(unsupported.code).toBe(2)
    expect(unsupported.stdout).toContain("unsupported")
    const missing = toolgate("subschema", "no/such/cloud.json", "--local-json", optionalUnits)
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain("no/such/cloud.json")
    expect(toolgate("subschema", "--cloud-json", "[1,2]", "--local-json", optionalUnits).code).toBe(3)
    // a command-line mistake is bad input too, never 2 (which a CI script reads as "unsupported")
    const noLocal = toolgate("subschema", "--cloud-json", optionalUnits)
    expect(noLocal.code).toBe(3)
    expect(noLocal.stderr).toContain("LOCAL")
    expect(toolgate("subschema", "--cloud-json", optionalUnits, "--local-json", optionalUnits, "--bogus").code).toBe(3)
    expect(toolgate("subschema", "__proto__", "--local-json", '{"constructor":{"prototype":1}}').code).toBe(3)
    // --json: bad input is a BadInput object on stdout, a command-line mistake included
    for (const args of [["no/such/cloud.json", "no/such/local.json"], ["--cloud-json", optionalUnits, "--local-json", optionalUnits, "--bogus"]]) {
      const run = toolgate("subschema", ...args, "--json")
      expect(run.code, args.join(" ")).toBe(3)
      expect(JSON.parse(run.stdout), args.join(" ")).toMatchObject({ _tag: "BadInput", exitCode: 3, message: expect.any(String) })
    }
  })

  it("reads files named like numbers as files (positional CLOUD.json LOCAL.json), mixing a file with inline JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-subschema-"))
    try {
      writeFileSync(join(dir, "01-cloud.json"), requiredUnits)
      writeFileSync(join(dir, "02-local.json"), optionalUnits)
      const files = toolgate("subschema", join(dir, "01-cloud.json"), join(dir, "02-local.json"), "--json")
      expect(files.code, files.stderr).toBe(0)
      expect(JSON.parse(files.stdout)).toEqual({ _tag: "Subtype", exitCode: 0 })
      const mixed = toolgate("subschema", "--cloud-json", optionalUnits, join(dir, "01-cloud.json"))
      expect(mixed.code).toBe(1)
      expect(mixed.stdout).toContain("drift")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import type { Subschema } from "@toolgate/subschema"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toolgate } from "./toolgate.js"

const optionalUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } } })
const requiredUnits = JSON.stringify({ type: "object", properties: { units: { enum: ["c", "f"] } }, required: ["units"] })

describe("toolgate subschema (the process)", () => {
  it("exits 0 for a proven subtype and 1 for drift, naming the reason and a witness", () => {
    assert.strictEqual(toolgate("subschema", "--cloud-json", requiredUnits, "--local-json", optionalUnits).code, 0)
    const drift = toolgate("subschema", "--cloud-json", optionalUnits, "--local-json", requiredUnits, "--json")
    assert.strictEqual(drift.code, 1)
    const verdict = JSON.parse(drift.stdout.trim()) as Subschema.Verdict & { exitCode: number }
    assert.strictEqual(verdict._tag, "Drift")
    assert.strictEqual(verdict.exitCode, 1)
    if (verdict._tag !== "Drift") return
    assert.deepStrictEqual(verdict.witness, {})
    assert.include(verdict.reasons[0]?.message, "units")
  })

  it("exits 2 when it cannot model the local side (fail closed) and 3 for bad input", () => {
    const unsupported = toolgate("subschema", "--cloud-json", '{"type":"string","pattern":"^a"}', "--local-json", '{"type":"string","pattern":"^(?!b)"}')
    assert.strictEqual(unsupported.code, 2)
    assert.include(unsupported.stdout, "unsupported")
    const missing = toolgate("subschema", "no/such/cloud.json", "--local-json", optionalUnits)
    assert.strictEqual(missing.code, 3)
    assert.include(missing.stderr, "no/such/cloud.json")
    assert.strictEqual(toolgate("subschema", "--cloud-json", "[1,2]", "--local-json", optionalUnits).code, 3)
    // a command-line mistake is bad input too, never 2 (which a CI script reads as "unsupported")
    const noLocal = toolgate("subschema", "--cloud-json", optionalUnits)
    assert.strictEqual(noLocal.code, 3)
    assert.include(noLocal.stderr, "LOCAL")
    assert.strictEqual(toolgate("subschema", "--cloud-json", optionalUnits, "--local-json", optionalUnits, "--bogus").code, 3)
    assert.strictEqual(toolgate("subschema", "__proto__", "--local-json", '{"constructor":{"prototype":1}}').code, 3)
    // --json: bad input is a BadInput object on stdout, a command-line mistake included
    for (const args of [["no/such/cloud.json", "no/such/local.json"], ["--cloud-json", optionalUnits, "--local-json", optionalUnits, "--bogus"]]) {
      const run = toolgate("subschema", ...args, "--json")
      assert.strictEqual(run.code, 3, args.join(" "))
      const printed = JSON.parse(run.stdout)
      assert.deepInclude(printed, { _tag: "BadInput", exitCode: 3 }, args.join(" "))
      assert.isString(printed.message, args.join(" "))
    }
  })

  it("reads files named like numbers as files (positional CLOUD.json LOCAL.json), mixing a file with inline JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-subschema-"))
    try {
      writeFileSync(join(dir, "01-cloud.json"), requiredUnits)
      writeFileSync(join(dir, "02-local.json"), optionalUnits)
      const files = toolgate("subschema", join(dir, "01-cloud.json"), join(dir, "02-local.json"), "--json")
      assert.strictEqual(files.code, 0, files.stderr)
      assert.deepStrictEqual(JSON.parse(files.stdout), { _tag: "Subtype", exitCode: 0 })
      const mixed = toolgate("subschema", "--cloud-json", optionalUnits, join(dir, "01-cloud.json"))
      assert.strictEqual(mixed.code, 1)
      assert.include(mixed.stdout, "drift")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

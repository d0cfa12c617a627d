import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toolgate } from "./toolgate.js"

const schema = JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] })

// The real process, so the exit codes a CI script sees are the ones tested.
describe("toolgate (the process)", () => {
  it("validate exits 0 and prints the coercion for a repaired near-miss", () => {
    const { code, stdout } = toolgate("validate", "--schema", schema, "--args", '{"n":"15"}')
    expect(code).toBe(0)
    expect(stdout).toContain("string-to-integer")
    expect(stdout).toContain('{"n":15}')
  })

  it("validate --json exits 1 with the invalid_args envelope under --policy strict", () => {
    const { code, stdout } = toolgate("validate", "--schema", schema, "--args", '{"n":"15"}', "--policy", "strict", "--json")
    expect(code).toBe(1)
    const printed = JSON.parse(stdout.trim())
    expect(printed.status).toBe("invalid")
    expect(printed.envelope).toMatchObject({ ok: false, kind: "invalid_args", field: "n" })
  })

  it("validate exits 2 for a schema that is not JSON, a missing file, or an unknown option", () => {
    expect(toolgate("validate", "--schema", "{nope", "--args", "{}").code).toBe(2)
    const missing = toolgate("validate", "--schema", "no/such/file.json", "--args", "{}")
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("no/such/file.json")
    expect(toolgate("validate", "--schema", schema).code).toBe(2)
  })

  it("validate prints 10,000-level arguments a permissive schema accepts, as text and as JSON, and exits 0", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const shown = toolgate("validate", "--schema", "true", "--args", deep)
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("executor receives: [[[")
    const printed = toolgate("validate", "--schema", "true", "--args", deep, "--json")
    expect(printed.code).toBe(0)
    expect(printed.stdout).toContain(`"value":${deep}`)
  })

  it("examples exits 2 naming the example that is not JSON or not an example", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-examples-"))
    try {
      writeFileSync(join(dir, "a.json"), "{bad")
      const broken = toolgate("examples", "--dir", dir)
      expect(broken.code).toBe(2)
      expect(broken.stderr).toContain("The example a.json is not valid JSON")
      writeFileSync(join(dir, "a.json"), '{"__proto__": {"tool": "t"}}')
      const shapeless = toolgate("examples", "--dir", dir)
      expect(shapeless.code).toBe(2)
      expect(shapeless.stderr).toContain("a.json is not { tool, source, note, schema, args }")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("examples runs every example in the repository and summarises", () => {
    const { code, stdout } = toolgate("examples", "--json")
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line))
    const summary = lines.at(-1)
    expect(summary.summary.valid + summary.summary.invalid + summary.summary.error).toBe(lines.length - 1)
    expect(summary.summary.invalid).toBeGreaterThan(0)
    expect(summary.summary.valid).toBeGreaterThan(0)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toolgate } from "./toolgate.js"

const schema = JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] })

// The real process, so the exit codes a CI script sees are the ones tested.
describe("toolgate (the process)", () => {
  it("validate exits 0 and prints the coercion for a repaired near-miss", () => {
    const { code, stdout } = toolgate("validate", "--schema-json", schema, "--args-json", '{"n":"15"}')
    expect(code).toBe(0)
    expect(stdout).toContain("string-to-integer")
    expect(stdout).toContain('{"n":15}')
  })

  it("validate --json exits 1 with the invalid_args envelope under --policy strict", () => {
    const { code, stdout } = toolgate("validate", "--schema-json", schema, "--args-json", '{"n":"15"}', "--policy", "strict", "--json")
    expect(code).toBe(1)
    const printed = JSON.parse(stdout.trim())
    expect(printed).toMatchObject({ _tag: "Invalid", exitCode: 1 })
    expect(printed.envelope).toMatchObject({ ok: false, kind: "invalid_args", field: "n" })
  })

  it("validate exits 2 for a schema that is not JSON, a missing file, or a missing option; --json says so on stdout", () => {
    expect(toolgate("validate", "--schema-json", "{nope", "--args-json", "{}").code).toBe(2)
    const missing = toolgate("validate", "--schema", "no/such/file.json", "--args-json", "{}")
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("no/such/file.json")
    expect(toolgate("validate", "--schema-json", schema).code).toBe(2)
    const both = toolgate("validate", "--schema-json", schema, "--schema", "s.json", "--args-json", "{}", "--json")
    expect(both.code).toBe(2)
    expect(JSON.parse(both.stdout)).toMatchObject({ _tag: "BadInput", exitCode: 2, message: expect.stringContaining("not both") })
    const unknown = toolgate("validate", "--schema-json", schema, "--args-json", "{}", "--bogus", "--json")
    expect(unknown.code).toBe(2)
    expect(JSON.parse(unknown.stdout)).toMatchObject({ _tag: "BadInput", exitCode: 2 })
  })

  it("validate reads a file whose name starts with a digit as a file, and inline JSON only from --schema-json / --args-json", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-validate-"))
    try {
      writeFileSync(join(dir, "01-schema.json"), schema)
      writeFileSync(join(dir, "2.json"), '{"n":"15"}')
      const run = toolgate("validate", "--schema", join(dir, "01-schema.json"), "--args", join(dir, "2.json"), "--json")
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ _tag: "Valid", exitCode: 0, value: { n: 15 } })
      // inline JSON given to a file option is a file name (that does not exist), never parsed
      const inline = toolgate("validate", "--schema", schema, "--args-json", "{}")
      expect(inline.code).toBe(2)
      expect(inline.stderr).toContain("Cannot read the schema file")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("validate prints 10,000-level arguments a permissive schema accepts, as text and as JSON, and exits 0", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const shown = toolgate("validate", "--schema-json", "true", "--args-json", deep)
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("executor receives: [[[")
    const printed = toolgate("validate", "--schema-json", "true", "--args-json", deep, "--json")
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
    expect(summary._tag).toBe("Summary")
    expect(summary.valid + summary.invalid + summary.unusable).toBe(lines.length - 1)
    expect(summary.calls).toBe(lines.length - 1)
    expect(summary.invalid).toBeGreaterThan(0)
    expect(summary.valid).toBeGreaterThan(0)
    expect(lines.slice(0, -1).every((line) => ["Valid", "Invalid", "BadInput"].includes(line._tag))).toBe(true)
  })

  it("examples --json with a folder that cannot be read prints a BadInput object", () => {
    const run = toolgate("examples", "--dir", join(tmpdir(), "toolgate-no-such-dir"), "--json")
    expect(run.code).toBe(2)
    expect(JSON.parse(run.stdout)).toMatchObject({ _tag: "BadInput", exitCode: 2 })
  })
})

import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toolgate, toolgateAsync } from "./toolgate.js"

const schema = JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] })

// The real process, so the exit codes a CI script sees are the ones tested.
describe("toolgate (the process)", () => {
  it("validate exits 0 and prints the coercion for a repaired near-miss", () => {
    const { code, stdout } = toolgate("validate", "--schema-json", schema, "--args-json", '{"n":"15"}')
    assert.strictEqual(code, 0)
    assert.include(stdout, "string-to-integer")
    assert.include(stdout, '{"n":15}')
  })

  it("validate --json exits 1 with the invalid_args envelope under --policy strict", () => {
    const { code, stdout } = toolgate("validate", "--schema-json", schema, "--args-json", '{"n":"15"}', "--policy", "strict", "--json")
    assert.strictEqual(code, 1)
    const printed = JSON.parse(stdout.trim())
    assert.deepInclude(printed, { _tag: "Invalid", exitCode: 1 })
    assert.deepInclude(printed.envelope, { ok: false, kind: "invalid_args", field: "n" })
  })

  it("validate exits 2 for a schema that is not JSON, a missing file, or a missing option; --json says so on stdout", () => {
    assert.strictEqual(toolgate("validate", "--schema-json", "{nope", "--args-json", "{}").code, 2)
    const missing = toolgate("validate", "--schema", "no/such/file.json", "--args-json", "{}")
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "no/such/file.json")
    assert.strictEqual(toolgate("validate", "--schema-json", schema).code, 2)
    const both = toolgate("validate", "--schema-json", schema, "--schema", "s.json", "--args-json", "{}", "--json")
    assert.strictEqual(both.code, 2)
    const refused = JSON.parse(both.stdout)
    assert.deepInclude(refused, { _tag: "BadInput", exitCode: 2 })
    assert.include(refused.message, "not both")
    const unknown = toolgate("validate", "--schema-json", schema, "--args-json", "{}", "--bogus", "--json")
    assert.strictEqual(unknown.code, 2)
    assert.deepInclude(JSON.parse(unknown.stdout), { _tag: "BadInput", exitCode: 2 })
  })

  it("validate reads a file whose name starts with a digit as a file, and inline JSON only from --schema-json / --args-json", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-validate-"))
    try {
      writeFileSync(join(dir, "01-schema.json"), schema)
      writeFileSync(join(dir, "2.json"), '{"n":"15"}')
      const run = toolgate("validate", "--schema", join(dir, "01-schema.json"), "--args", join(dir, "2.json"), "--json")
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepInclude(JSON.parse(run.stdout), { _tag: "Valid", exitCode: 0, value: { n: 15 } })
      // inline JSON given to a file option is a file name (that does not exist), never parsed
      const inline = toolgate("validate", "--schema", schema, "--args-json", "{}")
      assert.strictEqual(inline.code, 2)
      assert.include(inline.stderr, "cannot be read")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("validate prints 10,000-level arguments a permissive schema accepts, as text and as JSON, and exits 0", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const shown = toolgate("validate", "--schema-json", "true", "--args-json", deep)
    assert.strictEqual(shown.code, 0)
    assert.include(shown.stdout, "executor receives: [[[")
    const printed = toolgate("validate", "--schema-json", "true", "--args-json", deep, "--json")
    assert.strictEqual(printed.code, 0)
    assert.include(printed.stdout, `"value":${deep}`)
  })

  it("examples exits 2 naming the example that is not JSON or not an example", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-examples-"))
    try {
      writeFileSync(join(dir, "a.json"), "{bad")
      const broken = toolgate("examples", "--dir", dir)
      assert.strictEqual(broken.code, 2)
      assert.include(broken.stderr, "The example a.json is not valid JSON")
      writeFileSync(join(dir, "a.json"), '{"__proto__": {"tool": "t"}}')
      const shapeless = toolgate("examples", "--dir", dir)
      assert.strictEqual(shapeless.code, 2)
      assert.include(shapeless.stderr, "a.json is not { tool, source, note, schema, args }")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("examples runs every example in the repository and summarises", () => {
    const { code, stdout } = toolgate("examples", "--json")
    assert.strictEqual(code, 0)
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line))
    const summary = lines.at(-1)
    assert.strictEqual(summary._tag, "Summary")
    assert.strictEqual(summary.valid + summary.invalid + summary.unusable, lines.length - 1)
    assert.strictEqual(summary.calls, lines.length - 1)
    // the seven examples in apps/cli/examples: five valid calls, two invalid
    assert.deepStrictEqual([summary.calls, summary.valid, summary.invalid, summary.unusable], [7, 5, 2, 0])
    assert.strictEqual(lines.slice(0, -1).every((line) => ["Valid", "Invalid", "BadInput"].includes(line._tag)), true)
  })

  it("examples --json with a folder that cannot be read prints a BadInput object", () => {
    const run = toolgate("examples", "--dir", join(tmpdir(), "toolgate-no-such-dir"), "--json")
    assert.strictEqual(run.code, 2)
    assert.deepInclude(JSON.parse(run.stdout), { _tag: "BadInput", exitCode: 2 })
  })

  it("a FIFO, a directory or a device where a file belongs is refused as not a regular file, with each command's bad-input code, never read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-special-"))
    try {
      const fifo = join(dir, "fifo.json")
      execFileSync("mkfifo", [fifo]) // nothing ever writes it: reading it would wait for ever
      const folder = join(dir, "folder.json")
      mkdirSync(folder)
      const schemaFile = join(dir, "s.json")
      writeFileSync(schemaFile, schema)
      const runs: Array<readonly [ReadonlyArray<string>, number]> = [fifo, folder, "/dev/zero"].flatMap((path) => [
        [["validate", "--schema", path, "--args-json", "{}"], 2],
        [["validate", "--schema", schemaFile, "--args", path, "--json"], 2],
        [["check", "--tools", path, "--capabilities-json", "{}"], 4],
        [["check", "--tools-json", "{}", "--capabilities", path, "--json"], 4],
        [["subschema", path, "--local-json", "{}"], 3],
        [["normalize", "--target", "google", path], 2],
        [["serve", "--port", "0", "--profile", path], 2],
        [["serve", "--port", "0", "--scenario", path, "--json"], 2]
      ] as const)
      const results = await Promise.all(runs.map(([args]) => toolgateAsync(...args)))
      results.forEach((run, i) => {
        const [args, code] = runs[i]!
        const path = args.find((arg) => arg === fifo || arg === folder || arg === "/dev/zero")!
        assert.strictEqual(run.code, code, args.join(" "))
        assert.include(run.stderr, `Expected path '${path}' to be a regular file`, args.join(" "))
        if (args.includes("--json")) assert.deepInclude(JSON.parse(run.stdout), { _tag: "BadInput", exitCode: code }, args.join(" "))
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)

  it("a file past 64 MiB is refused before it is read; an examples folder holding a FIFO, a device or a folder is refused, not waited on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-limits-"))
    try {
      const huge = join(dir, "huge.json")
      writeFileSync(huge, "{}")
      truncateSync(huge, 65 * 1024 * 1024) // sparse: no disk, and never read
      const big = await toolgateAsync("validate", "--schema", huge, "--args-json", "{}", "--json")
      assert.strictEqual(big.code, 2)
      assert.deepInclude(JSON.parse(big.stdout), { _tag: "BadInput", exitCode: 2 })
      assert.include(big.stdout, "is larger than 67108864 bytes")
      for (const make of [(p: string) => execFileSync("mkfifo", [p]), (p: string) => symlinkSync("/dev/zero", p), (p: string) => mkdirSync(p)]) {
        const folder = mkdtempSync(join(dir, "examples-"))
        make(join(folder, "a.json"))
        const run = await toolgateAsync("examples", "--dir", folder)
        assert.strictEqual(run.code, 2, run.stderr)
        assert.include(run.stderr, "is not a regular file")
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})

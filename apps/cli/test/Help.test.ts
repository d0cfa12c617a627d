import { assert, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { root, toolgate } from "./toolgate.js"

const commands = ["demo", "check", "serve", "validate", "subschema", "normalize", "examples"]
const escape = "\u001b["

/** The entries of a help section (`OPTIONS`, `ARGUMENTS`): each name line and the block under it. */
const entries = (help: string, section: string): Array<[string, string]> => {
  const start = help.indexOf(`\n${section}\n`)
  if (start === -1) return []
  const body = help.slice(start + section.length + 2).split(/\n(?:GLOBAL OPTIONS|OPTIONS)\n/)[0]!
  const blocks = body.trim().split(/\n\n/)
  return blocks.flatMap((block, i): Array<[string, string]> => /^(--|<)/.test(block) ? [[block, blocks[i + 1] ?? ""]] : [])
}

// The real process, its output piped (as in CI or `| less`).
describe("toolgate --help (the process)", () => {
  it("each command's help: `$ toolgate <command> …`, plain text, every option described with its default, no --wizard", () => {
    for (const command of commands) {
      const { code, stdout } = toolgate(command, "--help")
      expect(code, command).toBe(0)
      expect(stdout, command).not.toContain(escape)
      expect(stdout, command).toMatch(new RegExp(`^\\$ toolgate ${command}( |$)`, "m"))
      expect(stdout, command).not.toMatch(/^\$ (?!toolgate )/m)
      for (const stock of ["A user-defined piece of text.", "A true or false value.", "An integer.", "--wizard", "This setting is optional."]) {
        expect(stdout, `${command}: ${stock}`).not.toContain(stock)
      }
      const options = entries(stdout, "OPTIONS")
      expect(options.length, command).toBeGreaterThan(0)
      for (const [name, description] of [...options, ...entries(stdout, "ARGUMENTS")]) {
        expect(description, `${command} ${name}`).toMatch(/^\s*\S/)
        expect(description, `${command} ${name}`).toMatch(/Default: |Required/)
      }
      expect(options.map(([name]) => name.split(" ")[0]), command).toContain("--json")
      expect(stdout, command).toContain("GLOBAL OPTIONS")
      expect(stdout, command).toContain("--log-level")
    }
  })

  it("the root help lists every command, without --wizard or escapes; -h is --help", () => {
    const { code, stdout } = toolgate("--help")
    expect(code).toBe(0)
    expect(stdout).not.toContain(escape)
    expect(stdout).not.toContain("--wizard")
    expect(stdout).toContain("$ toolgate <command> [options]")
    for (const command of commands) expect(stdout).toMatch(new RegExp(`^ {2}- ${command}( |$)`, "m"))
    expect(toolgate("check", "-h").stdout).toMatch(/^\$ toolgate check /m)
    // no command at all: the same page
    const bare = toolgate()
    expect(bare.code).toBe(0)
    expect(bare.stdout).toBe(stdout)
  })

  it("a command-line mistake reaches a pipe without escapes", () => {
    const { code, stderr } = toolgate("validate", "--policy", "loose", "--schema-json", "{}", "--args-json", "{}")
    expect(code).toBe(2)
    expect(stderr).toContain("lenient, strict")
    expect(stderr).not.toContain(escape)
  })

  // A terminal (a pseudo-terminal from util-linux `script`, on every Debian machine in bsdutils): colour,
  // unless NO_COLOR or TERM=dumb says no. Without `script` the test fails and says so, it is not skipped.
  const script = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path))
  it("on a terminal: styled help, but none with NO_COLOR or TERM=dumb", () => {
    assert.isDefined(script, "this test needs util-linux `script` (Debian: bsdutils) to give the bin a terminal")
    const onTerminal = (env: Record<string, string>) =>
      spawnSync(script!, ["-qec", `"${process.execPath}" "${resolve(root, "apps/cli/bin/toolgate.js")}" check --help`, "/dev/null"], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, NO_COLOR: "", TERM: "xterm-256color", ...env }
      }).stdout
    const styled = onTerminal({})
    expect(styled).toContain("$ toolgate check")
    expect(styled).toContain(escape)
    for (const env of [{ NO_COLOR: "1" }, { TERM: "dumb" }]) {
      const plain = onTerminal(env)
      expect(plain, JSON.stringify(env)).toContain("$ toolgate check")
      expect(plain, JSON.stringify(env)).not.toContain(escape)
    }
  })
})

describe("toolgate --log-level (the process)", () => {
  it("takes its value, not the value for the subcommand: exit codes stay the command's own, and a mistake is said once", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-log-level-"))
    try {
      const tools = join(dir, "tools.json")
      writeFileSync(tools, JSON.stringify({ search: { type: "object" } }))
      const caps = JSON.stringify({ capabilities_version: "1.0", tool_schemas: { search: { type: "object" } } })
      const ok = toolgate("--log-level", "debug", "check", "--tools", tools, "--capabilities-json", caps)
      expect(ok.code, ok.stderr).toBe(0)
      expect(ok.stdout).toContain("1 proven")
      expect(toolgate("--log-level=debug", "check", "--tools", tools, "--capabilities-json", caps).code).toBe(0)
      const bad = toolgate("--log-level", "debug", "check", "--tools", tools)
      expect(bad.code).toBe(4)
      expect(bad.stderr.match(/toolgate: /g)).toHaveLength(1)
      const mistake = toolgate("--log-level", "warning", "subschema", "--cloud-json", "{}", "--local-json", "{}", "--nope")
      expect(mistake.code).toBe(3)
      const missing = toolgate("--log-level", "debug", "check", "--tools", tools, "--timeout", "soon")
      expect(missing.code).toBe(4)
      expect(missing.stderr.trim().split("\n").filter((line) => line.includes("soon"))).toHaveLength(1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { RelayProfileClient } from "@toolgate/providers"
import { root, toolgate } from "./toolgate.js"

const commands = ["demo", "check", "serve", "validate", "subschema", "normalize", "examples", "sessions list", "sessions show", "sessions export"]
/** The root's commands (`sessions` groups its own). */
const roots = [...new Set(commands.map((command) => command.split(" ")[0]!))]
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
      const { code, stdout } = toolgate(...command.split(" "), "--help")
      assert.strictEqual(code, 0, command)
      assert.notInclude(stdout, escape, command)
      assert.match(stdout, new RegExp(`^\\$ toolgate ${command}( |$)`, "m"), command)
      assert.notMatch(stdout, /^\$ (?!toolgate )/m, command)
      for (const stock of ["A user-defined piece of text.", "A true or false value.", "An integer.", "--wizard", "This setting is optional."]) {
        assert.notInclude(stdout, stock, `${command}: ${stock}`)
      }
      const options = entries(stdout, "OPTIONS")
      assert.isAbove(options.length, 0, command)
      for (const [name, description] of [...options, ...entries(stdout, "ARGUMENTS")]) {
        assert.match(description, /^\s*\S/, `${command} ${name}`)
        assert.match(description, /Default: |Required/, `${command} ${name}`)
      }
      assert.include(options.map(([name]) => name.split(" ")[0]), "--json", command)
      assert.include(stdout, "GLOBAL OPTIONS", command)
      assert.include(stdout, "--log-level", command)
    }
  })

  it("the root help lists every command, without --wizard or escapes; -h is --help", () => {
    const { code, stdout } = toolgate("--help")
    assert.strictEqual(code, 0)
    assert.notInclude(stdout, escape)
    assert.notInclude(stdout, "--wizard")
    assert.include(stdout, "$ toolgate <command> [options]")
    for (const command of roots) assert.match(stdout, new RegExp(`^ {2}- ${command}( |$)`, "m"))
    assert.match(toolgate("check", "-h").stdout, /^\$ toolgate check /m)
    // no command at all: the same page
    const bare = toolgate()
    assert.strictEqual(bare.code, 0)
    assert.strictEqual(bare.stdout, stdout)
  })

  it("a command that groups subcommands: its page, alone or with --help, gives each one's usage; a grouped command's page is its own", () => {
    const alone = toolgate("sessions")
    assert.strictEqual(alone.code, 0)
    assert.strictEqual(toolgate("sessions", "--help").stdout, alone.stdout)
    for (const sub of ["list", "show", "export"]) assert.match(alone.stdout, new RegExp(`^\\$ toolgate sessions ${sub} --db `, "m"))
    assert.include(alone.stdout, "$ toolgate sessions <command> --help")
    // a session id that names another subcommand does not choose the page
    const show = toolgate("sessions", "show", "list", "-h").stdout
    assert.match(show, /^\$ toolgate sessions show --db text \[--timeout integer\] \[--json\] <ID>$/m)
    assert.notMatch(show, /^\$ toolgate sessions list/m)
  })

  it("a command-line mistake reaches a pipe without escapes", () => {
    const { code, stderr } = toolgate("validate", "--policy", "loose", "--schema-json", "{}", "--args-json", "{}")
    assert.strictEqual(code, 2)
    assert.include(stderr, "lenient, strict")
    assert.notInclude(stderr, escape)
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
    assert.include(styled, "$ toolgate check")
    assert.include(styled, escape)
    for (const env of [{ NO_COLOR: "1" }, { TERM: "dumb" }]) {
      const plain = onTerminal(env)
      assert.include(plain, "$ toolgate check", JSON.stringify(env))
      assert.notInclude(plain, escape, JSON.stringify(env))
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
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.include(ok.stdout, "1 proven")
      assert.strictEqual(toolgate("--log-level=debug", "check", "--tools", tools, "--capabilities-json", caps).code, 0)
      const bad = toolgate("--log-level", "debug", "check", "--tools", tools)
      assert.strictEqual(bad.code, 4)
      assert.lengthOf(bad.stderr.match(/toolgate: /g) ?? [], 1)
      const mistake = toolgate("--log-level", "warning", "subschema", "--cloud-json", "{}", "--local-json", "{}", "--nope")
      assert.strictEqual(mistake.code, 3)
      const missing = toolgate("--log-level", "debug", "check", "--tools", tools, "--timeout", "soon")
      assert.strictEqual(missing.code, 4)
      assert.lengthOf(missing.stderr.trim().split("\n").filter((line) => line.includes("soon")), 1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** The bundled bin's files that node loads before any command runs: the entry and its static imports. */
const loadedAtStart = (): Map<string, string> => {
  const dist = resolve(root, "apps/cli/dist")
  const files = new Map<string, string>()
  const visit = (name: string) => {
    if (files.has(name)) return
    const text = readFileSync(join(dist, name), "utf8")
    files.set(name, text)
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^;()]*?["'](\.\/[^"']+\.mjs)["']/gm)) visit(m[1]!.slice(2))
  }
  visit("toolgate.mjs")
  return files
}

describe("toolgate start-up (the bundled bin)", () => {
  it("reading a command line loads no library that does the work: no Ajv, refa, prover, runtime or relay server", () => {
    const files = loadedAtStart()
    assert.isAbove(files.size, 1)
    const text = [...files.values()].join("\n")
    // esbuild names each bundled module in a comment; the work is in chunks loaded with import() when a command runs
    assert.include(text, "node_modules/@effect/cli/")
    for (const heavy of ["node_modules/ajv/", "node_modules/refa/", "subschema/dist/Subschema.js", "json-schema/dist/Validator.js", "runtime/dist/", "relay/dist/Relay.js", "node_modules/undici/", "sql/dist/", "node_modules/@effect/sql", "node_modules/pg/", "better-sqlite3"]) {
      assert.notInclude(text, heavy, heavy)
    }
  })
  it("check's help names the path the runtime probes, written out there so no runtime loads for it", () => {
    assert.include(toolgate("check", "--help").stdout, `GET ${RelayProfileClient.path}`)
  })
})

/**
 * apps/cli/README.md stays true: every flag its examples use is in that command's help, the examples that
 * need no files run as written, and the validate example prints what its comments say.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { root, toolgate } from "./toolgate.js"

const readme = readFileSync(resolve(root, "apps/cli/README.md"), "utf8")
const blocks = Array.from(readme.matchAll(/```sh\n([\s\S]*?)```/g), (m) => m[1]!)

/** A shell line's words: plain words and '…' / "…" quoted ones (enough for the README), up to a comment. */
const words = (line: string): Array<string> =>
  Array.from(line.replace(/\s+#.*$/, "").matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g), (m) => m[1] ?? m[2] ?? m[3]!)

const examples = blocks.flatMap((block) => {
  const lines = block.split("\n")
  return lines.flatMap((line, i) => {
    if (!line.startsWith("npx toolgate ")) return []
    const expected = lines.slice(i + 1).filter((_, j, rest) => rest.slice(0, j + 1).every((l) => l.startsWith("# "))).map((l) => l.slice(2))
    return [{ line, args: words(line).slice(2), expected }]
  })
})

describe("apps/cli/README.md examples", () => {
  it("has examples for every command", () => {
    for (const command of ["demo", "check", "serve", "validate", "examples", "subschema", "normalize", "sessions"]) {
      assert.strictEqual(examples.some((e) => e.args[0] === command), true, command)
    }
  })

  it("uses only flags each command's help lists", () => {
    const helps = new Map<string, string>()
    for (const example of examples) {
      // a grouped command's flags are on its subcommand's page (`sessions list --help`)
      const path = ["sessions", "mcp"].includes(example.args[0]!) ? example.args.slice(0, 2) : example.args.slice(0, 1)
      const command = path.join(" ")
      if (!helps.has(command)) helps.set(command, toolgate(...path, "--help").stdout)
      for (const flag of example.args.filter((a) => a.startsWith("--"))) {
        assert.match(helps.get(command) ?? "", new RegExp(`^${flag.replace(/[-]/g, "\\-")}( |$)`, "m"), `${example.line}: ${flag}`)
      }
    }
  })

  it("the examples that need no file run as written and print what their comments say", () => {
    const inline = examples.filter((e) => e.args.some((a) => a.endsWith("-json")) && !e.args.some((a) => a.endsWith(".json")))
    assert.isAtLeast(inline.length, 2)
    for (const example of inline) {
      const run = toolgate(...example.args)
      assert.strictEqual(run.code, 0, `${example.line}\n${run.stderr}`)
      for (const line of example.expected) assert.include(run.stdout, line, example.line)
    }
    assert.include(inline.flatMap((e) => e.expected), "executor receives: {\"n\":15}")
  })
})

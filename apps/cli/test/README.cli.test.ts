/**
 * apps/cli/README.md stays true: every flag its examples use is in that command's help, the examples that
 * need no files run as written, and the validate example prints what its comments say.
 */
import { describe, expect, it } from "@effect/vitest"
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
    for (const command of ["demo", "check", "serve", "validate", "examples", "subschema", "normalize"]) {
      expect(examples.some((e) => e.args[0] === command), command).toBe(true)
    }
  })

  it("uses only flags each command's help lists", () => {
    const helps = new Map<string, string>()
    for (const example of examples) {
      const command = example.args[0]!
      if (!helps.has(command)) helps.set(command, toolgate(command, "--help").stdout)
      for (const flag of example.args.filter((a) => a.startsWith("--"))) {
        expect(helps.get(command), `${example.line}: ${flag}`).toMatch(new RegExp(`^${flag.replace(/[-]/g, "\\-")}( |$)`, "m"))
      }
    }
  })

  it("the examples that need no file run as written and print what their comments say", () => {
    const inline = examples.filter((e) => e.args.some((a) => a.endsWith("-json")) && !e.args.some((a) => a.endsWith(".json")))
    expect(inline.length).toBeGreaterThanOrEqual(2)
    for (const example of inline) {
      const run = toolgate(...example.args)
      expect(run.code, `${example.line}\n${run.stderr}`).toBe(0)
      for (const line of example.expected) expect(run.stdout, example.line).toContain(line)
    }
    expect(inline.flatMap((e) => e.expected)).toContain("executor receives: {\"n\":15}")
  })
})

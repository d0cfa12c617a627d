/**
 * Loads the official JSON-Schema-Test-Suite (draft 2020-12) from the shared corpus and runs its cases
 * through a `Validator` instance that serves the suite's remotes under `http://localhost:1234/`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Either } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Validator from "../src/Validator.js"
import { corpus } from "@toolgate/test-support/corpus"

export { corpus, type Tool, tools } from "@toolgate/test-support/corpus"

const suite = path.join(corpus, "json-schema-test-suite")

interface Case {
  readonly description: string
  readonly data: unknown
  readonly valid: boolean
}
interface Group {
  readonly description: string
  readonly schema: JsonSchema.JsonSchema
  readonly tests: ReadonlyArray<Case>
}

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : []
  )

/** Every remote, keyed by the URI the suite expects it under. */
export const remotes = (): Record<string, JsonSchema.JsonSchema> => {
  const root = path.join(suite, "remotes")
  const out: Record<string, JsonSchema.JsonSchema> = {}
  for (const file of walk(root)) {
    out[`http://localhost:1234/${path.relative(root, file).split(path.sep).join("/")}`] = JSON.parse(fs.readFileSync(file, "utf8"))
  }
  return out
}

/** The outcome of running some suite files: how many cases ran and which failed (`file › group › case`). */
export interface Outcome {
  readonly ran: number
  readonly failed: ReadonlyArray<string>
}

/** Runs every case of the given files (relative to `tests/draft2020-12/`). */
export const run = (validator: Validator.Validator, files: ReadonlyArray<string>): Outcome => {
  let ran = 0
  const failed: Array<string> = []
  for (const file of files) {
    const groups: ReadonlyArray<Group> = JSON.parse(fs.readFileSync(path.join(suite, "tests/draft2020-12", file), "utf8"))
    for (const g of groups) {
      const compiled = validator.compile(g.schema)
      for (const t of g.tests) {
        ran++
        const name = `${file} › ${g.description} › ${t.description}`
        if (Either.isLeft(compiled)) failed.push(`${name} (schema error: ${compiled.left.message})`)
        else if (!agrees(compiled.right, t)) failed.push(name)
      }
    }
  }
  return { ran, failed }
}

/** Whether both `isValid` (raw Ajv, which may throw) and `validate` (which may not) give the suite's answer. */
const agrees = (c: Validator.Compiled, t: Case): boolean => {
  let raw: boolean | "threw"
  try {
    raw = c.isValid(t.data)
  } catch {
    raw = "threw"
  }
  return raw === t.valid && (c.validate(t.data).length === 0) === t.valid
}

/** The `.json` files directly in a suite folder, relative to `tests/draft2020-12/`. */
export const files = (sub: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(suite, "tests/draft2020-12", sub)).filter((f) => f.endsWith(".json")).sort().map((f) => path.posix.join(sub, f))

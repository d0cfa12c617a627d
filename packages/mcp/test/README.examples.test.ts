/**
 * The example in packages/mcp/README.md runs as written (the rule: packages/test-support/src/readmeExamples.ts):
 * it spawns the real filesystem server on a temporary directory.
 */
import { describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")

describe("README.md examples", () => {
  for (const example of examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))) {
    it(`example ${example.index + 1}: ${example.firstLine}`, () => check(example, packageDir, process.env), 90_000)
  }
})

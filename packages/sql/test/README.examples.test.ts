/**
 * The examples in packages/sql/README.md and docs/reference.md run as written (the rule:
 * packages/test-support/src/readmeExamples.ts): the SQLite one on a file in a temporary directory.
 */
import { describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const inReadme = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
const inReference = examples(fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8"))
  .map((e) => ({ ...e, index: e.index + inReadme.length }))

describe("README.md and docs/reference.md examples", () => {
  for (const example of [...inReadme, ...inReference]) {
    it(`example ${example.index + 1}: ${example.firstLine}`, () => check(example, packageDir, process.env), 90_000)
  }
})

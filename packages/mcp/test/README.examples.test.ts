/**
 * The examples in packages/mcp/README.md and docs/reference.md run as written (the rule:
 * packages/test-support/src/readmeExamples.ts): they spawn the real filesystem, memory and everything servers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const inReadme = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
// numbered after the README's, so no two examples share a file name
const inReference = examples(fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8"))
  .map((e) => ({ ...e, index: e.index + inReadme.length }))

describe("README.md and docs/reference.md examples", () => {
  it("the reference has an example with stated outputs", () => {
    assert.isAtLeast(inReference.length, 1)
    assert.isAtLeast(inReference.flatMap((e) => e.expectations).length, 5)
  })

  for (const [file, found] of [["README.md", inReadme], ["docs/reference.md", inReference]] as const) {
    for (const example of found) {
      it(`${file} example ${example.index + 1}: ${example.firstLine}`, () => check(example, packageDir, process.env), 90_000)
    }
  }
})

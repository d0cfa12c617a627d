/**
 * The examples in the repository's README.md run as written (the rule: packages/test-support/src/readmeExamples.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"
import { root } from "./toolgate.js"

const found = examples(fs.readFileSync(path.join(root, "README.md"), "utf8"))

describe("README.md (the repository's) examples", () => {
  it("has the app example, with stated outputs", () => {
    assert.isAtLeast(found.length, 1)
    assert.isAtLeast(found.flatMap((e) => e.expectations).length, 3)
  })

  for (const example of found) {
    it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      check(example, root, process.env), 90_000)
  }
})

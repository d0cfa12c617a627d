/**
 * The examples in packages/json-schema/README.md run as written (the rule: packages/test-support/src/readmeExamples.ts).
 * They need nothing but the package: every function here is pure.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const found = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))

describe("README.md examples", () => {
  it("the README has a runnable example with stated outputs", () => {
    assert.isAtLeast(found.length, 1)
    assert.isTrue(found.some((e) => e.expectations.length >= 5))
  })

  for (const example of found) {
    it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      check(example, packageDir, process.env), 90_000)
  }
})

/**
 * The examples in packages/ai-sdk/README.md run as written (the rule: the runtime's
 * packages/test-support/src/readmeExamples.ts). They need no server: the model is the AI SDK's own `MockLanguageModelV4`.
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
    assert.isTrue(found.every((e) => e.expectations.length >= 4))
  })

  for (const example of found) {
    it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      check(example, packageDir, process.env), 90_000)
  }
})

/**
 * The examples in apps/relay/README.md run as written (the rule: packages/test-support/src/readmeExamples.ts)
 * against the relay each starts on a free loopback port. The first example (`Relay.layer` on port 8787) serves
 * until Ctrl-C, as `toolgate serve` does: it states no output and is not run here.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const all = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
const found = all.filter((e) => e.expectations.length > 0)

describe("README.md examples", () => {
  it("the README has a runnable example with stated outputs; the one that serves until Ctrl-C is the only other", () => {
    assert.isAtLeast(found.length, 1)
    assert.isTrue(found.some((e) => e.expectations.length >= 3))
    assert.deepStrictEqual(all.filter((e) => e.expectations.length === 0).map((e) => e.index), [0])
  })

  for (const example of found) {
    it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      check(example, packageDir, process.env), 90_000)
  }
})

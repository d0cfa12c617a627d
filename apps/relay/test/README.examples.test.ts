/**
 * The examples in apps/relay/README.md and docs/reference.md run as written (the rule:
 * packages/test-support/src/readmeExamples.ts) against the relay each starts on a free loopback port. The
 * reference's first example (`Relay.layer` on port 8787) serves until Ctrl-C, as `toolgate serve` does: it
 * runs on a free port instead, is asked its capabilities and its broken scenario's over loopback, and is stopped.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples, serve } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const inReadme = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
// numbered after the README's, so no two examples share a file name
const inReference = examples(fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8"))
  .map((e) => ({ ...e, index: e.index + inReadme.length }))
const serving = {
  index: inReadme.length,
  port: 8787,
  answers: [
    ["/v1/agent/capabilities", "{\"capabilities_version\":\"1.0\",…\"get_weather\"…"],
    ["/scenarios/broken/v1/agent/capabilities", "{\"capabilities_version\":\"1.0\",\"tool_schemas\":\"not an object: the relay's malformed fault\"}"]
  ] as const
}

describe("README.md examples", () => {
  it("the README has one example with stated outputs; the reference's first serves and states none", () => {
    assert.strictEqual(inReadme.length, 1)
    assert.isAtLeast(inReadme[0]!.expectations.length, 3)
    assert.strictEqual(inReference[0]?.expectations.length, 0)
  })

  for (const example of [...inReadme, ...inReference]) {
    if (example.index === serving.index) {
      it(`example ${example.index + 1} (${example.firstLine}) serves what the reference says over loopback`, () =>
        serve(example, packageDir, serving), 90_000)
    } else {
      it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
        check(example, packageDir, process.env), 90_000)
    }
  }
})

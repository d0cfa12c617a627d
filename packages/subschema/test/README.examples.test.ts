/**
 * The example in packages/subschema/README.md runs as written (the rule: packages/test-support/src/readmeExamples.ts),
 * and its module table names every module `src/index.ts` exports, and nothing else.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")

describeReadme(packageDir, { minOutputs: 5 })

describe("README.md module table", () => {
  it("lists exactly the modules the package exports", () => {
    const readme = fs.readFileSync(path.join(packageDir, "README.md"), "utf8")
    const index = fs.readFileSync(path.join(packageDir, "src/index.ts"), "utf8")
    const exported = [...index.matchAll(/^export \* as (\w+) from/gm)].map((m) => m[1]!).sort()
    const listed = [...readme.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]!).sort()
    assert.isAbove(exported.length, 0)
    assert.deepStrictEqual(listed, exported)
  })
})

/**
 * The examples in packages/runtime/README.md and docs/reference.md run as written (the rule:
 * packages/test-support/src/readmeExamples.ts), with `TOOLGATE_RELAY_URL` pointing at a loopback relay that
 * exports the reference's `get_weather` schema.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { check, examples, matches } from "@toolgate/test-support/readmeExamples"

const packageDir = path.resolve(import.meta.dirname, "..")
const readme = fs.readFileSync(path.join(packageDir, "README.md"), "utf8")
const reference = fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8")

/** The reference's "Proven" profile, served on loopback for the examples that read `TOOLGATE_RELAY_URL`. */
const profile = {
  capabilities_version: "1.0",
  tool_schemas: {
    get_weather: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }
  }
}

let server: http.Server | undefined
let relayUrl = ""

beforeAll(() =>
  new Promise<void>((resolve) => {
    server = http.createServer((req, res) => {
      const found = req.url === "/v1/agent/capabilities"
      res.writeHead(found ? 200 : 404, { "content-type": "application/json" })
      res.end(JSON.stringify(found ? profile : { error: { message: "not found", type: "not_found" } }))
    })
    server.listen(0, "127.0.0.1", () => {
      relayUrl = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`
      resolve()
    })
  }))

afterAll(() =>
  new Promise<void>((resolve) => {
    server?.closeAllConnections()
    server?.close(() => resolve())
  }))

describe("README.md examples", () => {
  it("the rule: `…` matches any characters, in order, and nothing else does", () => {
    assert.isTrue(matches("a…c", "abbbc"))
    assert.isTrue(matches("a…b…c", "a-b-c"))
    assert.isTrue(matches("[… 3 …]", "[… 3 …]"))
    assert.isFalse(matches("a…c", "ac-"))
    assert.isFalse(matches("ab…bc", "abc"))
    assert.isFalse(matches("a…b…c", "a-c-b"))
    assert.isFalse(matches("exact", "exact "))
  })

  const inReadme = examples(readme)
  // numbered after the README's, so no two examples share a file name
  const inReference = examples(reference).map((e) => ({ ...e, index: e.index + inReadme.length }))
  it("the README has an example with stated outputs, and so does the reference", () => {
    assert.strictEqual(inReadme.length, 1)
    assert.isAtLeast(inReadme[0]!.expectations.length, 7)
    assert.isAtLeast(inReference.length, 3)
    assert.isAtLeast(inReference.flatMap((e) => e.expectations).length, 6)
  })

  for (const [file, found] of [["README.md", inReadme], ["docs/reference.md", inReference]] as const) {
    for (const example of found) {
      it(`${file} example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
        check(example, packageDir, { ...process.env, TOOLGATE_RELAY_URL: relayUrl }), 90_000)
    }
  }
})

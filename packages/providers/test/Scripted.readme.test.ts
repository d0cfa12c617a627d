/**
 * The examples in packages/providers/README.md and docs/reference.md run as written (the rule: the runtime's
 * packages/test-support/src/readmeExamples.ts), with `TOOLGATE_RELAY_URL` pointing at a loopback relay that answers the
 * capabilities probe and echoes the tool names a turns request carried.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"
import * as RelayWire from "../src/RelayWire.js"

const packageDir = path.resolve(import.meta.dirname, "..")
const readme = fs.readFileSync(path.join(packageDir, "README.md"), "utf8")
const reference = fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8")

const inReadme = examples(readme)
// numbered after the README's, so no two examples share a file name
const inReference = examples(reference).map((e) => ({ ...e, index: e.index + inReadme.length }))
const found = [...inReadme, ...inReference]

let server: http.Server | undefined
let relayUrl = ""

beforeAll(() =>
  new Promise<void>((resolve) => {
    server = http.createServer((req, res) => {
      const parts: Array<Buffer> = []
      req.on("data", (part: Buffer) => parts.push(part))
      req.on("end", () => {
        if (req.url === "/v1/agent/capabilities") {
          res.writeHead(200, { "content-type": "application/json" })
          return void res.end(JSON.stringify({ capabilities_version: "1.0", tool_schemas: { get_weather: { type: "object" } } }))
        }
        const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { readonly tools: unknown }
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(RelayWire.encodeEvent({ _tag: "TextDelta", text: `the relay got tools: ${JSON.stringify(body.tools)}` }))
        res.end(RelayWire.encodeEvent({ _tag: "Done" }))
      })
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
  it("the README has one runnable example, the reference more, all with stated outputs", () => {
    assert.strictEqual(inReadme.length, 1)
    assert.isAtLeast(inReference.length, 2)
    assert.isTrue(found.every((e) => e.expectations.length > 0))
  })

  for (const example of found) {
    it(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      check(example, packageDir, { ...process.env, TOOLGATE_RELAY_URL: relayUrl }), 90_000)
  }
})

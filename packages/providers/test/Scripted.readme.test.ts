/**
 * The examples in packages/providers/README.md run as written: each ```ts block starting with `import` is
 * written next to the README, run with `npx tsx` (with `TOOLGATE_RELAY_URL` pointing at a loopback relay
 * that answers the capabilities probe and echoes the tool names a turns request carried), and must exit 0
 * printing, in order, exactly the `// ` lines that follow its `console.log(…)` lines.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as RelayWire from "../src/RelayWire.js"

const packageDir = path.resolve(import.meta.dirname, "..")
const readme = fs.readFileSync(path.join(packageDir, "README.md"), "utf8")

/** Each runnable block and the output its comments state. */
const examples = Array.from(readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm), (m) => m[1]!)
  .filter((block) => block.startsWith("import "))
  .map((source) => {
    const lines = source.split("\n")
    const expected = lines.flatMap((line, i) =>
      line.trim().startsWith("console.log(") && lines[i + 1]?.trim().startsWith("// ") ? [lines[i + 1]!.trim().slice(3)] : []
    )
    return { source, expected }
  })

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

const run = (file: string): Promise<{ readonly code: unknown; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve) => {
    execFile("npx", ["tsx", file], { cwd: packageDir, env: { ...process.env, TOOLGATE_RELAY_URL: relayUrl }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : error.code ?? error.signal, stdout, stderr })
    })
  })

describe("README.md examples", () => {
  it("the README has runnable examples with stated outputs", () => {
    assert.isAtLeast(examples.length, 2)
    assert.isTrue(examples.every((e) => e.expected.length > 0))
  })

  examples.forEach((example, index) => {
    it(`example ${index + 1} runs and prints what its comments say`, async () => {
      const file = path.join(packageDir, `.readme-example-${index + 1}.ts`)
      fs.writeFileSync(file, example.source)
      try {
        const result = await run(file)
        const report = `\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
        assert.strictEqual(result.code, 0, report)
        assert.deepStrictEqual(result.stdout.trimEnd().split("\n"), example.expected, report)
      } finally {
        fs.rmSync(file, { force: true })
      }
    }, 90_000)
  })
})

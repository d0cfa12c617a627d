import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createMcpHandler, Server as ModernServer } from "@modelcontextprotocol/server"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { root, toolgateAsync as toolgate } from "./toolgate.js"

const require = createRequire(import.meta.url)
const tsx = pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist", "loader.mjs")).href
const fixture = resolve(root, "packages/mcp/test/fixtures/server.ts")

const weather = {
  name: "get_weather",
  description: "The forecast for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } }, required: ["city"] }
}

let dir = ""
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-mcp-cli-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The fixture server's command line with `tools` (a file beside the lock; the path holds a space and a quote). */
const server = (name: string, tools: ReadonlyArray<unknown>): string => {
  const config = join(dir, `${name} it's.json`)
  writeFileSync(config, JSON.stringify({ tools }))
  return `"${process.execPath}" --import ${tsx} ${fixture} "${config.replace(/["\\$`]/g, "\\$&")}"`
}

describe("toolgate mcp lock and check --mcp (the process)", () => {
  it("locks a live server, then proves it: 0 unchanged or widened, 1 drift with a witness, --json the relay's shape", async () => {
    const lock = join(dir, "toolgate.lock.json")
    const locked = await toolgate("mcp", "lock", "--server", server("v1", [weather, { ...weather, name: "other" }]), "--lock", lock)
    assert.strictEqual(locked.code, 0, locked.stderr)
    assert.include(locked.stdout, "locked 2 tools of toolgate-fixture (scope default)")
    const file = JSON.parse(readFileSync(lock, "utf8"))
    assert.deepStrictEqual(Object.keys(file.servers["toolgate-fixture"].default.tools), ["get_weather", "other"])

    const same = await toolgate("check", "--mcp", server("same", [weather, { ...weather, name: "other" }]), "--lock", lock)
    assert.strictEqual(same.code, 0, same.stdout + same.stderr)
    assert.include(same.stdout, "2 proven, 0 drifted, 0 unknown, 0 unsupported")

    const wider = { ...weather, inputSchema: { ...weather.inputSchema, required: [] } }
    const widened = await toolgate("check", "--mcp", server("wide", [wider, { ...weather, name: "other" }, { ...weather, name: "brand_new" }]), "--lock", lock)
    assert.strictEqual(widened.code, 0, widened.stdout)
    assert.include(widened.stdout, "brand_new")

    const narrowed = { ...weather, description: "Changed.", inputSchema: { ...weather.inputSchema, required: ["city", "days"] } }
    const drift = await toolgate("check", "--mcp", server("narrow", [narrowed]), "--lock", lock)
    assert.strictEqual(drift.code, 1, drift.stdout)
    assert.include(drift.stdout, "witness (the lock accepts it, the server rejects it)")
    assert.include(drift.stdout, "removed")
    assert.include(drift.stdout, "the description of get_weather changed")
    const json = await toolgate("check", "--mcp", server("narrow", [narrowed]), "--lock", lock, "--json")
    assert.strictEqual(json.code, 1)
    const report = JSON.parse(json.stdout)
    assert.deepInclude(report, { _tag: "Checked", exitCode: 1, summary: { proven: 0, drifted: 2, unknown: 0, unsupported: 0 } })
    assert.deepStrictEqual(report.rows.map((r: { tool: string }) => r.tool), ["get_weather", "other"])
    assert.deepStrictEqual(report.mcp.described, ["get_weather"])
  })

  it("locks and checks a server over Streamable HTTP (--url, --mcp-url, --header)", async () => {
    let tools: ReadonlyArray<typeof weather> = [weather]
    const httpServer = http.createServer((req, res) => {
      if (req.headers.authorization !== "Bearer reader-token") return void res.writeHead(401).end()
      const mcp = new Server({ name: "http-fixture", version: "2.0.0" }, { capabilities: { tools: {} } })
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...tools] }))
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
      res.on("close", () => void transport.close())
      void mcp.connect(transport).then(() => transport.handleRequest(req, res))
    })
    await new Promise<void>((done) => httpServer.listen(0, "127.0.0.1", done))
    try {
      const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`
      const lock = join(dir, "http.lock.json")
      const auth = ["--header", "Authorization: Bearer reader-token"]
      const refused = await toolgate("mcp", "lock", "--url", url, "--lock", lock, "--json")
      assert.notStrictEqual(refused.code, 0)
      const locked = await toolgate("mcp", "lock", "--url", url, ...auth, "--lock", lock, "--scope", "reader", "--json")
      assert.strictEqual(locked.code, 0, locked.stderr)
      assert.deepInclude(JSON.parse(locked.stdout), { _tag: "Locked", server: "http-fixture", scope: "reader", tools: ["get_weather"] })
      assert.notInclude(readFileSync(lock, "utf8"), "reader-token")
      assert.strictEqual((await toolgate("check", "--mcp-url", url, ...auth, "--lock", lock, "--scope", "reader")).code, 0)
      assert.strictEqual((await toolgate("check", "--mcp-url", url, ...auth, "--lock", lock)).code, 4)
      assert.strictEqual((await toolgate("check", "--mcp-url", url, "--header", "no colon", "--lock", lock)).code, 4)
      tools = []
      const removed = await toolgate("check", "--mcp-url", url, ...auth, "--lock", lock, "--scope", "reader", "--json")
      assert.strictEqual(removed.code, 1)
      assert.include(JSON.parse(removed.stdout).rows[0].reasons[0].message, "removed")
    } finally {
      await new Promise((done) => httpServer.close(done))
    }
  })

  it("locks and checks a server that speaks only the stateless revision (2026-07-28) over Streamable HTTP", async () => {
    let tools: ReadonlyArray<typeof weather> = [weather, { ...weather, name: "other" }]
    const handler = createMcpHandler(() => {
      const mcp = new ModernServer({ name: "modern-fixture", version: "3.0.0" }, { capabilities: { tools: {} } })
      mcp.setRequestHandler("tools/list", () => ({ tools: tools.map((tool) => ({ ...tool, inputSchema: { ...tool.inputSchema, type: "object" as const } })) }))
      return mcp
    }, { legacy: "reject" })
    const httpServer = http.createServer(async (req, res) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const headers = new Headers()
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value)
      const body = req.method === "POST" ? { body: Buffer.concat(chunks) } : {}
      const response = await handler.fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...body }))
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(Buffer.from(await response.arrayBuffer()))
    })
    await new Promise<void>((done) => httpServer.listen(0, "127.0.0.1", done))
    try {
      const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`
      const lock = join(dir, "modern.lock.json")
      const locked = await toolgate("mcp", "lock", "--url", url, "--lock", lock, "--json")
      assert.strictEqual(locked.code, 0, locked.stderr)
      assert.deepInclude(JSON.parse(locked.stdout), { _tag: "Locked", server: "modern-fixture", tools: ["get_weather", "other"] })
      const same = await toolgate("check", "--mcp-url", url, "--lock", lock)
      assert.strictEqual(same.code, 0, same.stderr)
      assert.strictEqual((await toolgate("check", "--mcp-url", url, "--lock", lock, "--mcp-protocol", "modern")).code, 0)
      // asked to speak only the older revisions, the server's -32022 refusal: reached, and it refused (2)
      const legacy = await toolgate("mcp", "lock", "--url", url, "--lock", lock, "--protocol", "legacy", "--json")
      assert.strictEqual(legacy.code, 2, legacy.stdout + legacy.stderr)
      assert.include(legacy.stdout, "-32022")
      assert.strictEqual((await toolgate("check", "--mcp-url", url, "--lock", lock, "--mcp-protocol", "legacy")).code, 2)
      tools = [weather]
      assert.strictEqual((await toolgate("check", "--mcp-url", url, "--lock", lock)).code, 1)
    } finally {
      await handler.close()
      httpServer.closeAllConnections()
      await new Promise((done) => httpServer.close(done))
    }
  })

  it("exits 3 for a server that cannot start, 4 for bad input and a lock without the entry", async () => {
    const lock = join(dir, "other.lock.json")
    assert.strictEqual((await toolgate("mcp", "lock", "--server", server("v1", [weather]), "--lock", lock, "--name", "weather")).code, 0)
    const missing = await toolgate("check", "--mcp", "/nonexistent/toolgate-mcp-server", "--lock", lock, "--json")
    assert.strictEqual(missing.code, 3, missing.stdout + missing.stderr)
    assert.deepInclude(JSON.parse(missing.stdout), { _tag: "Unreachable", exitCode: 3 })
    const unnamed = await toolgate("check", "--mcp", server("v1", [weather]), "--lock", lock)
    assert.strictEqual(unnamed.code, 4)
    assert.include(unnamed.stderr, "no entry for the server \"toolgate-fixture\"")
    assert.strictEqual((await toolgate("check", "--mcp", server("v1", [weather]), "--lock", lock, "--name", "weather")).code, 0)
    assert.strictEqual((await toolgate("check", "--mcp", "node 'unclosed", "--lock", lock)).code, 4)
    assert.strictEqual((await toolgate("check", "--mcp", "node", "--mcp-url", "http://127.0.0.1:1/mcp", "--lock", lock)).code, 4)
    assert.strictEqual((await toolgate("check", "--mcp", "node", "--lock", join(dir, "none.json"))).code, 4)
    assert.strictEqual((await toolgate("mcp", "lock", "--url", "ftp://x")).code, 4)
    // a revision the CLI does not know is refused before any server is started
    const unknown = await toolgate("mcp", "lock", "--server", server("v1", [weather]), "--lock", lock, "--protocol", "2026")
    assert.notStrictEqual(unknown.code, 0)
    assert.include(unknown.stdout + unknown.stderr, "auto")
    // asked for the stateless revision only, a server of the older ones breaks the protocol (2)
    assert.strictEqual((await toolgate("check", "--mcp", server("v1", [weather]), "--lock", lock, "--name", "weather", "--mcp-protocol", "modern")).code, 2)
  })
})

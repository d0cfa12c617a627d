/**
 * Servers of MCP's stateless revision (2026-07-28, no `initialize`), built with `@modelcontextprotocol/server`
 * 2.4 and served over Streamable HTTP on loopback. The connection's client (`@modelcontextprotocol/sdk` 1.32)
 * speaks revisions up to 2025-11-25 only: a dual-era server answers it under the older revision; a
 * modern-only one refuses its `initialize`, and that is a typed failure naming the versions the server speaks,
 * never a hang or a defect.
 */
import { assert, describe, it } from "@effect/vitest"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as z from "zod/v4"
import { McpConnection } from "../src/index.js"

/** A 2026-07-28 server on loopback with one tool; `legacy: "reject"` makes it modern-only. */
const serve = (legacy: "stateless" | "reject") =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: http.Server; readonly close: () => Promise<void> }>((resume) => {
      const handler = createMcpHandler(() => {
        const server = new McpServer({ name: "stateless-fixture", version: "2.0.0" })
        server.registerTool("get_weather", { description: "The forecast for a city.", inputSchema: z.object({ city: z.string() }) }, ({ city }) =>
          Promise.resolve({ content: [{ type: "text" as const, text: `Sunny in ${city}` }] }))
        return server
      }, { legacy })
      const server = http.createServer(async (req, res) => {
        const chunks: Array<Buffer> = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const headers = new Headers()
        for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value)
        const hasBody = req.method !== "GET" && req.method !== "HEAD"
        const response = await handler.fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) }))
        res.writeHead(response.status, Object.fromEntries(response.headers))
        res.end(Buffer.from(await response.arrayBuffer()))
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
          server,
          close: () => handler.close()
        })))
    }),
    ({ close, server }) =>
      Effect.promise(async () => {
        await close()
        server.closeAllConnections()
        await new Promise((done) => server.close(done))
      })
  )

describe("McpConnection and servers of the stateless revision", () => {
  it.live("a dual-era server answers under the older revision: its tools are listed and called", () =>
    Effect.gen(function*() {
      const { url } = yield* serve("stateless")
      const connection = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url } })
      const listing = yield* connection.listTools
      assert.deepStrictEqual(listing.tools.map((t) => t.name), ["get_weather"])
      const result = yield* connection.callTool("get_weather", { city: "Oslo" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Sunny in Oslo" }])
    }).pipe(Effect.scoped))

  it.live("a modern-only server refuses initialize: a typed failure naming its -32022 answer and its versions", () =>
    Effect.gen(function*() {
      const { url } = yield* serve("reject")
      const error = yield* Effect.flip(McpConnection.make({ server: { _tag: "StreamableHttp", url }, limits: { connectTimeout: "10 seconds" } }))
      assert.strictEqual(error._tag, "McpServerError")
      assert.strictEqual(error._tag === "McpServerError" ? error.operation : "", "initialize")
      assert.strictEqual(error._tag === "McpServerError" ? error.code : 0, -32022)
      assert.include(error.message, "2026-07-28")
    }).pipe(Effect.scoped))
})

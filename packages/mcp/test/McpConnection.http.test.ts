import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { McpConnection } from "../src/index.js"
import { weather } from "./support.js"

/** A stateless Streamable HTTP server on loopback whose one tool has `description`; it records each request's authorization header. */
const serve = (description: string) =>
  Effect.gen(function*() {
    const auth: Array<string | undefined> = []
    const server = http.createServer((req, res) => {
      auth.push(req.headers.authorization)
      const mcp = new Server({ name: "http-fixture", version: "2.0.0" }, { capabilities: { tools: {} } })
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ ...weather, description }] }))
      mcp.setRequestHandler(CallToolRequestSchema, async (r) => ({ content: [{ type: "text", text: JSON.stringify(r.params.arguments) }] }))
      // no session id generator: stateless, a server per request
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
      res.on("close", () => void transport.close())
      void mcp.connect(transport).then(() => transport.handleRequest(req, res))
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    )
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, auth }
  })

describe("McpConnection over Streamable HTTP", () => {
  it.scopedLive("lists and calls over a real loopback socket, sending the headers given", () =>
    Effect.gen(function*() {
      const { auth, url } = yield* serve("The forecast.")
      const connection = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url, headers: { authorization: "Bearer t0ken" } } })
      assert.deepStrictEqual(connection.serverInfo, { name: "http-fixture", version: "2.0.0" })
      const { tools } = yield* connection.listTools
      assert.deepStrictEqual(tools.map((t) => t.name), ["get_weather"])
      const result = yield* connection.callTool("get_weather", { city: "Oslo" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: `{"city":"Oslo"}` }])
      assert.isTrue(auth.length > 0 && auth.every((a) => a === "Bearer t0ken"))
      assert.notInclude(connection.label, "t0ken")
    }))

  it.scopedLive("a response past the byte limit is McpLimitExceeded", () =>
    Effect.gen(function*() {
      const { url } = yield* serve("x".repeat(2 * 1024 * 1024))
      const connection = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url }, limits: { maxMessageBytes: 1024 * 1024 } })
      const error = yield* Effect.flip(connection.listTools)
      assert.strictEqual(error._tag, "McpLimitExceeded", error.message)
    }))

  it.scopedLive("nothing listening is McpUnavailable", () =>
    Effect.gen(function*() {
      const { url } = yield* serve("")
      const closed = url.replace(/:\d+\//, ":1/")
      const error = yield* Effect.flip(McpConnection.make({ server: { _tag: "StreamableHttp", url: closed } }))
      assert.strictEqual(error._tag, "McpUnavailable")
    }))
})

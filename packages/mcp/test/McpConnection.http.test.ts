import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Queue } from "effect"
import { randomUUID } from "node:crypto"
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

/**
 * A stateful Streamable HTTP server on loopback (answers as event streams) with two tools: `flood` sends, once
 * the client's GET event stream is open, `count` logging notifications of `bytes` each on it and then
 * `notifications/tools/list_changed`; `big` answers with a result of `bytes` characters.
 */
const serveStateful = Effect.gen(function*() {
  const transports = new Map<string, StreamableHTTPServerTransport>()
  let streamOpen: () => void = () => {}
  const opened = new Promise<void>((resolve) => streamOpen = resolve)
  const newSession = () => {
    const mcp = new Server({ name: "stateful-fixture", version: "1.0.0" }, { capabilities: { tools: { listChanged: true }, logging: {} } })
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [weather] }))
    mcp.setRequestHandler(CallToolRequestSchema, async (r) => {
      const { bytes, count } = r.params.arguments as { count: number; bytes: number }
      if (r.params.name === "big") return { content: [{ type: "text", text: "x".repeat(bytes) }] }
      await opened
      for (let i = 0; i < count; i++) await mcp.sendLoggingMessage({ level: "info", data: `${i} ${"x".repeat(bytes)}` })
      await mcp.sendToolListChanged()
      return { content: [{ type: "text", text: "flooded" }] }
    })
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport)
    })
    void mcp.connect(transport)
    return transport
  }
  const server = http.createServer((req, res) => {
    const id = req.headers["mcp-session-id"]
    const transport = typeof id === "string" ? transports.get(id) : newSession()
    if (transport === undefined) return void res.writeHead(404).end()
    // the GET event stream is open once its headers are out (handleRequest settles only when it ends)
    if (req.method === "GET") {
      const poll = setInterval(() => {
        if (res.headersSent) clearInterval(poll), streamOpen()
      }, 5)
      res.once("close", () => clearInterval(poll))
    }
    void transport.handleRequest(req, res)
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () =>
      Effect.async<void>((resume) => {
        for (const transport of transports.values()) void transport.close()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

describe("McpConnection over Streamable HTTP", () => {
  it.scopedLive("a long-lived event stream carrying more than maxMessageBytes in small notifications delivers all of them", () =>
    Effect.gen(function*() {
      const url = yield* serveStateful
      const maxMessageBytes = 16 * 1024
      const connection = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url }, limits: { maxMessageBytes } })
      assert.isTrue(connection.announcesListChanged)
      const changed = yield* connection.listChanged
      // 64 notifications of 1 KiB: four times the limit in total on the one GET stream
      const flooded = yield* connection.callTool("flood", { count: 64, bytes: 1024 })
      assert.deepStrictEqual(flooded.content, [{ type: "text", text: "flooded" }])
      // the list_changed after the flood arrives (the hang guard only stops a failing run)
      yield* Queue.take(changed).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "list_changed never arrived" }))
      const { tools } = yield* connection.listTools
      assert.deepStrictEqual(tools.map((t) => t.name), ["get_weather"])
    }))

  it.scopedLive("one server-sent event past maxMessageBytes is McpLimitExceeded", () =>
    Effect.gen(function*() {
      const url = yield* serveStateful
      const connection = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url }, limits: { maxMessageBytes: 16 * 1024 } })
      const small = yield* connection.callTool("big", { bytes: 8 * 1024 })
      assert.isFalse(small.isError)
      const error = yield* Effect.flip(connection.callTool("big", { bytes: 32 * 1024 }, { timeout: "20 seconds" }))
      assert.strictEqual(error._tag, "McpLimitExceeded", error.message)
    }))

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

/**
 * Servers of MCP's stateless revision (2026-07-28, no `initialize`), built with `@modelcontextprotocol/server` 2.4,
 * over Streamable HTTP on loopback and over stdio: a modern-only server is listed (its `ttlMs` and `cacheScope`
 * read) and called, on one process; a dual-era one is spoken to in the revision `protocol` asks for; a proxy
 * fronts a modern-only upstream; endpoints that answer the probe badly fail typed, within the connect timeout.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { McpConnection, McpProxy } from "../src/index.js"
import { call, clientOver } from "./McpProxySupport.js"
import { hostile, serveHttp, stdio } from "./stateless.js"
import { fixture, weather } from "./support.js"

type Server = McpConnection.OptionsInput["server"]

/** Lists and calls `server` in `protocol`, as a modern-only server must be answered. */
const listsAndCalls = (server: Server, protocol?: McpConnection.Protocol) =>
  Effect.gen(function*() {
    const connection = yield* McpConnection.make({ server, ...(protocol === undefined ? {} : { protocol }) })
    assert.strictEqual(connection.protocolVersion, "2026-07-28")
    assert.deepStrictEqual(connection.serverInfo, { name: "stateless-fixture", version: "2.0.0" })
    const listing = yield* connection.listTools
    assert.deepStrictEqual(listing.tools.map((t) => t.name), ["get_weather", "get_forecast", "liar"])
    assert.deepStrictEqual(listing.problems, [])
    assert.strictEqual(listing.ttlMs, 60_000)
    assert.strictEqual(listing.cacheScope, "public")
    const result = yield* connection.callTool("get_weather", { city: "Oslo" }, { meta: { "dev.toolgate/idempotency-key": "k-1" } })
    assert.deepStrictEqual(result.content, [{ type: "text", text: "Sunny in Oslo" }])
    assert.deepStrictEqual(result.structuredContent, { args: { city: "Oslo" }, meta: { "dev.toolgate/idempotency-key": "k-1" } })
  }).pipe(Effect.scoped)

describe("McpConnection and servers of the stateless revision", () => {
  it.live("a modern-only server over Streamable HTTP is listed and called", () =>
    Effect.gen(function*() {
      const { url } = yield* serveHttp("reject")
      yield* listsAndCalls({ _tag: "StreamableHttp", url })
      yield* listsAndCalls({ _tag: "StreamableHttp", url }, "modern")
    }).pipe(Effect.scoped))

  it.live("a modern-only server over stdio is listed and called", () =>
    Effect.gen(function*() {
      yield* listsAndCalls(stdio("reject"))
      yield* listsAndCalls(stdio("reject"), "modern")
    }))

  it.live("a dual-era server is spoken to in the stateless revision, or in the older one when protocol says legacy", () =>
    Effect.gen(function*() {
      const { url } = yield* serveHttp("stateless")
      const modern = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url } })
      assert.strictEqual(modern.protocolVersion, "2026-07-28")
      const legacy = yield* McpConnection.make({ server: { _tag: "StreamableHttp", url }, protocol: "legacy" })
      assert.notStrictEqual(legacy.protocolVersion, "2026-07-28")
      const listing = yield* legacy.listTools
      assert.strictEqual(listing.tools.length, 3)
      const result = yield* legacy.callTool("get_weather", { city: "Oslo" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Sunny in Oslo" }])
      const overStdio = yield* McpConnection.make({ server: stdio("serve"), protocol: "legacy" })
      assert.notStrictEqual(overStdio.protocolVersion, "2026-07-28")
      assert.strictEqual((yield* overStdio.listTools).tools.length, 3)
    }).pipe(Effect.scoped))

  it.live("a modern-only server asked for the older revision refuses it: a typed failure naming its -32022 answer and its versions", () =>
    Effect.gen(function*() {
      const { url } = yield* serveHttp("reject")
      for (const server of [{ _tag: "StreamableHttp" as const, url }, stdio("reject")]) {
        const error = yield* Effect.flip(McpConnection.make({ server, protocol: "legacy", limits: { connectTimeout: "10 seconds" } }))
        assert.strictEqual(error._tag, "McpServerError", error.message)
        assert.strictEqual(error._tag === "McpServerError" ? error.operation : "", "connect")
        assert.strictEqual(error._tag === "McpServerError" ? error.code : 0, -32022)
        assert.include(error.message, "2026-07-28")
      }
    }).pipe(Effect.scoped))

  it.live("a legacy server asked for the stateless revision is a typed failure", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConnection.make({ server: fixture([weather]), protocol: "modern" }).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "McpProtocolError", error.message)
      assert.include(error.message, "2026-07-28")
    }))

  it.live("a protocol that is not one of auto, legacy, modern is InvalidOptions", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConnection.make({ server: stdio("reject"), protocol: "2026-07-28" as never }).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "InvalidOptions")
    }))

  it.live("the server's list_changed comes on the subscriptions/listen stream", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: stdio("reject", true) })
      assert.isTrue(connection.announcesListChanged)
      const changes = yield* connection.listChanged
      yield* connection.listTools
      yield* Queue.take(changes)
    }).pipe(Effect.scoped))

  it.live("the proxy forwards a call to a modern-only upstream, and lists its tools", () =>
    Effect.gen(function*() {
      const { url } = yield* serveHttp("reject")
      for (const server of [{ _tag: "StreamableHttp" as const, url }, stdio("reject")]) {
        yield* Effect.scoped(Effect.gen(function*() {
          const proxy = yield* McpProxy.serveHttp({ server })
          const client: Client = yield* clientOver(new StreamableHTTPClientTransport(new URL(proxy.url)))
          const { tools } = yield* Effect.promise(() => client.listTools())
          assert.deepStrictEqual(tools.map((t) => t.name), ["get_weather", "get_forecast", "liar"])
          const result = yield* call(client, "get_weather", { city: "Oslo" }, { [McpProxy.idempotencyKey]: "k-2" })
          assert.deepStrictEqual(result.content, [{ type: "text", text: "Sunny in Oslo" }])
          assert.deepStrictEqual(result.structuredContent, { args: { city: "Oslo" }, meta: { [McpProxy.idempotencyKey]: "k-2" } })
          const again = yield* call(client, "get_weather", { city: "Oslo" }, { [McpProxy.idempotencyKey]: "k-2" })
          assert.strictEqual((again._meta as Record<string, unknown>)[McpProxy.replayedKey], true)
        }))
      }
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe("the probe over stdio", () => {
  const starts = () => path.join(mkdtempSync(path.join(os.tmpdir(), "toolgate-starts-")), "starts")
  const startsIn = (file: string) => readFileSync(file, "utf8").split("\n").filter((line) => line !== "").length

  it.live("in auto, a server of the older revisions is started once per connection: the probe runs on its one process", () =>
    Effect.gen(function*() {
      const file = starts()
      const server = fixture([weather])
      const connection = yield* McpConnection.make({ server: { ...server, env: { ...server.env, TOOLGATE_FIXTURE_STARTS: file } } })
      assert.notStrictEqual(connection.protocolVersion, "2026-07-28")
      assert.deepStrictEqual((yield* connection.listTools).tools.map((t) => t.name), ["get_weather"])
      assert.strictEqual(startsIn(file), 1)
    }).pipe(Effect.scoped))

  it.live("a server that ends its process at the probe is started again and spoken to with initialize", () =>
    Effect.gen(function*() {
      const file = starts()
      const server = fixture([weather], "exit-on-discover")
      const connection = yield* McpConnection.make({ server: { ...server, env: { ...server.env, TOOLGATE_FIXTURE_STARTS: file } } })
      assert.deepStrictEqual((yield* connection.listTools).tools.map((t) => t.name), ["get_weather"])
      assert.strictEqual(startsIn(file), 2)
      const legacy = starts()
      yield* McpConnection.make({ server: { ...server, env: { ...server.env, TOOLGATE_FIXTURE_STARTS: legacy } }, protocol: "legacy" })
      assert.strictEqual(startsIn(legacy), 1)
    }).pipe(Effect.scoped))
})

describe("endpoints that answer the server/discover probe badly", () => {
  const connect = (url: string) =>
    Effect.flip(McpConnection.make({ server: { _tag: "StreamableHttp", url }, limits: { connectTimeout: "3 seconds" } }).pipe(Effect.scoped))

  it.live("garbage is a typed failure", () =>
    Effect.gen(function*() {
      for (const answer of [{ status: 200, body: "this is not json" }, { status: 200, body: `{"jsonrpc":"2.0","id":0,"result":"nope"}` }]) {
        const { url } = yield* hostile(answer)
        const error = yield* connect(url)
        assert.strictEqual(error._tag, "McpProtocolError", error.message)
      }
    }).pipe(Effect.scoped))

  it.live("silence is McpTimeout within the connect timeout", () =>
    Effect.gen(function*() {
      const { url } = yield* hostile(undefined)
      const error = yield* connect(url)
      assert.strictEqual(error._tag, "McpTimeout", error.message)
    }).pipe(Effect.scoped))

  it.live("-32022 with an empty list of supported versions is a typed failure", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32022, message: "Unsupported protocol version", data: { supported: [], requested: "2026-07-28" } } })
      const { url } = yield* hostile({ status: 400, body })
      const error = yield* connect(url)
      assert.strictEqual(error._tag, "McpServerError", error.message)
      assert.strictEqual(error._tag === "McpServerError" ? error.code : 0, -32022)
    }).pipe(Effect.scoped))
})

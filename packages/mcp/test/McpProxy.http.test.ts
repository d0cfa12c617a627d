import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Upstream from "../src/internal/proxyUpstream.js"
import { McpProxy } from "../src/index.js"
import { call, clientOver, everything, fixture, textOf, upstreamCalls } from "./McpProxySupport.js"

const httpClient = (url: string) => clientOver(new StreamableHTTPClientTransport(new URL(url)))

// The proxy served over Streamable HTTP on loopback, fronting the fixture (a fresh upstream per session).
describe("McpProxy over Streamable HTTP", () => {
  it.scopedLive("coerces near-misses and refuses invalid calls without calling the upstream", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const client = yield* httpClient(proxy.url)
      const coerced = yield* call(client, "add", { a: "40", b: "2" })
      assert.deepStrictEqual(coerced.structuredContent, { received: { a: 40, b: 2 } })
      const before = yield* upstreamCalls(client)
      const refused = yield* call(client, "add", { a: [1], b: 2 })
      assert.strictEqual(yield* upstreamCalls(client), before + 1)
      assert.strictEqual(JSON.parse(textOf(refused)).field, "a")
    }), { timeout: 60_000 })

  it.scopedLive("answers a key from the journal across sessions (a client that reconnected)", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      const meta = { [McpProxy.idempotencyKey]: "pay-7" }
      const first = yield* Effect.scoped(Effect.flatMap(httpClient(proxy.url), (c) => call(c, "slow", { millis: 5 }, meta)))
      const second = yield* httpClient(proxy.url)
      const again = yield* call(second, "slow", { millis: 5 }, meta)
      assert.strictEqual(textOf(again), textOf(first))
      assert.strictEqual((again._meta as Record<string, unknown>)[McpProxy.replayedKey], true)
      // the second session's upstream is a fresh fixture process: the repeat never reached it
      assert.strictEqual(yield* upstreamCalls(second), 1)
    }), { timeout: 60_000 })

  it.scopedLive("lists schemas in the google dialect", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture, dialect: "google" })
      const client = yield* httpClient(proxy.url)
      const { tools } = yield* Effect.promise(() => client.listTools())
      const book = tools.find((t) => t.name === "book")!
      assert.isUndefined(book.inputSchema.$defs)
      assert.isUndefined(book.inputSchema.additionalProperties)
      assert.strictEqual((book.inputSchema.properties as Record<string, { type: string }>)["day"]?.type, "string")
    }), { timeout: 60_000 })

  it.scopedLive("fails McpProxyListenError on a port already taken", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      const error = yield* Effect.flip(McpProxy.serveHttp({ server: fixture }, { port: proxy.port }))
      assert.strictEqual(error._tag, "McpProxyListenError")
    }), { timeout: 60_000 })
})

// The same proxy in front of @modelcontextprotocol/server-everything.
describe("McpProxy fronting server-everything", () => {
  it.scopedLive("lists its tools as it does and validates calls against them", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: everything })
      const client = yield* httpClient(proxy.url)
      // the upstream lists by what its client declares: the direct client declares what the proxy's does
      const direct = new Client({ name: "direct", version: "1.0.0" }, { capabilities: Upstream.capabilities })
      const { StdioClientTransport } = yield* Effect.promise(() => import("@modelcontextprotocol/sdk/client/stdio.js"))
      yield* Effect.acquireRelease(
        Effect.promise(() => direct.connect(new StdioClientTransport({ command: everything.command, args: [...everything.args] }))),
        () => Effect.promise(() => direct.close())
      )
      const viaProxy = yield* Effect.promise(() => client.listTools())
      const original = yield* Effect.promise(() => direct.listTools())
      assert.deepStrictEqual(viaProxy.tools, original.tools)
      const sum = yield* call(client, "get-sum", { a: "1", b: "2.5" })
      assert.isUndefined(sum.isError)
      assert.include(textOf(sum), "3.5")
      const refused = yield* call(client, "get-sum", { a: "one", b: 2 })
      assert.isTrue(refused.isError)
      assert.strictEqual(JSON.parse(textOf(refused)).field, "a")
      const echo = yield* call(client, "echo", { message: "hi" })
      assert.include(textOf(echo), "hi")
    }), { timeout: 60_000 })
})

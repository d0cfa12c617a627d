import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { McpProxy } from "../src/index.js"
import { call, fixture, root, stdioProxy, textOf, upstreamCalls } from "./McpProxySupport.js"

class Proxied extends Context.Tag("test/Proxied")<Proxied, Client>() {}
class Direct extends Context.Tag("test/Direct")<Direct, Client>() {}

const fixtureDirect = Layer.scoped(
  Direct,
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "direct", version: "1.0.0" })
      await client.connect(new StdioClientTransport({ command: fixture.command, args: [...fixture.args], cwd: root }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )
)

const proxied = (options: Omit<McpProxy.Options, "server">) => Layer.scoped(Proxied, stdioProxy({ server: fixture, ...options }))

// The proxy process over stdio, driven by the SDK's client, fronting the fixture server.
layer(Layer.merge(proxied({ callTimeout: "3 seconds", maxResultBytes: 64 * 1024 }), fixtureDirect), { timeout: 60_000 })(
  "McpProxy over stdio",
  (it) => {
    it.effect("forwards tools/list unchanged: $schema, $defs and additionalProperties kept", () =>
      Effect.gen(function*() {
        const [viaProxy, direct] = [yield* Proxied, yield* Direct]
        const listed = yield* Effect.promise(() => viaProxy.listTools())
        const original = yield* Effect.promise(() => direct.listTools())
        assert.deepStrictEqual(listed.tools, original.tools)
        const book = listed.tools.find((t) => t.name === "book")!
        assert.strictEqual(book.inputSchema.$schema, "https://json-schema.org/draft/2020-12/schema")
        assert.isDefined(book.inputSchema.$defs)
        assert.strictEqual(book.inputSchema.additionalProperties, false)
      }))

    it.effect("coerces a near-miss before the upstream sees it", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const result = yield* call(client, "add", { a: "2", b: 3.0 })
        assert.isUndefined(result.isError)
        assert.strictEqual(textOf(result), "5")
        assert.deepStrictEqual(result.structuredContent, { received: { a: 2, b: 3 } })
      }))

    it.effect("answers invalid arguments isError with field and expected, without calling the upstream", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const before = yield* upstreamCalls(client)
        const result = yield* call(client, "add", { a: "two", b: 1 })
        const after = yield* upstreamCalls(client)
        assert.strictEqual(after, before + 1)
        assert.isTrue(result.isError)
        const envelope = JSON.parse(textOf(result))
        assert.strictEqual(envelope.kind, "invalid_args")
        assert.strictEqual(envelope.field, "a")
        assert.strictEqual(envelope.expected, "integer")
        assert.strictEqual(envelope.tool, "add")
        assert.deepStrictEqual(result.structuredContent, envelope)
        const issues = (result._meta as Record<string, Array<{ field: string }>>)[McpProxy.issuesKey]!
        assert.deepStrictEqual(issues.map((i) => i.field), ["a"])
      }))

    it.effect("refuses a missing required argument and an undeclared one", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const before = yield* upstreamCalls(client)
        const missing = yield* call(client, "book", { room: "blue" })
        const extra = yield* call(client, "add", { a: 1, b: 2, c: 3 })
        assert.strictEqual(yield* upstreamCalls(client), before + 1)
        assert.strictEqual(JSON.parse(textOf(missing)).field, "day")
        assert.isTrue(extra.isError)
      }))

    it.effect("validates a draft-07 schema as draft-07 (items as an array is a tuple)", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const ok = yield* call(client, "tuple", { pair: ["a", 1] })
        assert.isUndefined(ok.isError)
        assert.deepStrictEqual(ok.structuredContent, { received: { pair: ["a", 1] } })
        const coerced = yield* call(client, "tuple", { pair: ["a", "2"] })
        assert.deepStrictEqual(coerced.structuredContent, { received: { pair: ["a", 2] } })
        const tooLong = yield* call(client, "tuple", { pair: ["a", 1, 2] })
        assert.isTrue(tooLong.isError)
      }))

    it.effect("never fetches a network $ref: the call is refused, the upstream not called", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const before = yield* upstreamCalls(client)
        const result = yield* call(client, "remote", { x: 1 })
        assert.strictEqual(yield* upstreamCalls(client), before + 1)
        assert.isTrue(result.isError)
        assert.strictEqual(JSON.parse(textOf(result)).kind, "rejected")
      }))

    it.effect("answers a repeated idempotency key from the journal under a new request id", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const meta = { [McpProxy.idempotencyKey]: "order-1" }
        const first = yield* call(client, "slow", { millis: 10 }, meta)
        const before = yield* upstreamCalls(client)
        const again = yield* call(client, "slow", { millis: 10 }, meta)
        assert.strictEqual(yield* upstreamCalls(client), before + 1)
        assert.strictEqual(textOf(again), textOf(first))
        assert.strictEqual((again._meta as Record<string, unknown>)[McpProxy.replayedKey], true)
      }))

    it.effect("runs a call once when its repeat arrives while it is still running", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const meta = { [McpProxy.idempotencyKey]: "order-2" }
        const before = yield* upstreamCalls(client)
        const [a, b] = yield* Effect.all([call(client, "slow", { millis: 400 }, meta), call(client, "slow", { millis: 400 }, meta)], {
          concurrency: 2
        })
        assert.strictEqual(textOf(a), textOf(b))
        assert.strictEqual(yield* upstreamCalls(client), before + 2)
      }))

    it.effect("refuses a key reused for other arguments", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const meta = { [McpProxy.idempotencyKey]: "order-3" }
        yield* call(client, "add", { a: 1, b: 2 }, meta)
        const other = yield* call(client, "add", { a: 1, b: 5 }, meta)
        assert.isTrue(other.isError)
        assert.strictEqual(JSON.parse(textOf(other)).kind, "rejected")
        const same = yield* call(client, "add", { a: "1", b: 2 }, meta)
        assert.strictEqual(textOf(same), "3")
      }))

    it.effect("answers an unknown tool with the JSON-RPC error the spec names", () =>
      Effect.gen(function*() {
        const client = yield* Proxied
        const error = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "nope", arguments: {} })))
        assert.include(String(error.cause), "Unknown tool: nope")
      }))
  }
)

layer(Layer.merge(proxied({ dialect: "openai-strict" }), fixtureDirect), { timeout: 60_000 })("McpProxy with a dialect", (it) => {
  it.effect("lists schemas in the dialect and takes a strict provider's nulls back", () =>
    Effect.gen(function*() {
      const client = yield* Proxied
      const { tools } = yield* Effect.promise(() => client.listTools())
      const book = tools.find((t) => t.name === "book")!
      assert.isUndefined(book.inputSchema.$schema)
      assert.deepStrictEqual([...(book.inputSchema.required ?? [])].sort(), ["day", "nights", "room"])
      const result = yield* call(client, "book", { room: "blue", day: "2026-12-02", nights: null })
      assert.isUndefined(result.isError)
      assert.deepStrictEqual(result.structuredContent, { received: { room: "blue", day: "2026-12-02" } })
    }))
})

describe("McpProxy and a client's cancellation", () => {
  // the default call timeout (60 s): the upstream sees no cancellation but the client's within the test's time
  it.scopedLive("passes a client's cancellation on to the upstream, under the proxy's id for the call", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture })
      const before = Number(textOf(yield* call(client, "cancelled")))
      const abort = new AbortController()
      const waiting = Effect.tryPromise(() => client.callTool({ name: "wait", arguments: {} }, undefined, { signal: abort.signal }))
      const fiber = yield* Effect.fork(Effect.either(waiting))
      yield* Effect.sleep("500 millis")
      abort.abort("enough")
      yield* fiber.await
      // the upstream sees the cancellation once it has read it: ask until it has (or the test times out)
      const after = yield* call(client, "cancelled").pipe(
        Effect.map((r) => Number(textOf(r))),
        Effect.delay("100 millis"),
        Effect.repeat({ until: (n) => n > before })
      )
      assert.strictEqual(after, before + 1)
    }), { timeout: 60_000 })
})

describe("McpProxy and a listing's caching hints", () => {
  const caching = { ...fixture, args: [...fixture.args, "--ttl"] }
  for (const dialect of ["none", "openai-strict"] as const) {
    it.scopedLive(`forwards a tools/list result's ttlMs and cacheScope unchanged (dialect ${dialect})`, () =>
      Effect.gen(function*() {
        const client = yield* stdioProxy({ server: caching, dialect })
        const listed = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(listed.ttlMs, 60_000)
        assert.strictEqual(listed.cacheScope, "user")
        assert.isTrue(listed.tools.some((t) => t.name === "add"))
      }), { timeout: 60_000 })
  }
})

describe("McpProxy options and start", () => {
  it.effect("refuses bad options as InvalidOptions", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpProxy.serveStdio({ server: { _tag: "Stdio", command: "" }, callTimeoutMillis: -1 } as never))
      assert.strictEqual(error._tag, "InvalidOptions")
    }))

  it.live("fails McpUnavailable when the upstream cannot be started", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        McpProxy.serveStdio({ server: { _tag: "Stdio", command: "/nonexistent/mcp-server" }, connectTimeout: "5 seconds" })
      )
      assert.strictEqual(error._tag, "McpUnavailable")
      assert.include(error.message, "/nonexistent/mcp-server")
    }))
})

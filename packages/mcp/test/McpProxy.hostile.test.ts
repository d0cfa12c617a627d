import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpProxy } from "../src/index.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { call, clientOver, fixture, rawStdioProxy, stdioProxy, textOf } from "./McpProxySupport.js"

const kindOf = (result: { content: unknown }) => JSON.parse(textOf(result as never)).kind as string

describe("McpProxy against a hostile upstream", () => {
  it.scopedLive("skips garbage on the upstream's stdout", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture })
      assert.strictEqual(textOf(yield* call(client, "garbage")), "after garbage")
      assert.strictEqual(textOf(yield* call(client, "add", { a: 1, b: 1 })), "2")
    }), { timeout: 60_000 })

  it.scopedLive("answers a result that is not a tool result as an execution error, not forwarded, and goes on", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture })
      const bad = yield* call(client, "malformed")
      assert.isTrue(bad.isError)
      assert.strictEqual(kindOf(bad), "execution_error")
      assert.include(textOf(bad), "not a tool result (wrong at `content`)")
      assert.notInclude(JSON.stringify(bad), "not a list")
      assert.strictEqual(textOf(yield* call(client, "add", { a: 3, b: 4 })), "7")
    }), { timeout: 60_000 })

  it.scopedLive("answers a call that never returns as a timeout, and goes on", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture, callTimeout: "1 second" })
      const hung = yield* call(client, "hang")
      assert.isTrue(hung.isError)
      assert.strictEqual(kindOf(hung), "timeout")
      assert.include(textOf(hung), "1000 ms")
      assert.strictEqual(textOf(yield* call(client, "add", { a: 2, b: 2 })), "4")
    }), { timeout: 60_000 })

  it.scopedLive("bounds results: one over the limit is answered isError, not forwarded", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture, maxResultBytes: 64 * 1024 })
      const small = yield* call(client, "huge", { bytes: 1_000 })
      assert.strictEqual(textOf(small).length, 1_000)
      const big = yield* call(client, "huge", { bytes: 200_000 })
      assert.isTrue(big.isError)
      assert.include(textOf(big), "65536 bytes")
      assert.isBelow(JSON.stringify(big).length, 4_096)
    }), { timeout: 60_000 })

  it.scopedLive("answers a message past the read limit as the upstream gone, and stays up", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture, maxMessageBytes: 1024 * 1024 })
      const big = yield* call(client, "huge", { bytes: 2 * 1024 * 1024 })
      assert.isTrue(big.isError)
      assert.strictEqual(kindOf(big), "unavailable")
      assert.include(textOf(big), "limit of 1048576 bytes")
      yield* Effect.promise(() => client.ping())
    }), { timeout: 60_000 })

  it.scopedLive("answers an upstream that dies mid-call with an isError result naming it, and does not crash", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture })
      const died = yield* call(client, "die")
      assert.isTrue(died.isError)
      assert.strictEqual(kindOf(died), "unavailable")
      assert.include(textOf(died), "proxyFixture.ts")
      assert.include(textOf(died), "`die`")
      yield* Effect.promise(() => client.ping())
      const after = yield* call(client, "add", { a: 1, b: 2 })
      assert.isTrue(after.isError)
      assert.strictEqual(kindOf(after), "unavailable")
    }), { timeout: 60_000 })

  it.scopedLive("journals a call whose upstream died: its repeat is not run again", () =>
    Effect.gen(function*() {
      const client = yield* stdioProxy({ server: fixture })
      const meta = { [McpProxy.idempotencyKey]: "die-1" }
      const died = yield* call(client, "die", {}, meta)
      const again = yield* call(client, "die", {}, meta)
      assert.strictEqual(textOf(again), textOf(died))
      assert.strictEqual((again._meta as Record<string, unknown>)[McpProxy.replayedKey], true)
    }), { timeout: 60_000 })
})

describe("McpProxy against a hostile client", () => {
  it.live("answers malformed requests over stdio and keeps serving", () =>
    Effect.promise(async () => {
      const proxy = rawStdioProxy({ server: fixture })
      const { answerTo, send } = proxy
      try {
        send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }))
        await answerTo(1)
        send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
        send("not json at all")
        send("{\"jsonrpc\":\"2.0\",\"id\":")
        send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { arguments: {} } }))
        send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such/method" }))
        send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "add", arguments: "[[[" } }))
        send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 }, _meta: { [McpProxy.idempotencyKey]: 42 } } }))
        send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } }))
        // the SDK's server answers params its request schema refuses as an internal or invalid-params error
        assert.include([-32602, -32603], (await answerTo(2)).error.code)
        assert.strictEqual((await answerTo(3)).error.code, -32601)
        const four = await answerTo(4)
        assert.isTrue(four.error !== undefined || four.result.isError === true)
        assert.strictEqual((await answerTo(5)).error.code, -32602)
        assert.strictEqual((await answerTo(6)).result.content[0].text, "3")
      } finally {
        proxy.kill()
      }
    }), { timeout: 60_000 })

  it.scopedLive("holds at most maxSessions sessions (each an upstream process): the least recently used idle one ends, all busy is a 503", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture, maxSessions: 2 })
      const first = yield* clientOver(new StreamableHTTPClientTransport(new URL(proxy.url)))
      const second = yield* clientOver(new StreamableHTTPClientTransport(new URL(proxy.url)))
      // a third client: the first session (idle, least recently used) is ended for it
      yield* call(second, "add", { a: 1, b: 1 })
      const third = yield* clientOver(new StreamableHTTPClientTransport(new URL(proxy.url)))
      assert.strictEqual(proxy.sessions(), 2)
      const gone = yield* Effect.flip(Effect.tryPromise(() => first.callTool({ name: "add", arguments: { a: 1, b: 1 } })))
      assert.include(String(gone.cause), "Session not found")
      // both sessions busy: one more initialize is refused
      const running = yield* Effect.fork(Effect.all([call(second, "slow", { millis: 3000 }), call(third, "slow", { millis: 3000 })], { concurrency: 2 }))
      yield* Effect.sleep("1 second")
      const refused = yield* Effect.flip(Effect.tryPromise(() => new Client({ name: "fourth", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(proxy.url)))))
      assert.include(String(refused.cause), "2 sessions are open and busy")
      yield* running.await
      const fourth = yield* clientOver(new StreamableHTTPClientTransport(new URL(proxy.url)))
      assert.strictEqual(textOf(yield* call(fourth, "add", { a: 2, b: 2 })), "4")
    }), { timeout: 60_000 })

  it.scopedLive("answers malformed HTTP requests with their status and keeps serving", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      const post = (body: string, headers: Record<string, string> = {}) =>
        Effect.promise(() =>
          fetch(proxy.url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
            body
          }).then(async (r) => ({ status: r.status, body: await r.text() }))
        )
      const notJson = yield* post("{nope")
      assert.strictEqual(notJson.status, 400)
      assert.strictEqual(JSON.parse(notJson.body).error.code, -32700)
      assert.strictEqual((yield* post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }))).status, 400)
      assert.strictEqual((yield* post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { "mcp-session-id": "forged" })).status, 404)
      assert.strictEqual((yield* post("{}", { origin: "http://evil.example" })).status, 403)
      assert.strictEqual((yield* post("[" + "1,".repeat(3 * 1024 * 1024) + "1]")).status, 413)
      const get = yield* Effect.promise(() => fetch(proxy.url).then((r) => r.status))
      assert.strictEqual(get, 400)
      assert.strictEqual(proxy.sessions(), 0)
    }), { timeout: 60_000 })
})

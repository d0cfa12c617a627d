/**
 * Hostile clients of the stateless revision (2026-07-28): a version the proxy does not serve, a `_meta` that is
 * not an object, a huge `_meta`, over Streamable HTTP and over stdio. Each is answered with a JSON-RPC error (or
 * served), and the proxy keeps serving.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpProxy } from "../src/index.js"
import { fixture, rawStdioProxy } from "./McpProxySupport.js"

const modern = "2026-07-28"

const envelope = (version: unknown) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {}
})

/** About 2 MiB of `_meta` keys beside the envelope. */
const huge = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`dev.example/k${i}`, "v".repeat(40)]))

const add = (id: number, meta: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "add", arguments: { a: "1", b: 2 }, _meta: meta } })

interface Answer {
  readonly result?: { readonly content: ReadonlyArray<{ readonly text: string }>; readonly resultType?: string }
  readonly error?: { readonly code: number; readonly data?: { readonly supported?: ReadonlyArray<string> } }
}

describe("McpProxy against hostile clients of the stateless revision", () => {
  it.live("over HTTP: an unserved version is -32022 with the supported ones, a bad or huge _meta is answered", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      const post = (body: { readonly method: string; readonly params?: { readonly name?: string } }, version: string) =>
        Effect.promise(async () => {
          const response = await fetch(proxy.url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": version,
              "mcp-method": body.method,
              ...(body.params?.name === undefined ? {} : { "mcp-name": body.params.name })
            },
            body: JSON.stringify(body)
          })
          return { status: response.status, answer: (await response.json()) as Answer }
        })
      const unserved = yield* post(add(1, envelope("2099-01-01")), "2099-01-01")
      assert.strictEqual(unserved.answer.error?.code, -32022)
      assert.deepStrictEqual(unserved.answer.error?.data?.supported, [modern])
      const notObject = yield* post(add(2, "not an object"), modern)
      assert.strictEqual(notObject.status, 400)
      assert.strictEqual(notObject.answer.error?.code, -32600)
      const large = yield* post(add(3, { ...envelope(modern), ...huge }), modern)
      assert.strictEqual(large.answer.result?.content[0]?.text, "3")
      assert.strictEqual(large.answer.result?.resultType, "complete")
      const past = yield* post(add(4, { ...envelope(modern), ...huge, ...Object.fromEntries(Object.entries(huge).map(([k, v]) => [`${k}x`, v])) }), modern)
      assert.strictEqual(past.status, 413)
      const served = yield* post(add(5, envelope(modern)), modern)
      assert.strictEqual(served.answer.result?.content[0]?.text, "3")
      assert.strictEqual(proxy.sessions(), 0)
    })), 60_000)

  it.live("over stdio: the same, on one connection that keeps serving", () =>
    Effect.promise(async () => {
      const proxy = rawStdioProxy({ server: fixture })
      const answerTo = (id: number): Promise<Answer> => proxy.answerTo(id)
      const send = (message: unknown) => proxy.send(JSON.stringify(message))
      try {
        send(add(1, envelope("2099-01-01")))
        const unserved = await answerTo(1)
        assert.strictEqual(unserved.error?.code, -32022)
        assert.deepStrictEqual(unserved.error?.data?.supported, [modern])
        send({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: envelope(modern) } })
        const discovered = (await answerTo(2)) as { readonly result?: Record<string, unknown> }
        assert.deepStrictEqual(discovered.result?.supportedVersions, [modern])
        assert.strictEqual(discovered.result?.resultType, "complete")
        // a request without the envelope, on a connection in the stateless revision
        send({ jsonrpc: "2.0", id: 3, method: "tools/list" })
        assert.strictEqual((await answerTo(3)).error?.code, -32602)
        // not a JSON-RPC message: the SDK's transport skips the line, as on the older revisions
        send(add(7, "not an object"))
        send(add(4, { ...envelope(modern), ...huge }))
        assert.strictEqual((await answerTo(4)).result?.content[0]?.text, "3")
        send(add(5, envelope("2099-01-01")))
        assert.strictEqual((await answerTo(5)).error?.code, -32022)
        send(add(6, envelope(modern)))
        assert.strictEqual((await answerTo(6)).result?.content[0]?.text, "3")
        assert.isFalse(proxy.answered(7))
      } finally {
        proxy.kill()
      }
    }), 60_000)
})

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Stream } from "effect"
import { JsonValue as J } from "@toolgate/json-schema"
import type { Message, Provider, StreamEvent } from "@toolgate/runtime"
import * as CloudRelay from "../src/CloudRelay.js"
import * as RelayWire from "../src/RelayWire.js"
import { events, httpClient, start, stream } from "./support/loopback.js"
import { assistant, result, user } from "./support/messages.js"

const provider = (baseUrl: string, options: Partial<CloudRelay.Options> = {}) =>
  CloudRelay.make({ baseUrl, timeout: "20 seconds", idleTimeout: "20 seconds", ...options }).pipe(Effect.provide(httpClient))

const request = (messages: ReadonlyArray<Message.Message> = [user("go")]): Provider.CompletionRequest => ({
  messages,
  tools: [],
  toolChoice: "auto"
})

const collect = (relay: Provider.AgentProvider, req = request()) =>
  relay.stream(req).pipe(Stream.runCollect, Effect.map((c) => Array.from(c)), Effect.either)

describe("CloudRelay: hostile relays and requests", () => {
  it.scopedLive("a 10 MB event arrives intact", () =>
    Effect.gen(function*() {
      const big: StreamEvent.StreamEvent = { _tag: "TextDelta", text: "ø".repeat(5_000_000) }
      const server = yield* start(stream(RelayWire.encodeEvent(big), RelayWire.encodeEvent({ _tag: "Done" })))
      const outcome = yield* collect(yield* provider(server.url))
      assert.isTrue(Either.isRight(outcome))
      const got = Either.getOrThrow(outcome)
      assert.strictEqual(got.length, 2)
      assert.strictEqual((got[0] as StreamEvent.TextDelta).text, (big as StreamEvent.TextDelta).text)
    }), 180_000)

  it.scopedLive("100,000 events arrive in order", () =>
    Effect.gen(function*() {
      const wire = Array.from({ length: 100_000 }, (_, i) => RelayWire.encodeEvent({ _tag: "TextDelta", text: String(i) }))
      const server = yield* start((_r, res) => {
        const write = events(res)
        for (let i = 0; i < wire.length; i += 1000) write(wire.slice(i, i + 1000).join(""))
        res.end(RelayWire.encodeEvent({ _tag: "Done" }))
      })
      const got = Either.getOrThrow(yield* collect(yield* provider(server.url)))
      assert.strictEqual(got.length, 100_001)
      assert.isTrue(got.slice(0, 100_000).every((e, i) => e._tag === "TextDelta" && e.text === String(i)))
      assert.deepStrictEqual(got[100_000], { _tag: "Done" })
    }), 120_000)

  it.scopedLive("__proto__ and constructor in event JSON stay data and pollute nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(
        `data: {"_tag":"ToolCallComplete","id":"c","name":"t","arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}},"__proto__":{"polluted":true}}\n\n`,
        `data: {"_tag":"ToolCallCompleted","id":"c","result":{"__proto__":[1]}}\n\n`
      ))
      const got = Either.getOrThrow(yield* collect(yield* provider(server.url)))
      const call = got[0] as StreamEvent.ToolCallComplete
      assert.isTrue(Object.hasOwn(call.arguments as object, "__proto__"))
      assert.isTrue(Object.hasOwn(call.arguments as object, "constructor"))
      assert.isFalse(Object.hasOwn(call, "polluted"))
      assert.deepStrictEqual(Object.getPrototypeOf(call.arguments), Object.prototype)
      assert.isTrue(Object.hasOwn((got[1] as StreamEvent.ToolCallCompleted).result as object, "__proto__"))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }), 20_000)

  it.scopedLive("a huge message list (100,000 messages, a 10,000-level argument) reaches a relay that takes it whole", () =>
    Effect.gen(function*() {
      let deep: J.JsonValue = "leaf"
      for (let i = 0; i < 10_000; i++) deep = [deep]
      const messages: Array<Message.Message> = [user("start")]
      for (let i = 0; i < 50_000; i++) messages.push(assistant(`round ${i}`, 0), result(`call_${i}`))
      messages.push({ _tag: "Assistant", text: "", toolCalls: [{ id: "deep", name: "t", arguments: deep }] }, user("end"))
      const server = yield* start(stream(RelayWire.encodeEvent({ _tag: "Done" })))
      const outcome = yield* collect(yield* provider(server.url, { maxRequestBytes: 64 * 1024 * 1024 }), request(messages))
      assert.deepStrictEqual(outcome, Either.right([{ _tag: "Done" }]))
      const body = JSON.parse(server.received[0]!.body) as { readonly messages: ReadonlyArray<Message.Message> }
      assert.strictEqual(body.messages.length, messages.length)
      const sent = body.messages[messages.length - 2] as Message.Assistant
      assert.isTrue(J.equals(sent.toolCalls[0]!.arguments!, deep))
    }), 120_000)

  it.scopedLive("a consumer that stops early closes the connection (no leaked request)", () =>
    Effect.gen(function*() {
      let closed: () => void = () => {}
      const closedNow = new Promise<void>((resolve) => (closed = resolve))
      const server = yield* start((_r, res) => {
        const write = events(res)
        const timer = setInterval(() => write(RelayWire.encodeEvent({ _tag: "TextDelta", text: "more" })), 5)
        res.on("close", () => {
          clearInterval(timer)
          closed()
        })
      })
      const relay = yield* provider(server.url)
      const first = yield* relay.stream(request()).pipe(Stream.take(2), Stream.runCollect)
      assert.strictEqual(first.length, 2)
      yield* Effect.promise(() => closedNow)
      assert.strictEqual(server.received.length, 1)
    }), 20_000)

  it.scopedLive("a 2xx answer that is not an event stream, streamed without end: the round fails typed and the client gives the connection up", () =>
    Effect.gen(function*() {
      let written = 0
      const closed = yield* Deferred.make<number>()
      const piece = Buffer.alloc(64 * 1024, "h")
      const server = yield* start((_r, res) => {
        res.writeHead(200, { "content-type": "text/html" })
        res.write("<html>a proxy's page")
        res.on("close", () => Deferred.unsafeDone(closed, Exit.succeed(written)))
        const more = () => {
          while (!res.destroyed) {
            written += piece.byteLength
            if (!res.write(piece)) return void res.once("drain", more)
          }
        }
        more()
      })
      const outcome = yield* collect(yield* provider(server.url))
      const error = Either.getOrThrow(Either.flip(outcome))
      assert.isTrue(error._tag === "ProviderError" && !error.retryable, String(error))
      assert.include(error.message, "content-type: text/html; body: <html>a proxy's page")
      // the server sees the connection closed (not left open, unread, until the client is collected)
      const sent = yield* Deferred.await(closed)
      assert.isBelow(sent, 32 * 1024 * 1024)
    }), 60_000)

  it.scopedLive("a relay streaming a 256 MiB error body: the round fails typed from the body's first bytes, and the client stops reading", () =>
    Effect.gen(function*() {
      const total = 256 * 1024 * 1024
      let written = 0
      const closed = yield* Deferred.make<number>()
      const piece = Buffer.alloc(64 * 1024, "e")
      const server = yield* start((_r, res) => {
        res.writeHead(500, { "content-type": "application/json" })
        res.write(`{"error":{"message":"overloaded`)
        res.on("close", () => Deferred.unsafeDone(closed, Exit.succeed(written)))
        // written as fast as the client takes it: only what the client reads leaves the server
        const more = () => {
          while (written < total && !res.destroyed) {
            written += piece.byteLength
            if (!res.write(piece)) return void res.once("drain", more)
          }
          if (written >= total) res.end()
        }
        more()
      })
      const outcome = yield* collect(yield* provider(server.url))
      assert.isTrue(Either.isLeft(outcome))
      const error = Either.getOrThrow(Either.flip(outcome))
      assert.isTrue(error._tag === "ProviderError" && error.retryable && error.reason === "the relay answered HTTP 500", String(error))
      assert.include(error.message, "overloaded")
      // the server's writes stop once the client has given up the connection, far short of the whole body
      const sent = yield* Deferred.await(closed)
      assert.isBelow(sent, 32 * 1024 * 1024, `the server wrote ${sent} bytes before the client closed`)
    }), 120_000)
})

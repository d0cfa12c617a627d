/**
 * A history that fits its transport, through `AgentSession` over a loopback relay double that, like the
 * reference relay, answers 413 to a body past 1 MiB: the session keeps talking after its history has grown
 * far past that (the context window `CloudRelay` derives from `maxRequestBytes` trims the oldest turns); a
 * turn that alone is too large is refused before it is sent; a 413 is `code: "request_too_large"`.
 */
import { assert, describe, it } from "@effect/vitest"
import { AgentSession, ArgumentValidator, Toolkit } from "@toolgate/runtime"
import { Effect, Either } from "effect"
import * as fc from "fast-check"
import * as CloudRelay from "../src/CloudRelay.js"
import * as RelayWire from "../src/RelayWire.js"
import { type Handler, httpClient, start, stream } from "./support/loopback.js"

const MiB = 1024 * 1024

/** The reference relay's behaviour at its body limit: a 413 with a JSON error past `limit`, else one answer. */
const relayDouble = (limit: number): Handler => (received, res, n) => {
  if (Buffer.byteLength(received.body) > limit) {
    res.writeHead(413, { "content-type": "application/json" })
    return void res.end(JSON.stringify({ error: { message: `the request body is larger than ${limit} bytes`, type: "invalid_request_error" } }))
  }
  stream(RelayWire.encodeEvent({ _tag: "TextDelta", text: `answer ${n}` }), RelayWire.encodeEvent({ _tag: "Done" }))(received, res, n)
}

/** Text of any code points (lone surrogates too), or of graphemes (emoji sequences, CJK, combining marks), up to 3,000 units. */
const unicodeText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 3_000, size: "max" }),
  fc.string({ unit: "grapheme", maxLength: 3_000, size: "max" }),
  fc.string({ unit: fc.constantFrom("漢", "字", "🌍", "\u0000", "\"", "é"), maxLength: 3_000, size: "max" })
)

const sessionOver = (url: string, options: Partial<CloudRelay.Options> = {}) =>
  Effect.gen(function*() {
    const provider = yield* CloudRelay.make({ baseUrl: url, timeout: "5 seconds", ...options }).pipe(Effect.provide(httpClient))
    return yield* AgentSession.make({ provider, toolkit: Either.getOrThrow(Toolkit.make()), mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
  })

describe("CloudRelay: a history that fits the relay, through AgentSession", () => {
  it.scopedLive("twelve 150 KB turns (1.8 MB of history) all go through; every request stays within 1 MiB and carries the newest turn", () =>
    Effect.gen(function*() {
      const server = yield* start(relayDouble(MiB))
      const s = yield* sessionOver(server.url)
      for (let i = 0; i < 12; i++) {
        const turn = yield* s.send(`${i}:${"w".repeat(150_000)}`)
        assert.strictEqual(turn.text, `answer ${i + 1}`)
      }
      assert.strictEqual(server.received.length, 12)
      for (const received of server.received) assert.isAtMost(Buffer.byteLength(received.body), MiB)
      const last = JSON.parse(server.received.at(-1)!.body) as RelayWire.TurnRequest
      const newest = last.messages.at(-1)
      assert.isTrue(newest?._tag === "User" && newest.text.startsWith("11:"))
      // the history itself keeps every turn; only the requests are trimmed
      assert.strictEqual((yield* s.history).length, 24)
    }), 60_000)

  it.scopedLive("a turn that alone is larger than the relay takes is refused before it is sent: request_too_large, not retryable", () =>
    Effect.gen(function*() {
      const server = yield* start(relayDouble(MiB))
      const s = yield* sessionOver(server.url)
      const error = yield* Effect.flip(s.send("x".repeat(2 * MiB)))
      assert.isTrue(error._tag === "ProviderError" && error.code === "request_too_large" && !error.retryable, String(error))
      assert.strictEqual(server.received.length, 0)
      // the session goes on: the next, smaller turn is sent
      assert.strictEqual((yield* s.send("hi")).text, "answer 1")
    }), 60_000)

  it.scopedLive("a relay with a smaller limit than declared answers 413: the send fails request_too_large with the relay's message", () =>
    Effect.gen(function*() {
      const server = yield* start(relayDouble(64 * 1024))
      const s = yield* sessionOver(server.url)
      const error = yield* Effect.flip(s.send("y".repeat(100_000)))
      assert.isTrue(error._tag === "ProviderError" && error.code === "request_too_large" && !error.retryable, String(error))
      assert.include(error.message, "larger than 65536 bytes")
      // declaring the relay's real limit makes the same conversation fit
      const fitted = yield* sessionOver(server.url, { maxRequestBytes: 64 * 1024 })
      for (let i = 0; i < 3; i++) yield* fitted.send(`${i}:${"z".repeat(20_000)}`)
    }), 60_000)

  it.scopedLive("turns of CJK and emoji text (three and four bytes a character) keep going through: every request stays within 1 MiB", () =>
    Effect.gen(function*() {
      const server = yield* start(relayDouble(MiB))
      const s = yield* sessionOver(server.url)
      for (let i = 0; i < 8; i++) {
        const turn = yield* s.send(`${i}:${"漢字".repeat(50_000)}${"🌍".repeat(20_000)}`)
        assert.strictEqual(turn.text, `answer ${i + 1}`)
      }
      assert.strictEqual(server.received.length, 8)
      for (const received of server.received) assert.isAtMost(Buffer.byteLength(received.body), MiB)
      const last = JSON.parse(server.received.at(-1)!.body) as RelayWire.TurnRequest
      assert.isTrue(last.messages.at(-1)?._tag === "User" && (last.messages.at(-1) as { text: string }).text.startsWith("7:"))
      // older turns were left out whole: the request opens with a User message
      assert.strictEqual(last.messages[0]?._tag, "User")
    }), 60_000)

  it.live.prop(
    "arbitrary unicode turns: every request sent fits maxRequestBytes in UTF-8 bytes, and carries the current turn",
    [fc.array(unicodeText, { minLength: 1, maxLength: 6 })],
    ([texts]) =>
      Effect.gen(function*() {
        const limit = 16 * 1024
        const server = yield* start(relayDouble(limit))
        const s = yield* sessionOver(server.url, { maxRequestBytes: limit })
        for (const text of texts) {
          const sent = server.received.length
          const result = yield* Effect.either(s.send(text))
          // a turn that fits alone is always sent, whatever came before (with room for the request's other fields
          // and the session's summary of the turns left out, which is bounded: 12 lines of two short quotes)
          const alone = Buffer.byteLength(JSON.stringify({ _tag: "User", text })) + 10 * 1024
          if (alone <= limit) assert.isTrue(Either.isRight(result), `a turn of ${alone} bytes failed: ${String(Either.isLeft(result) && result.left)}`)
          if (Either.isLeft(result)) {
            // only a turn that alone does not fit may fail, and then it is not sent
            assert.isTrue(result.left._tag === "ProviderError" && result.left.code === "request_too_large", String(result.left))
            assert.strictEqual(server.received.length, sent)
          } else {
            const last = JSON.parse(server.received.at(-1)!.body) as RelayWire.TurnRequest
            assert.deepStrictEqual(last.messages.at(-1), { _tag: "User", text })
          }
        }
        for (const received of server.received) assert.isAtMost(Buffer.byteLength(received.body), limit)
      }).pipe(Effect.scoped),
    { timeout: 120_000, fastCheck: { numRuns: 20, endOnFailure: true } }
  )
})

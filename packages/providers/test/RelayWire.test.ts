import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Chunk, Effect, Either, FastCheck, Schema, Stream } from "effect"
import { JsonValue as J } from "@toolgate/json-schema"
import { StreamEvent } from "@toolgate/runtime"
import type { Errors } from "@toolgate/runtime"
import * as RelayWire from "../src/RelayWire.js"
import { assistant, result, user } from "./support/messages.js"

const encoder = new TextEncoder()

/** `text` as UTF-8 bytes, cut at the given byte offsets (so a chunk may end inside a character). */
const bytes = (text: string, cuts: ReadonlyArray<number> = []): Stream.Stream<Uint8Array> => {
  const all = encoder.encode(text)
  const at = [...new Set(cuts.map((c) => Math.min(Math.max(0, c), all.length)))].sort((a, b) => a - b)
  const pieces: Array<Uint8Array> = []
  let start = 0
  for (const cut of [...at, all.length]) {
    pieces.push(all.subarray(start, cut))
    start = cut
  }
  return Stream.fromIterable(pieces)
}

const decode = (text: string, cuts: ReadonlyArray<number> = []) =>
  RelayWire.decodeEvents(bytes(text, cuts)).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)

const failure = (outcome: Either.Either<unknown, Errors.ProviderError>): Errors.ProviderError => {
  assert.isTrue(Either.isLeft(outcome), JSON.stringify(outcome))
  return (outcome as Either.Left<Errors.ProviderError, never>).left
}

/** Collects the events emitted before a failure. */
const before = (text: string) =>
  Effect.gen(function*() {
    const seen: Array<StreamEvent.StreamEvent> = []
    const outcome = yield* RelayWire.decodeEvents(bytes(text)).pipe(Stream.runForEach((e) => Effect.sync(() => seen.push(e))), Effect.either)
    return { seen, outcome }
  })

const event = Arbitrary.make(StreamEvent.StreamEvent)

describe("RelayWire: events", () => {
  it.effect.prop(
    "encode → decode gives back every event of every kind, however the bytes are cut",
    [FastCheck.array(event, { maxLength: 12 }), FastCheck.array(FastCheck.nat(4000), { maxLength: 8 })],
    ([events, cuts]) =>
      Effect.gen(function*() {
        const text = events.map(RelayWire.encodeEvent).join("")
        assert.deepStrictEqual(yield* decode(text, cuts), Either.right(events))
      }),
    { fastCheck: { numRuns: 60 }, timeout: 60_000 }
  )

  it.effect("every tag appears in the arbitrary's output (the property covers each kind)", () =>
    Effect.gen(function*() {
      const tags = new Set(FastCheck.sample(event, 2000).map((e) => e._tag))
      assert.strictEqual(tags.size, 11)
    }))

  it.effect("a block is one data line of JSON: text with newlines cannot split it", () =>
    Effect.gen(function*() {
      const wire = RelayWire.encodeEvent({ _tag: "TextDelta", text: "a\nb\r\n\nc" })
      assert.strictEqual(wire, `data: {"_tag":"TextDelta","text":"a\\nb\\r\\n\\nc"}\n\n`)
    }))

  it.effect("event: error → ProviderError with its reason and retryable, after the events before it", () =>
    Effect.gen(function*() {
      const text = RelayWire.encodeEvent({ _tag: "TextDelta", text: "hi" }) + RelayWire.encodeError("upstream overloaded", true) +
        RelayWire.encodeEvent({ _tag: "Done" })
      const { outcome, seen } = yield* before(text)
      assert.deepStrictEqual(seen, [{ _tag: "TextDelta", text: "hi" }])
      const error = failure(outcome)
      assert.strictEqual(error.reason, "upstream overloaded")
      assert.isTrue(error.retryable)
      assert.strictEqual(error.provider, "cloud-relay")
      const fatal = failure(yield* decode(RelayWire.encodeError("no such scenario", false)))
      assert.isFalse(fatal.retryable)
    }))

  it.effect("a malformed data line → ProviderError \"malformed event\", not retryable, events before it kept", () =>
    Effect.gen(function*() {
      for (const data of ["{not json", "42", "null", `{"_tag":"Nope"}`, `{"_tag":"Usage","inputTokens":-1,"outputTokens":0}`, `{"_tag":"TextDelta"}`]) {
        const { outcome, seen } = yield* before(`${RelayWire.encodeEvent({ _tag: "TextDelta", text: "ok" })}data: ${data}\n\n`)
        assert.deepStrictEqual(seen, [{ _tag: "TextDelta", text: "ok" }], data)
        const error = failure(outcome)
        assert.strictEqual(error.reason, "malformed event", data)
        assert.isFalse(error.retryable)
        assert.isTrue((error.cause ?? "").length <= 301)
      }
      const badError = failure(yield* decode("event: error\ndata: {\"reason\":3}\n\n"))
      assert.strictEqual(badError.reason, "malformed event")
    }))

  it.effect("a truncated body: the events before the cut, then the end (no Done, no error)", () =>
    Effect.gen(function*() {
      const full = [{ _tag: "TextDelta", text: "one" }, { _tag: "TextDelta", text: "two" }, { _tag: "Done" }] as const
      const text = full.map(RelayWire.encodeEvent).join("")
      const lastStart = text.length - RelayWire.encodeEvent({ _tag: "Done" }).length
      for (let cut = lastStart; cut < text.length; cut++) {
        assert.deepStrictEqual(yield* decode(text.slice(0, cut)), Either.right(full.slice(0, 2)), `cut at ${cut}`)
      }
      assert.deepStrictEqual(yield* decode(""), Either.right([]))
    }))

  it.effect("other event types and comments are skipped", () =>
    Effect.gen(function*() {
      const text = `: keepalive\n\nevent: ping\ndata: {}\n\n${RelayWire.encodeEvent({ _tag: "Done" })}`
      assert.deepStrictEqual(yield* decode(text), Either.right([{ _tag: "Done" }]))
    }))

  it.effect("the body's own failure passes through untouched", () =>
    Effect.gen(function*() {
      const body = Stream.concat(bytes(RelayWire.encodeEvent({ _tag: "Done" })), Stream.fail("socket closed" as const))
      const outcome = yield* RelayWire.decodeEvents(body).pipe(Stream.runCollect, Effect.either)
      assert.deepStrictEqual(outcome, Either.left("socket closed"))
    }))
})

describe("RelayWire: hostile input", () => {
  it.effect("encodeEvent on a value that is not an event gives an error block, never a throw", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      for (const bad of [null, undefined, 42, "Done", {}, { _tag: "Nope" }, { _tag: "Usage", inputTokens: 1.5, outputTokens: 0 }, { _tag: "ToolCallCompleted", id: "x", result: cyclic }, { _tag: "ToolCallCompleted", id: "x", result: 1n }]) {
        const wire = RelayWire.encodeEvent(bad as unknown as StreamEvent.StreamEvent)
        const error = failure(yield* decode(wire))
        assert.isFalse(error.retryable)
        assert.include(error.reason, "not a StreamEvent")
      }
      const odd = RelayWire.encodeError(undefined as unknown as string, "yes" as unknown as boolean)
      assert.isFalse(failure(yield* decode(odd)).retryable)
    }))

  it.effect("__proto__ in event JSON stays data and pollutes nothing", () =>
    Effect.gen(function*() {
      const text = `data: {"_tag":"ToolCallComplete","id":"c","name":"t","arguments":{"__proto__":{"polluted":true}},"__proto__":{"polluted":true}}\n\n` +
        `data: {"_tag":"ToolCallCompleted","id":"c","result":{"constructor":{"prototype":{"polluted":true}}}}\n\n`
      const events = Either.getOrThrow(yield* decode(text))
      const call = events[0] as StreamEvent.ToolCallComplete
      assert.isTrue(Object.hasOwn(call.arguments as object, "__proto__"))
      assert.deepStrictEqual(JSON.parse(JSON.stringify(call.arguments)), JSON.parse(`{"__proto__":{"polluted":true}}`))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      assert.isUndefined((Object.prototype as unknown as Record<string, unknown>)["polluted"])
      // Round trip keeps the key as data.
      const again = Either.getOrThrow(yield* decode(RelayWire.encodeEvent(call)))
      assert.isTrue(Object.hasOwn((again[0] as StreamEvent.ToolCallComplete).arguments as object, "__proto__"))
    }))

  it.effect("a 10 MB event arrives intact, in 64 KiB pieces", () =>
    Effect.gen(function*() {
      const big: StreamEvent.StreamEvent = { _tag: "TextDelta", text: "é".repeat(5_000_000) }
      const text = RelayWire.encodeEvent(big) + RelayWire.encodeEvent({ _tag: "Done" })
      const cuts = Array.from({ length: Math.ceil((text.length * 2) / 65_536) }, (_, i) => (i + 1) * 65_536)
      const events = Either.getOrThrow(yield* decode(text, cuts))
      assert.strictEqual(events.length, 2)
      assert.strictEqual((events[0] as StreamEvent.TextDelta).text, (big as StreamEvent.TextDelta).text)
    }), 120_000)

  it.effect("a 10 MB malformed event is a clipped ProviderError, whatever is wrong with it", () =>
    Effect.gen(function*() {
      const pad = "y".repeat(10_000_000)
      for (const data of [`{${pad}`, `{"_tag":"Nope","pad":"${pad}"}`, `{"_tag":"TextDelta","text":5,"pad":"${pad}"}`]) {
        const error = failure(yield* decode(`data: ${data}\n\n`))
        assert.strictEqual(error.reason, "malformed event")
        assert.isTrue((error.cause ?? "").length <= 301)
      }
    }), 120_000)

  it.effect("100,000 events decode in order", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 100_000 }, (_, i) => RelayWire.encodeEvent({ _tag: "TextDelta", text: String(i) })).join("")
      const cuts = Array.from({ length: 100 }, (_, i) => i * 40_000)
      const events = Either.getOrThrow(yield* decode(text, cuts))
      assert.strictEqual(events.length, 100_000)
      assert.isTrue(events.every((e, i) => e._tag === "TextDelta" && e.text === String(i)))
    }), 60_000)

  it.effect("10,000-level arguments survive the round trip", () =>
    Effect.gen(function*() {
      let deep: unknown = "leaf"
      for (let i = 0; i < 10_000; i++) deep = [deep]
      const call = { _tag: "ToolCallComplete", id: "d", name: "t", arguments: deep } as StreamEvent.StreamEvent
      const events = Either.getOrThrow(yield* decode(RelayWire.encodeEvent(call)))
      assert.strictEqual(events.length, 1)
      // chai's deep equality recurses; the library's own comparison does not.
      assert.isTrue(J.equals((events[0] as StreamEvent.ToolCallComplete).arguments!, deep as J.JsonValue))
    }))
})

describe("RelayWire.decodeBlocks: hostile blocks", () => {
  /** Plays `chunks` of blocks (each a chunk, as a bounded reader hands them over); the events seen, then the outcome. */
  const play = (...chunks: ReadonlyArray<ReadonlyArray<{ readonly event: string; readonly data: string }>>) =>
    Effect.gen(function*() {
      const seen: Array<StreamEvent.StreamEvent> = []
      const outcome = yield* RelayWire.decodeBlocks(Stream.fromChunks(...chunks.map((c) => Chunk.fromIterable(c)))).pipe(
        Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
        Effect.either
      )
      return { seen, outcome }
    })
  const message = (data: string) => ({ event: "message", data })

  it.effect("events before a truncated, wrong-typed or odd block are kept; the block is a clipped ProviderError; odd event names are skipped; nothing after is read", () =>
    Effect.gen(function*() {
      const hello = { _tag: "TextDelta", text: "hello" } as const
      for (const bad of ["{\"_tag\":\"TextDel", "", "null", "[]", "{\"__proto__\":{\"_tag\":\"Done\"}}", `{"_tag":"TextDelta","text":"${"x".repeat(1_000_000)}`]) {
        const { outcome, seen } = yield* play(
          [message(JSON.stringify(hello)), { event: "__proto__", data: "{}" }, { event: "constructor", data: "x" }, { event: "", data: "x" }],
          [message(bad), message("{\"_tag\":\"Done\"}")]
        )
        assert.deepStrictEqual(seen, [hello], bad.slice(0, 30))
        const error = failure(outcome)
        assert.deepStrictEqual([error.reason, error.retryable], ["malformed event", false])
        assert.isAtMost((error.cause ?? "").length, 301)
      }
      assert.isUndefined(({} as Record<string, unknown>)["_tag"])
    }))

  it.effect("an error block whose data is truncated, wrong-typed or huge is malformed, not retryable; a well-formed one keeps its reason and retryable", () =>
    Effect.gen(function*() {
      const cases = ["{\"reason\":\"x\",\"retry", "{\"reason\":42,\"retryable\":true}", "{\"reason\":\"x\",\"retryable\":\"yes\"}", "{\"__proto__\":{\"reason\":\"x\",\"retryable\":true}}", `{"reason":${"[".repeat(10_000)}`, "y".repeat(10_000_000)]
      for (const data of cases) {
        const error = failure((yield* play([{ event: "error", data }])).outcome)
        assert.deepStrictEqual([error.reason, error.retryable], ["malformed event", false], data.slice(0, 30))
        assert.isAtMost((error.cause ?? "").length, 301)
      }
      const relayed = failure((yield* play([{ event: "error", data: "{\"reason\":\"__proto__\",\"retryable\":true,\"extra\":1}" }])).outcome)
      assert.deepStrictEqual([relayed.reason, relayed.retryable], ["__proto__", true])
    }))
})

describe("RelayWire.TurnRequest", () => {
  it.effect("a request of real messages round-trips through JSON; tool definitions are not a field", () =>
    Effect.gen(function*() {
      const request: RelayWire.TurnRequest = {
        messages: [user("hi"), assistant("", 2), result("call_1"), result("call_2"), assistant("done")],
        tools: ["get_weather", "search"],
        toolChoice: "auto"
      }
      const json = Schema.encodeSync(Schema.parseJson(RelayWire.TurnRequest))(request)
      assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.parseJson(RelayWire.TurnRequest))(json), request)
      const withSchemas = { ...request, tools: [{ name: "get_weather", parameters: {} }] }
      assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(RelayWire.TurnRequest)(withSchemas)))
      assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(RelayWire.TurnRequest)({ ...request, toolChoice: "any" })))
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import * as Sse from "../src/internal/sse.js"

const read = (...pieces: ReadonlyArray<string>) =>
  Stream.fromIterable(pieces).pipe(Sse.parseText, Stream.runCollect, Effect.map(Chunk.toReadonlyArray))

describe("sse", () => {
  it.effect("splits blocks on blank lines, whatever the line ending and wherever a chunk ends", () =>
    Effect.gen(function*() {
      const text = "data: a\r\n\r\nevent: error\rdata: b\rdata: c\r\r: note\nid: 7\ndata:d\n\n"
      const whole = yield* read(text)
      assert.deepStrictEqual(whole, [
        { event: "message", data: "a" },
        { event: "error", data: "b\nc" },
        { event: "message", data: "d" }
      ])
      for (let cut = 1; cut < text.length; cut++) {
        assert.deepStrictEqual(yield* read(text.slice(0, cut), text.slice(cut)), whole, `cut at ${cut}`)
      }
      assert.deepStrictEqual(yield* read(...text), whole)
      assert.deepStrictEqual(yield* read("data: a\r", "", "\ndata: b\r\n\r\n"), [{ event: "message", data: "a\nb" }])
    }))

  it.effect("drops a block the stream cut off and one without data", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read("event: x\n\ndata: {\"partial\""), [])
    }))

  it.effect("encode and parse round-trip multi-line data", () =>
    Effect.gen(function*() {
      const events = [{ event: "message", data: "{\"a\":1}" }, { event: "error", data: "line 1\nline 2" }]
      assert.deepStrictEqual(yield* read(events.map(Sse.encode).join("")), events)
    }))

  it.effect("a megabyte of data in one event and 10,000 tiny events stay linear and intact", () =>
    Effect.gen(function*() {
      const big = "x".repeat(1_000_000)
      assert.strictEqual((yield* read(`data: ${big}\n\n`))[0]?.data.length, big.length)
      const many = yield* read("data: 1\n\n".repeat(10_000))
      assert.strictEqual(many.length, 10_000)
    }))
})

describe("sse within a limit", () => {
  const limited = (max: number, ...pieces: ReadonlyArray<string>) =>
    Stream.fromIterable(pieces).pipe((text) => Sse.parseText(text, { maxEventLength: max, onExceed: () => "too large" }), Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)

  it.effect("events up to the limit pass; one past it fails, counted over its data lines or one unfinished line", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* limited(10, "data: 12345\ndata: 12345\n\n"), Either.right([{ event: "message", data: "12345\n12345" }]))
      assert.deepStrictEqual(yield* limited(10, "data: 12345\ndata: 123456\n\n"), Either.left("too large"))
      // a line that never ends (data or a comment) is cut off as soon as it is past the limit
      assert.deepStrictEqual(yield* limited(10, "data: 1", "234567", "89012345"), Either.left("too large"))
      assert.deepStrictEqual(yield* limited(10, ": a keep-alive comment that goes on"), Either.left("too large"))
      // the count starts again with each event
      assert.deepStrictEqual((yield* limited(10, "data: 1234567890\n\n".repeat(100))).pipe(Either.map((e) => e.length)), Either.right(100))
    }))
})

describe("sse at scale", () => {
  it.effect("one 8 MB event arriving in 4 KB pieces is read whole (linear: each piece is scanned once)", () =>
    Effect.gen(function*() {
      const text = `data: ${"y".repeat(8_000_000)}\n\n`
      const pieces: Array<string> = []
      for (let i = 0; i < text.length; i += 4096) pieces.push(text.slice(i, i + 4096))
      const events = yield* read(...pieces)
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]?.data.length, 8_000_000)
    }))
})

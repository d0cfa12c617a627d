import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck, Stream } from "effect"
import type { StreamEvent } from "@toolgate/runtime"
// Relative until the runtime barrel exports EventContract.
import * as EventContract from "@toolgate/runtime/EventContract"
import { events } from "../src/internal/chatCompletionsEvents.js"
import { collect, fixture, provider, replay, request, start } from "./OpenAiCompatible.support.js"

const weather0 = "call_Xq7aGd2kPz9mLr4TbN1wYc8e"
const weather1 = "call_Bn3sVf6hJq0wKe2RuL5xTa7d"

/** What the recorded OpenAI stream with two interleaved parallel calls stands for. */
const parallel: ReadonlyArray<StreamEvent.StreamEvent> = [
  { _tag: "TextDelta", text: "Let me check " },
  { _tag: "TextDelta", text: "the weather in " },
  { _tag: "TextDelta", text: "both cities." },
  { _tag: "ToolCallPartial", id: weather0, name: "get_weather", argsDelta: "{\"ci" },
  { _tag: "ToolCallPartial", id: weather1, name: "get_weather", argsDelta: "{\"city\"" },
  { _tag: "ToolCallPartial", id: weather0, name: "get_weather", argsDelta: "ty\": \"Par" },
  { _tag: "ToolCallPartial", id: weather1, name: "get_weather", argsDelta: ": \"Tōkyō\", \"unit\": \"c" },
  { _tag: "ToolCallPartial", id: weather0, name: "get_weather", argsDelta: "is\", \"unit\"" },
  { _tag: "ToolCallPartial", id: weather1, name: "get_weather", argsDelta: "elsius\"}" },
  { _tag: "ToolCallPartial", id: weather0, name: "get_weather", argsDelta: ": \"celsius\"}" },
  { _tag: "ToolCallComplete", id: weather0, name: "get_weather", arguments: "{\"city\": \"Paris\", \"unit\": \"celsius\"}" },
  { _tag: "ToolCallComplete", id: weather1, name: "get_weather", arguments: "{\"city\": \"Tōkyō\", \"unit\": \"celsius\"}" },
  { _tag: "Usage", inputTokens: 112, outputTokens: 61 },
  { _tag: "Done" }
]

const llamaWeather = "eHkR3p0YtW5uQ1mZc8NfLa2VbG7sJx4D"
const llamaTime = "Tq9Lm2Xc6Vb0Nz4Hs8Jd1Kf5Gp3Wr7Ya"

const completes = (events: ReadonlyArray<StreamEvent.StreamEvent>) => events.filter((e) => e._tag === "ToolCallComplete")
const text = (events: ReadonlyArray<StreamEvent.StreamEvent>) =>
  events.map((e) => e._tag === "TextDelta" ? e.text : "").join("")

describe("OpenAiCompatible: recorded streams over loopback", () => {
  it.scopedLive("OpenAI: two parallel calls whose pieces interleave are assembled by index, whatever the cuts", () =>
    Effect.gen(function*() {
      for (const seed of [1, 2, 3, 5]) {
        const server = yield* start(replay(fixture("openai-parallel-tools.txt"), { seed, max: 64 }))
        const got = yield* collect(yield* provider(server))
        assert.deepStrictEqual(got, parallel, `seed ${seed}`)
      }
    }), 60_000)

  it.scopedLive("Ollama: the same events a byte at a time as in one piece", () =>
    Effect.gen(function*() {
      const recorded = fixture("openai-ollama-tools.txt")
      const whole = yield* collect(yield* provider(yield* start(replay(recorded, { max: recorded.length * 4 }))))
      const bytes = yield* collect(yield* provider(yield* start(replay(recorded, { max: 1 }))))
      assert.deepStrictEqual(bytes, whole)
      assert.strictEqual(completes(bytes).length, 2)
    }), 60_000)

  it.scopedLive("OpenAI: a text answer (multi-byte characters cut mid-sequence) keeps every character, then Usage and Done", () =>
    Effect.gen(function*() {
      for (const seed of [4, 9]) {
        const server = yield* start(replay(fixture("openai-text.txt"), { seed, max: 16 }))
        const got = yield* collect(yield* provider(server))
        assert.strictEqual(text(got), "Paris is 18°C and sunny; Tōkyō is 22°C. ☃\n")
        assert.strictEqual(got.filter((e) => e._tag === "TextDelta").length, 14)
        assert.deepStrictEqual(got.slice(-2), [{ _tag: "Usage", inputTokens: 231, outputTokens: 19 }, { _tag: "Done" }])
      }
    }), 60_000)

  it.scopedLive("llama.cpp: content null, calls one after the other, usage in the finish chunk", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-llamacpp-tools.txt"), { seed: 7 }))
      const got = yield* collect(yield* provider(server))
      assert.strictEqual(text(got), "")
      assert.deepStrictEqual(completes(got), [
        { _tag: "ToolCallComplete", id: llamaWeather, name: "get_weather", arguments: "{\"city\": \"Paris\"}" },
        { _tag: "ToolCallComplete", id: llamaTime, name: "get_time", arguments: "{\"zone\": \"Asia/Tokyo\"}" }
      ])
      const partials = got.filter((e) => e._tag === "ToolCallPartial")
      assert.strictEqual(partials.length, 12)
      assert.strictEqual(partials.filter((p) => p.id === llamaWeather).map((p) => p.argsDelta).join(""), "{\"city\": \"Paris\"}")
      assert.deepStrictEqual(got.slice(-2), [{ _tag: "Usage", inputTokens: 305, outputTokens: 38 }, { _tag: "Done" }])
    }), 30_000)

  it.scopedLive("Ollama: each call whole in one delta, no usage: one partial per call, the calls, Done without Usage", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-ollama-tools.txt"), { seed: 11 }))
      const got = yield* collect(yield* provider(server))
      assert.deepStrictEqual(got, [
        { _tag: "ToolCallPartial", id: "call_wteop8bt", name: "get_weather", argsDelta: "{\"city\":\"Paris\"}" },
        { _tag: "ToolCallPartial", id: "call_rk2xye1l", name: "get_time", argsDelta: "{\"zone\":\"Asia/Tokyo\"}" },
        { _tag: "ToolCallComplete", id: "call_wteop8bt", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
        { _tag: "ToolCallComplete", id: "call_rk2xye1l", name: "get_time", arguments: "{\"zone\":\"Asia/Tokyo\"}" },
        { _tag: "Done" }
      ])
    }), 30_000)

  it.scopedLive("a finished choice without [DONE] still ends the round; anything after [DONE] is not read", () =>
    Effect.gen(function*() {
      const recorded = fixture("openai-ollama-tools.txt")
      const noSentinel = yield* start(replay(recorded.replace("data: [DONE]\n\n", "")))
      assert.deepStrictEqual((yield* collect(yield* provider(noSentinel))).at(-1), { _tag: "Done" })
      const trailing = yield* start(replay(`${recorded}data: {"choices":[{"index":0,"delta":{"content":"late"}}]}\n\ndata: not json\n\n`, { end: false }))
      const got = yield* collect(yield* provider(trailing))
      assert.strictEqual(text(got), "")
      assert.deepStrictEqual(got.at(-1), { _tag: "Done" })
    }), 30_000)
})

describe("OpenAiCompatible: the session's event contract", () => {
  it.scopedLive("every recorded stream passes EventContract.check unchanged; a cut one fails it with missing_done", () =>
    Effect.gen(function*() {
      for (const name of ["openai-parallel-tools.txt", "openai-text.txt", "openai-llamacpp-tools.txt", "openai-ollama-tools.txt"]) {
        const p = yield* provider(yield* start(replay(fixture(name), { max: 256 })))
        const checked = yield* p.stream(request()).pipe(EventContract.check("appDriven"), Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)
        assert.isTrue(Either.isRight(checked), name)
        assert.deepStrictEqual(Either.isRight(checked) ? checked.right.at(-1) : undefined, { _tag: "Done" }, name)
      }
      const recorded = fixture("openai-parallel-tools.txt")
      const cut = yield* provider(yield* start(replay(recorded.slice(0, recorded.indexOf("\"finish_reason\":\"tool_calls\"") - 300))))
      const broken = yield* cut.stream(request()).pipe(EventContract.check("appDriven"), Stream.runDrain, Effect.flip)
      assert.strictEqual(broken._tag, "ProviderEventContractViolation")
      assert.strictEqual(broken._tag === "ProviderEventContractViolation" ? broken.rule : undefined, "missing_done")
    }), 60_000)
})

/** The pieces of several calls' argument texts, interleaved in random order (each call's own order kept). */
const interleaved = FastCheck.array(FastCheck.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }).chain((values) => {
  const texts = values.map((v) => JSON.stringify(v))
  const cuts = texts.map((t) => FastCheck.uniqueArray(FastCheck.integer({ min: 1, max: Math.max(1, t.length - 1) }), { maxLength: 6 }))
  const total = texts.length * 8
  return FastCheck.tuple(FastCheck.constant(texts), FastCheck.tuple(...cuts), FastCheck.array(FastCheck.nat(texts.length - 1), { minLength: total, maxLength: total }))
})

describe("OpenAiCompatible: assembling tool-call deltas (property)", () => {
  it.effect.prop("arguments cut anywhere and interleaved by index assemble to exactly each call's text, in index order", [interleaved], ([[texts, cuts, order]]) =>
    Effect.gen(function*() {
      const pieces = texts.map((t, i) => {
        const at = [0, ...[...cuts[i]!].filter((c) => c < t.length).sort((a, b) => a - b), t.length]
        return at.slice(1).map((end, k) => t.slice(at[k], end)).filter((p) => p !== "")
      })
      const queue = pieces.map((p) => [...p])
      const data: Array<string> = texts.map((_, i) => JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${i}`, type: "function", function: { name: "__proto__", arguments: "" } }] } }] }))
      const emit = (i: number) => data.push(JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: queue[i]!.shift() } }] } }] }))
      for (const i of order) if (queue[i]!.length > 0) emit(i)
      queue.forEach((q, i) => { while (q.length > 0) emit(i) })
      data.push(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }), "[DONE]")
      const got = yield* Stream.fromIterable(data.map((d) => ({ event: "message", data: d }))).pipe(
        events({ provider: "test", scrub: (s) => s }),
        Stream.runCollect,
        Effect.map(Chunk.toReadonlyArray),
        Effect.either
      )
      assert.isTrue(Either.isRight(got))
      if (Either.isLeft(got)) return
      assert.deepStrictEqual(completes(got.right), texts.map((t, i) => ({ _tag: "ToolCallComplete" as const, id: `call_${i}`, name: "__proto__", arguments: t })))
      assert.strictEqual(got.right.filter((e) => e._tag === "ToolCallPartial").length, pieces.flat().length)
      assert.deepStrictEqual(got.right.at(-1), { _tag: "Done" })
    }), { timeout: 60_000, fastCheck: { numRuns: 60 } })
})

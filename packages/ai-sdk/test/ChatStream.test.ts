/**
 * The mapping from a streamed turn's events to the AI SDK's UI message chunks, on hand-made event streams,
 * read back with the AI SDK's own `readUIMessageStream` (the reducer `useChat` runs): text, tool parts,
 * rejected arguments, text taken back, failures and defects, and for any sequence of events a stream the
 * reducer accepts that ends with exactly one `finish`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Errors, type SessionEvent } from "@toolgate/runtime"
import { readUIMessageStream } from "ai"
import { Chunk, Effect, Stream } from "effect"
import * as fc from "fast-check"
import { ChatStream } from "../src/index.js"

const started = (turn: number): SessionEvent.SessionEvent => ({ _tag: "TurnStarted", turn, text: "hi" })
const round = (r: number): ChatStream.Event => ({ _tag: "RoundStarted", turn: 1, round: r })
const text = (r: number, t: string): ChatStream.Event => ({ _tag: "TextDelta", turn: 1, round: r, text: t })
const called = (r: number, callId: string, outcome: SessionEvent.ToolCalled["outcome"], args: unknown = { city: "Paris" }): ChatStream.Event => ({
  _tag: "ToolCalled",
  turn: 1,
  round: r,
  callId,
  tool: "get_weather",
  arguments: args as never,
  outcome,
  issues: outcome === "invalid" ? [{ path: "/units", field: "units", keyword: "enum", expected: "one of metric, imperial", message: "Argument `units` must be one of metric, imperial; got \"kelvin\"." }] : []
})
const answered = (r: number, callId: string, ok: boolean): ChatStream.Event => ({
  _tag: "ToolAnswered",
  turn: 1,
  round: r,
  callId,
  tool: "get_weather",
  envelope: ok ? { ok: true, result: { temperature: 18 } } : { ok: false, kind: "invalid_args", message: "Argument `units` is invalid.", retryable: true }
})
const committed: ChatStream.Event = { _tag: "TurnCommitted", turn: 1, rounds: 2, toolCalls: 1 }
const finished: ChatStream.Event = {
  _tag: "TurnFinished",
  turn: { turn: 1, text: "", calls: [], usage: { roundTrips: 1, repairs: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 } as never, warnings: [], requestWarnings: [], gate: undefined }
}

const chunksOf = <E extends ChatStream.Reportable>(events: Stream.Stream<ChatStream.Event, E>, discardedText: "mark" | "remove" = "mark") =>
  Effect.map(Stream.runCollect(ChatStream.fromEvents(events, { messageId: "m1", discardedText })), Chunk.toReadonlyArray)

/** The last UI message the AI SDK's reader builds from the chunks, and the errors it reported. */
const read = (chunks: ReadonlyArray<ChatStream.UiChunk>) =>
  Effect.promise(async () => {
    const errors: Array<string> = []
    let last: ChatStream.ChatMessage | undefined
    const stream = new ReadableStream<ChatStream.UiChunk>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c)
        controller.close()
      }
    })
    for await (const message of readUIMessageStream<ChatStream.ChatMessage>({ stream: stream as never, onError: (e) => errors.push(String(e)) })) last = message
    return { message: last, errors }
  })

const types = (chunks: ReadonlyArray<ChatStream.UiChunk>) => chunks.map((c) => c.type)

describe("ChatStream.fromEvents", () => {
  it.effect("text streams in a step per round; an accepted call is a tool part with its output; the stream ends with finish", () =>
    Effect.gen(function*() {
      const chunks = yield* chunksOf(Stream.fromIterable<ChatStream.Event>([
        started(1), round(1), text(1, "Let me "), text(1, "check. "), called(1, "call_1", "valid"), answered(1, "call_1", true),
        round(2), text(2, "18 °C."), committed, finished
      ]))
      assert.deepStrictEqual(types(chunks), [
        "start", "start-step", "text-start", "text-delta", "text-delta", "text-end", "tool-input-available", "tool-output-available", "finish-step",
        "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"
      ])
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "stop" })
      const { errors, message } = yield* read(chunks)
      assert.deepStrictEqual(errors, [])
      assert.strictEqual(message?.id, "m1")
      const parts = message!.parts
      assert.deepStrictEqual(parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text), ["Let me check. ", "18 °C."])
      const tool = parts.find((p) => p.type === "tool-get_weather") as { state: string; input: unknown; output: unknown } | undefined
      assert.deepStrictEqual([tool?.state, tool?.input, tool?.output], ["output-available", { city: "Paris" }, { temperature: 18 }])
    }))

  it.effect("a call with bad arguments is a tool part in output-error with the issues; the repaired call runs", () =>
    Effect.gen(function*() {
      const chunks = yield* chunksOf(Stream.fromIterable<ChatStream.Event>([
        round(1), called(1, "call_1", "invalid", { city: "Madrid", units: "kelvin" }), answered(1, "call_1", false),
        { _tag: "RepairSpent", turn: 1, round: 1, repairs: 1, limit: 2, issues: [] },
        round(2), called(2, "call_2", "valid"), answered(2, "call_2", true), round(3), text(3, "ok"), finished
      ]))
      const { errors, message } = yield* read(chunks)
      assert.deepStrictEqual(errors, [])
      const tools = message!.parts.filter((p) => p.type === "tool-get_weather") as unknown as Array<{ toolCallId: string; state: string; errorText?: string }>
      assert.deepStrictEqual(tools.map((t) => [t.toolCallId, t.state]), [["call_1", "output-error"], ["call_2", "output-available"]])
      assert.match(tools[0]!.errorText!, /Argument `units` must be one of metric, imperial/)
      assert.isTrue(message!.parts.some((p) => p.type === "data-toolgate-repair"))
    }))

  it.effect("a typed failure is an error chunk, then finish; compensation is reported first", () =>
    Effect.gen(function*() {
      const error = new Errors.ProviderError({ provider: "scripted", reason: "the relay went away", retryable: false })
      const events = Stream.fromIterable<ChatStream.Event>([
        round(1), text(1, "partial"),
        { _tag: "TurnCompensated", turn: 1, executed: ["k1"], compensated: ["k1"], notCompensated: [] }
      ]).pipe(Stream.concat(Stream.fail(error)))
      const chunks = yield* chunksOf(events)
      assert.deepStrictEqual(types(chunks).slice(-4), ["finish-step", "data-toolgate-compensated", "error", "finish"])
      assert.deepStrictEqual(chunks.at(-2), { type: "error", errorText: `ProviderError: ${error.message}` })
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "error" })
      const { errors } = yield* read(chunks)
      assert.deepStrictEqual(errors, [`Error: ProviderError: ${error.message}`])
    }))

  it.effect("errorText replaces the text of a failure; a defect is an error chunk that says nothing of it", () =>
    Effect.gen(function*() {
      const hidden = yield* Stream.runCollect(ChatStream.fromEvents(Stream.fail(new Errors.TurnDeadlineExceeded({ limitMillis: 5 })), { errorText: (e) => e._tag }))
      assert.deepStrictEqual(Chunk.toReadonlyArray(hidden), [{ type: "start" }, { type: "error", errorText: "TurnDeadlineExceeded" }, { type: "finish", finishReason: "error" }])
      const died = yield* chunksOf(Stream.concat(Stream.make(round(1)), Stream.die(new Error("secret detail"))))
      assert.deepStrictEqual(died.slice(-2), [{ type: "error", errorText: "the turn failed unexpectedly" }, { type: "finish", finishReason: "error" }])
    }))

  const discardedRound = (discardedText: "mark" | "remove") =>
    chunksOf(Stream.fromIterable<ChatStream.Event>([
      round(1), text(1, "Looking it "), { _tag: "ToolCallStarted", turn: 1, round: 1, callId: "call_1", tool: "get_weather" }, text(1, "up"),
      { _tag: "RoundDiscarded", turn: 1, round: 1, reason: "the round broke the event contract" }, text(1, "Again."), finished
    ]), discardedText)

  it.effect("a discarded round's text is kept and marked: its text part ends, a data part in its step names the round", () =>
    Effect.gen(function*() {
      const chunks = yield* discardedRound("mark")
      assert.notInclude(types(chunks), "reset-step")
      const { errors, message } = yield* read(chunks)
      assert.deepStrictEqual(errors, [])
      const parts = message!.parts
      assert.deepStrictEqual(parts.map((p) => p.type), ["step-start", "text", "tool-get_weather", "text", "data-toolgate-round-discarded", "text"])
      assert.deepStrictEqual(parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text), ["Looking it ", "up", "Again."])
    }))

  it.effect("with discardedText remove, the step is reset: the text is gone, its tool parts are kept, a data part names the round", () =>
    Effect.gen(function*() {
      const chunks = yield* discardedRound("remove")
      const { errors, message } = yield* read(chunks)
      assert.deepStrictEqual(errors, [])
      const parts = message!.parts
      assert.deepStrictEqual(parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text), ["Again."])
      assert.isTrue(parts.some((p) => p.type === "tool-get_weather"))
      const note = parts.find((p) => p.type === "data-toolgate-round-discarded") as { data: unknown } | undefined
      assert.deepStrictEqual(note?.data, { _tag: "RoundDiscarded", turn: 1, round: 1, reason: "the round broke the event contract" })
    }))

  it.effect("a stream that ends without TurnFinished still ends with finish", () =>
    Effect.gen(function*() {
      const chunks = yield* chunksOf(Stream.fromIterable<ChatStream.Event>([round(1), text(1, "a")]))
      assert.deepStrictEqual(types(chunks), ["start", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"])
    }))

  const event: fc.Arbitrary<ChatStream.Event> = fc.oneof(
    fc.integer({ min: 1, max: 3 }).map(round),
    fc.string({ maxLength: 3 }).map((t) => text(1, t)),
    fc.constantFrom("c1", "c2", "c3").chain((id) =>
      fc.oneof(
        fc.constantFrom<SessionEvent.ToolCalled["outcome"]>("valid", "invalid", "unknown_tool", "skipped").map((o) => called(1, id, o)),
        fc.boolean().map((ok) => answered(1, id, ok)),
        fc.constant<ChatStream.Event>({ _tag: "ToolCallStarted", turn: 1, round: 1, callId: id, tool: "get_weather" })
      )),
    fc.constant<ChatStream.Event>({ _tag: "RoundDiscarded", turn: 1, round: 1, reason: "r" }),
    fc.constant<ChatStream.Event>({ _tag: "RepairSpent", turn: 1, round: 1, repairs: 1, limit: 2, issues: [] }),
    fc.constant<ChatStream.Event>({ _tag: "DriftGateChecked", turn: 1, outcome: "degraded", tools: [], detail: "d" }),
    fc.constant<ChatStream.Event>({ _tag: "TurnCompensated", turn: 1, executed: [], compensated: [], notCompensated: [] })
  )

  it.effect.prop(
    "any events, ending any way: the AI SDK's reader accepts every chunk and the stream ends with one finish",
    [fc.array(event, { maxLength: 30 }), fc.constantFrom("finished", "failed", "died", "ended"), fc.constantFrom<"mark" | "remove">("mark", "remove")],
    ([events, ending, discardedText]) =>
      Effect.gen(function*() {
        const tail = ending === "finished" ? Stream.make(finished)
          : ending === "failed" ? Stream.fail(new Errors.TurnDeadlineExceeded({ limitMillis: 1 }))
          : ending === "died" ? Stream.die("boom")
          : Stream.empty
        const chunks = yield* chunksOf(Stream.concat(Stream.fromIterable(events), tail), discardedText)
        assert.strictEqual(chunks.filter((c) => c.type === "finish").length, 1)
        assert.strictEqual(chunks.at(-1)?.type, "finish")
        const { errors } = yield* read(chunks)
        assert.strictEqual(errors.length, ending === "failed" || ending === "died" ? 1 : 0)
      }),
    { timeout: 30_000, fastCheck: { numRuns: 80 } }
  )
})

import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck, Stream } from "effect"
import { Errors, EventContract, type Provider, type StreamEvent } from "@toolgate/runtime"

type Event = StreamEvent.StreamEvent

/** Ids, hostile ones among them: bookkeeping on a plain object would trip over these. */
const id = FastCheck.oneof(
  FastCheck.constantFrom("__proto__", "constructor", "", "toString", "hasOwnProperty", "call_1"),
  FastCheck.string({ maxLength: 6 })
)

const terminalOf = (callId: string, kind: number): Event => {
  switch (kind % 5) {
    case 0: return { _tag: "ToolCallCompleted", id: callId, result: { ok: true } }
    case 1: return { _tag: "ToolCallDenied", id: callId, reason: "no" }
    case 2: return { _tag: "ToolCallFailed", id: callId, message: "broke" }
    case 3: return { _tag: "ToolCallCancelled", id: callId }
    default: return { _tag: "ToolCallConflict", id: callId, reason: "locked" }
  }
}

/**
 * A well-formed provider-driven trace: each id started once and ended once by a terminal of some kind,
 * starts and terminals interleaved as `schedule` says, text and usage between them, `Done` last.
 */
const providerTrace = FastCheck.tuple(
  FastCheck.uniqueArray(id, { maxLength: 12 }),
  FastCheck.array(FastCheck.nat(99), { maxLength: 60 })
).map(([ids, schedule]): Array<Event> => {
  const out: Array<Event> = []
  const pending = [...ids]
  const open: Array<string> = []
  let step = 0
  const startNext = () => {
    const next = pending.shift()!
    open.push(next)
    out.push({ _tag: "ToolCallStarted", id: next, name: "search" })
  }
  const endOne = (pick: number) => out.push(terminalOf(open.splice(pick % open.length, 1)[0]!, pick))
  while (pending.length > 0 || open.length > 0 || step < schedule.length) {
    const choice = schedule[step++]
    if (choice === undefined) pending.length > 0 ? startNext() : endOne(0)
    else if (choice % 4 === 0) out.push({ _tag: "TextDelta", text: `t${choice}` })
    else if (choice % 4 === 1) out.push({ _tag: "Usage", inputTokens: choice, outputTokens: 1 })
    else if (pending.length > 0 && (choice % 4 === 2 || open.length === 0)) startNext()
    else if (open.length > 0) endOne(choice >> 2)
  }
  out.push({ _tag: "Done" })
  return out
})

/** A well-formed app-driven trace: each id completed once, partials around it, text and usage between. */
const appTrace = FastCheck.uniqueArray(id, { maxLength: 12 }).map((ids): Array<Event> => [
  ...ids.flatMap((callId, i): Array<Event> => [
    { _tag: "TextDelta", text: `t${i}` },
    { _tag: "ToolCallPartial", id: callId, name: "get_weather", argsDelta: "{" },
    { _tag: "ToolCallComplete", id: callId, name: "get_weather", arguments: { city: "Oslo" } },
    { _tag: "ToolCallPartial", id: callId, name: "get_weather", argsDelta: "}" }
  ]),
  { _tag: "Usage", inputTokens: 1, outputTokens: 2 },
  { _tag: "Done" }
])

/** Any events at all, from a small id pool so repeats are common: mostly broken traces. */
const anyTrace = FastCheck.array(
  FastCheck.tuple(FastCheck.nat(10), FastCheck.constantFrom("a", "b", "__proto__", "")).map(([tag, callId]): Event => {
    switch (tag) {
      case 0: return { _tag: "TextDelta", text: "x" }
      case 1: return { _tag: "Usage", inputTokens: 1, outputTokens: 1 }
      case 2: return { _tag: "Done" }
      case 3: return { _tag: "ToolCallPartial", id: callId, name: "n", argsDelta: "" }
      case 4: return { _tag: "ToolCallComplete", id: callId, name: "n" }
      case 5: return { _tag: "ToolCallStarted", id: callId, name: "n" }
      default: return terminalOf(callId, tag)
    }
  }),
  { maxLength: 30 }
)

/** Chunk sizes (0 adds an empty chunk); the events cut by them, cycling, into a stream. */
const sizes = FastCheck.array(FastCheck.nat(5), { minLength: 1, maxLength: 8 })
const chunkedBy = (events: ReadonlyArray<Event>, cuts: ReadonlyArray<number>): Stream.Stream<Event> => {
  const chunks: Array<Chunk.Chunk<Event>> = []
  for (let i = 0, k = 0; i < events.length; k++) {
    const size = cuts[k % cuts.length]!
    if (size === 0) chunks.push(Chunk.empty())
    chunks.push(Chunk.fromIterable(events.slice(i, i + Math.max(1, size))))
    i += Math.max(1, size)
  }
  return Stream.fromChunks(...chunks)
}

/** The events that came out and the error, if any. */
const verdictOf = (model: Provider.ExecutionModel, stream: Stream.Stream<Event>) =>
  Stream.runCollect(Stream.either(stream.pipe(EventContract.check(model)))).pipe(Effect.map((items) => ({
    emitted: Chunk.toReadonlyArray(Chunk.filterMap(items, Either.getRight)),
    error: Chunk.toReadonlyArray(Chunk.filterMap(items, Either.getLeft))[0]
  })))

const violation = (rule: EventContract.Rule, callId?: string) =>
  new Errors.ProviderEventContractViolation(callId === undefined ? { rule } : { rule, callId })

/** `events` with `remove` events at `at` replaced by `insert` (a copy; the input is left as it was). */
const spliced = (events: ReadonlyArray<Event>, at: number, remove: number, ...insert: Array<Event>): Array<Event> => {
  const copy = [...events]
  copy.splice(at, remove, ...insert)
  return copy
}

/** Property runs are CPU-bound and the machine is shared: a generous bound, so only a hang fails on time. */
const timeout = 120_000

const isTool = (event: Event): event is Extract<Event, { readonly id: string }> => "id" in event

describe("EventContract.check (properties)", () => {
  it.effect.prop("a well-formed provider-driven trace passes unchanged, however it is chunked", [providerTrace, sizes], ([trace, cuts]) =>
    Effect.gen(function*() {
      const { emitted, error } = yield* verdictOf("providerDriven", chunkedBy(trace, cuts))
      assert.isUndefined(error)
      assert.strictEqual(emitted.length, trace.length)
      emitted.forEach((event, i) => assert.strictEqual(event, trace[i]))
    }), timeout)

  it.effect.prop("a well-formed app-driven trace passes unchanged; a repeated complete is duplicate_tool_call", [appTrace, sizes], ([trace, cuts]) =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* verdictOf("appDriven", chunkedBy(trace, cuts)), { emitted: trace, error: undefined })
      const completes = trace.flatMap((e, i) => e._tag === "ToolCallComplete" ? [i] : [])
      if (completes.length === 0) return
      const at = completes[cuts[0]! % completes.length]!
      const repeated = [...trace.slice(0, -1), trace[at]!, trace.at(-1)!]
      const { error } = yield* verdictOf("appDriven", chunkedBy(repeated, cuts))
      assert.deepStrictEqual(error, violation("duplicate_tool_call", (trace[at] as StreamEvent.ToolCallComplete).id))
    }), timeout)

  it.effect.prop("removing one event of a well-formed trace fails with the rule it breaks", [providerTrace, FastCheck.nat(), sizes], ([trace, pick, cuts]) =>
    Effect.gen(function*() {
      const at = pick % trace.length
      const removed = trace[at]!
      const { error } = yield* verdictOf("providerDriven", chunkedBy(spliced(trace, at, 1), cuts))
      if (removed._tag === "Done") assert.deepStrictEqual(error, violation("missing_done"))
      else if (removed._tag === "ToolCallStarted") assert.deepStrictEqual(error, violation("terminal_without_start", removed.id))
      else if (isTool(removed)) assert.deepStrictEqual(error, violation("start_without_terminal", removed.id))
      else assert.isUndefined(error) // text and usage carry no obligation
    }), timeout)

  it.effect.prop("duplicating one event of a well-formed trace fails with the rule it breaks", [providerTrace, FastCheck.nat(), FastCheck.nat(), sizes], ([trace, pick, where, cuts]) =>
    Effect.gen(function*() {
      const at = pick % trace.length
      const copy = trace[at]!
      // the copy lands anywhere after the original and before Done (a copied Done lands after the Done)
      const into = copy._tag === "Done" ? trace.length : at + 1 + (where % (trace.length - 1 - at))
      const { error } = yield* verdictOf("providerDriven", chunkedBy(spliced(trace, into, 0, copy), cuts))
      if (copy._tag === "Done") assert.deepStrictEqual(error, violation("event_after_done"))
      else if (copy._tag === "ToolCallStarted") assert.deepStrictEqual(error, violation("duplicate_start", copy.id))
      else if (isTool(copy)) assert.deepStrictEqual(error, violation("duplicate_terminal", copy.id))
      else assert.isUndefined(error)
    }), timeout)

  it.effect.prop("rechunking never changes the verdict, for any events, in either model", [anyTrace, sizes], ([trace, cuts]) =>
    Effect.gen(function*() {
      for (const model of ["appDriven", "providerDriven"] as const) {
        const whole = yield* verdictOf(model, Stream.fromIterable(trace))
        assert.deepStrictEqual(yield* verdictOf(model, chunkedBy(trace, cuts)), whole)
        assert.deepStrictEqual(yield* verdictOf(model, Stream.fromIterable(trace).pipe(Stream.rechunk(1))), whole)
        // the events that came out are always a prefix of the input, the whole input only when it passed
        assert.deepStrictEqual(whole.emitted, trace.slice(0, whole.emitted.length))
        assert.strictEqual(whole.error === undefined, whole.emitted.length === trace.length && trace.at(-1)?._tag === "Done")
      }
    }), timeout)

  it.effect.prop("violationIn (a round read whole) gives the stage's verdict, for any events, in either model, whole or cut short", [anyTrace, FastCheck.nat(31), FastCheck.nat(3)], ([trace, cut, max]) =>
    Effect.gen(function*() {
      for (const model of ["appDriven", "providerDriven"] as const) {
        const options = { maxToolCalls: max }
        const stage = (events: ReadonlyArray<Event>) =>
          Stream.runCollect(Stream.either(Stream.fromIterable(events).pipe(EventContract.check(model, options)))).pipe(
            Effect.map((items) => Chunk.toReadonlyArray(Chunk.filterMap(items, Either.getLeft))[0])
          )
        assert.deepStrictEqual(EventContract.violationIn(model, options, trace), yield* stage(trace))
        // cut short (as the session's event limit cuts a stream): the first events' rules only, no end-of-stream rule
        const taken = yield* Stream.runCollect(Stream.either(Stream.fromIterable(trace).pipe(EventContract.check(model, options), Stream.take(cut))))
        const streamed = Chunk.toReadonlyArray(Chunk.filterMap(taken, Either.getLeft))[0]
        if (cut < trace.length) assert.deepStrictEqual(EventContract.violationIn(model, options, trace.slice(0, cut), false), streamed)
      }
    }), timeout)
})

import { assert, describe, it } from "@effect/vitest"
import { Cause, Chunk, Effect, Either, Exit, Stream } from "effect"
import { Errors, EventContract, type Provider, StreamEvent } from "@toolgate/runtime"

type Event = StreamEvent.StreamEvent

const text = (t: string): Event => ({ _tag: "TextDelta", text: t })
const usage: Event = { _tag: "Usage", inputTokens: 10, outputTokens: 20 }
const done: Event = { _tag: "Done" }
const started = (id: string, name = "search"): Event => ({ _tag: "ToolCallStarted", id, name, arguments: { q: id } })
const completed = (id: string): Event => ({ _tag: "ToolCallCompleted", id, result: { ok: id } })
const denied = (id: string): Event => ({ _tag: "ToolCallDenied", id, reason: "the user said no" })
const failed = (id: string): Event => ({ _tag: "ToolCallFailed", id, message: "disk full" })
const cancelled = (id: string): Event => ({ _tag: "ToolCallCancelled", id })
const conflict = (id: string): Event => ({ _tag: "ToolCallConflict", id, reason: "locked" })
const partial = (id: string): Event => ({ _tag: "ToolCallPartial", id, name: "get_weather", argsDelta: "{\"ci" })
const complete = (id: string): Event => ({ _tag: "ToolCallComplete", id, name: "get_weather", arguments: "{\"city\":\"Oslo\"}" })

/** What a run of the checked stream shows: the events that came out, then the error if it failed. */
interface Verdict {
  readonly emitted: ReadonlyArray<Event>
  readonly error: Errors.ProviderEventContractViolation | Errors.ProviderError | undefined
}

const verdictOf = <E extends Verdict["error"]>(stream: Stream.Stream<Event, E>): Effect.Effect<Verdict> =>
  Stream.runCollect(Stream.either(stream)).pipe(Effect.map((items) => {
    const emitted: Array<Event> = []
    let error: Verdict["error"] = undefined
    for (const item of items) {
      if (Either.isRight(item)) emitted.push(item.right)
      else error = item.left
    }
    return { emitted, error }
  }))

/** The ways a trace may arrive: one chunk, one event per chunk, pairs, and uneven chunks with empty ones. */
const chunkings: ReadonlyArray<readonly [string, (events: ReadonlyArray<Event>) => Stream.Stream<Event>]> = [
  ["one chunk", (events) => Stream.fromIterable(events)],
  ["rechunk(1)", (events) => Stream.fromIterable(events).pipe(Stream.rechunk(1))],
  ["rechunk(2)", (events) => Stream.fromIterable(events).pipe(Stream.rechunk(2))],
  ["uneven with empty chunks", (events) => {
    const chunks: Array<Chunk.Chunk<Event>> = [Chunk.empty()]
    for (let i = 0, size = 1; i < events.length; i += size, size = (size % 3) + 1) {
      chunks.push(Chunk.fromIterable(events.slice(i, i + size)), Chunk.empty())
    }
    return Stream.fromChunks(...chunks)
  }]
]

/** Checks `events` under every chunking: they all give the same verdict, which is returned. */
const checkAll = (model: Provider.ExecutionModel, events: ReadonlyArray<Event>) =>
  Effect.gen(function*() {
    const verdicts: Array<Verdict> = []
    for (const [, stream] of chunkings) verdicts.push(yield* verdictOf(stream(events).pipe(EventContract.check(model))))
    const [first, ...rest] = verdicts
    for (const [i, other] of rest.entries()) {
      assert.deepStrictEqual(other.emitted, first!.emitted, `${chunkings[i + 1]![0]} emitted differently`)
      assert.deepStrictEqual(other.error, first!.error, `${chunkings[i + 1]![0]} failed differently`)
    }
    return first!
  })

/** The stream passes: every event comes out, the very same objects, in order. */
const passes = (model: Provider.ExecutionModel, events: ReadonlyArray<Event>) =>
  Effect.gen(function*() {
    const verdict = yield* checkAll(model, events)
    assert.isUndefined(verdict.error)
    assert.strictEqual(verdict.emitted.length, events.length)
    verdict.emitted.forEach((event, i) => assert.strictEqual(event, events[i]))
  })

/** The stream fails with `rule` for `callId`, after emitting exactly the first `before` events. */
const breaks = (
  model: Provider.ExecutionModel,
  events: ReadonlyArray<Event>,
  rule: EventContract.Rule,
  callId: string | undefined,
  before: number
) =>
  Effect.gen(function*() {
    const verdict = yield* checkAll(model, events)
    assert.instanceOf(verdict.error, Errors.ProviderEventContractViolation)
    assert.strictEqual(verdict.error.rule, rule)
    assert.strictEqual(verdict.error.callId, callId)
    assert.deepStrictEqual(verdict.emitted, events.slice(0, before))
  })

describe("EventContract.check: seed 004's provider-driven traces", () => {
  it.effect("a valid single call passes through unchanged", () =>
    passes("providerDriven", [text("Looking"), started("c1"), completed("c1"), text(" it up."), usage, done]))

  it.effect("valid parallel calls, interleaved, with every kind of terminal, pass through unchanged", () =>
    passes("providerDriven", [
      started("a"), started("b"), started("c"), text("…"), denied("b"), started("d"), completed("a"),
      failed("c"), started("e"), cancelled("d"), conflict("e"), usage, text("done"), done
    ]))

  it.effect("a terminal without a start fails with terminal_without_start and its id", () =>
    breaks("providerDriven", [text("hi"), started("a"), completed("x"), completed("a"), done], "terminal_without_start", "x", 2))

  it.effect("a duplicate start fails with duplicate_start, whether the first call is open or ended", () =>
    Effect.gen(function*() {
      yield* breaks("providerDriven", [started("a"), started("b"), started("a"), done], "duplicate_start", "a", 2)
      yield* breaks("providerDriven", [started("a"), completed("a"), started("a"), completed("a"), done], "duplicate_start", "a", 2)
    }))

  it.effect("a second terminal for an ended call fails with duplicate_terminal, whatever its kind", () =>
    Effect.gen(function*() {
      yield* breaks("providerDriven", [started("a"), completed("a"), completed("a"), done], "duplicate_terminal", "a", 2)
      yield* breaks("providerDriven", [started("a"), denied("a"), text("x"), failed("a"), done], "duplicate_terminal", "a", 3)
    }))

  it.effect("a start without a terminal fails at Done with the earliest open call; Done is not emitted", () =>
    Effect.gen(function*() {
      yield* breaks("providerDriven", [started("a"), started("b"), started("c"), completed("b"), done], "start_without_terminal", "a", 4)
      yield* breaks("providerDriven", [started("a"), completed("a"), started("b"), done], "start_without_terminal", "b", 3)
    }))

  it.effect("a stream that ends with a call open and no Done names the call (start_without_terminal, not missing_done)", () =>
    breaks("providerDriven", [started("a"), started("b"), completed("a")], "start_without_terminal", "b", 3))
})

describe("StreamEvent.roles: the one vocabulary", () => {
  it("has one role per member of the union, terminal exactly for the members of Terminal", () => {
    const tags = [text("t"), usage, done, partial("a"), complete("a"), started("a"), completed("a"), denied("a"), failed("a"), cancelled("a"), conflict("a")]
      .map((e) => e._tag)
    assert.deepStrictEqual([...StreamEvent.roles.keys()].sort(), [...tags].sort())
    assert.strictEqual(StreamEvent.StreamEvent.members.length, tags.length)
    const terminals = tags.filter((t) => StreamEvent.roles.get(t) === "terminal")
    assert.deepStrictEqual(terminals, ["ToolCallCompleted", "ToolCallDenied", "ToolCallFailed", "ToolCallCancelled", "ToolCallConflict"])
    assert.isTrue(StreamEvent.isTerminal(cancelled("a")))
    assert.isFalse(StreamEvent.isTerminal(started("a")))
    assert.isUndefined(StreamEvent.roles.get("constructor"))
  })

  it("decodeJson answers truncated JSON, wrong types and unknown tags with a Left; __proto__ stays data; 10 MB and 10,000 levels decode", () => {
    const hostile: ReadonlyArray<unknown> = [
      "{\"_tag\":\"TextDelta\",\"te",
      "",
      "null",
      "{\"__proto__\":{\"_tag\":\"Done\"}}",
      "{\"_tag\":\"constructor\"}",
      "{\"_tag\":\"TextDelta\",\"text\":42}",
      42,
      null,
      { _tag: "Done" },
      ["{\"_tag\":\"Done\"}"]
    ]
    for (const input of hostile) assert.isTrue(Either.isLeft(StreamEvent.decodeJson(input as string)), JSON.stringify(input))
    const polluting = StreamEvent.decodeJson("{\"_tag\":\"ToolCallComplete\",\"id\":\"__proto__\",\"name\":\"constructor\",\"arguments\":{\"__proto__\":{\"polluted\":true}}}")
    const call = Either.getOrThrow(polluting)
    assert.strictEqual(call._tag, "ToolCallComplete")
    const args = (call as { readonly arguments: object }).arguments
    assert.deepStrictEqual(Object.keys(args), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    const big = "x".repeat(10_000_000)
    assert.deepStrictEqual(StreamEvent.decodeJson(JSON.stringify({ _tag: "TextDelta", text: big })), Either.right({ _tag: "TextDelta", text: big }))
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
    const nested = StreamEvent.decodeJson(`{"_tag":"ToolCallComplete","id":"c","name":"t","arguments":{"x":${deep}}}`)
    assert.strictEqual(Either.getOrThrow(nested)._tag, "ToolCallComplete")
    // and what it decodes encodes back, at that depth too; a value that is no event encodes to nothing
    const text = StreamEvent.encodeJson(Either.getOrThrow(nested))
    assert.strictEqual(text, `{"_tag":"ToolCallComplete","id":"c","name":"t","arguments":{"x":${deep}}}`)
    for (const bad of [{ _tag: "Nope" }, { _tag: "TextDelta", text: 42 }, null, { _tag: "ToolCallComplete", id: "c", name: "t", arguments: { x: Number.NaN } }]) {
      assert.isUndefined(StreamEvent.encodeJson(bad as never), JSON.stringify(bad))
    }
  })
})

describe("EventContract.check: the rules of both models", () => {
  it.effect("anything after Done fails with event_after_done (a second Done too), naming the call when it has one", () =>
    Effect.gen(function*() {
      yield* breaks("appDriven", [text("a"), done, text("b")], "event_after_done", undefined, 2)
      yield* breaks("appDriven", [done, done], "event_after_done", undefined, 1)
      yield* breaks("appDriven", [done, complete("late")], "event_after_done", "late", 1)
      yield* breaks("providerDriven", [started("a"), completed("a"), done, completed("a")], "event_after_done", "a", 3)
      yield* breaks("providerDriven", [done, usage], "event_after_done", undefined, 1)
    }))

  it.effect("a stream without Done fails with missing_done, an empty stream too", () =>
    Effect.gen(function*() {
      yield* breaks("appDriven", [], "missing_done", undefined, 0)
      yield* breaks("providerDriven", [], "missing_done", undefined, 0)
      yield* breaks("appDriven", [text("a"), complete("c1"), usage], "missing_done", undefined, 3)
      yield* breaks("providerDriven", [text("a"), started("c1"), completed("c1")], "missing_done", undefined, 3)
    }))

  it.effect("an app-driven stream with a provider-driven event fails with wrong_execution_model", () =>
    Effect.gen(function*() {
      for (const event of [started("p"), completed("p"), denied("p"), failed("p"), cancelled("p"), conflict("p")]) {
        yield* breaks("appDriven", [text("a"), event, done], "wrong_execution_model", "p", 1)
      }
    }))

  it.effect("a provider-driven stream with an app-driven event fails with wrong_execution_model", () =>
    Effect.gen(function*() {
      yield* breaks("providerDriven", [text("a"), complete("q"), done], "wrong_execution_model", "q", 1)
      yield* breaks("providerDriven", [started("a"), partial("q"), completed("a"), done], "wrong_execution_model", "q", 1)
    }))

  it.effect("TextDelta, Usage and Done belong to both models", () =>
    Effect.gen(function*() {
      yield* passes("appDriven", [text("a"), usage, text("b"), usage, done])
      yield* passes("providerDriven", [text("a"), usage, text("b"), usage, done])
      yield* passes("appDriven", [done])
    }))

  it.effect("app-driven: a repeated ToolCallComplete id fails with duplicate_tool_call", () =>
    breaks("appDriven", [partial("a"), complete("a"), complete("b"), text("x"), complete("a"), done], "duplicate_tool_call", "a", 4))

  it.effect("app-driven: partials are never checked against completes (before, after, without one)", () =>
    passes("appDriven", [partial("a"), partial("a"), complete("a"), partial("a"), partial("z"), complete("b"), partial("b"), done]))

  it.effect("the first violation wins", () =>
    Effect.gen(function*() {
      // a duplicate start, then no terminal and no Done: the duplicate is reported
      yield* breaks("providerDriven", [started("a"), started("a")], "duplicate_start", "a", 1)
      // a stray terminal, then a wrong-model event, then two Dones
      yield* breaks("providerDriven", [completed("x"), complete("y"), done, done], "terminal_without_start", "x", 0)
      yield* breaks("appDriven", [complete("a"), started("s"), complete("a"), done], "wrong_execution_model", "s", 1)
    }))

  it("the error's message names the rule and the call", () => {
    const error = new Errors.ProviderEventContractViolation({ rule: "duplicate_start" satisfies EventContract.Rule, callId: "c7" })
    assert.include(error.message, "duplicate_start")
    assert.include(error.message, "call c7")
  })
})

describe("EventContract.check: upstream, reuse and laziness", () => {
  const providerError = new Errors.ProviderError({ provider: "scripted", reason: "connection reset", retryable: true })

  it.effect("an upstream failure passes through unchanged, after the events before it, never as a violation", () =>
    Effect.gen(function*() {
      for (const model of ["appDriven", "providerDriven"] as const) {
        const broken = Stream.concat(Stream.make(text("a"), text("b")), Stream.fail(providerError))
        const verdict = yield* verdictOf(broken.pipe(EventContract.check(model)))
        assert.strictEqual(verdict.error, providerError)
        assert.deepStrictEqual(verdict.emitted, [text("a"), text("b")])
      }
      // an open call and no Done: still the upstream failure, not start_without_terminal or missing_done
      const open = Stream.concat(Stream.make(started("a")), Stream.fail(providerError))
      assert.strictEqual((yield* verdictOf(open.pipe(EventContract.check("providerDriven")))).error, providerError)
      // after Done too
      const late = Stream.concat(Stream.make(done), Stream.fail(providerError))
      assert.strictEqual((yield* verdictOf(late.pipe(EventContract.check("appDriven")))).error, providerError)
    }))

  it.effect("an upstream defect stays a defect", () =>
    Effect.gen(function*() {
      const exit = yield* Stream.concat(Stream.make(text("a")), Stream.die("boom")).pipe(
        EventContract.check("appDriven"),
        Stream.runDrain,
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause) && !Cause.isFailType(exit.cause))
    }))

  it.effect("a violation stops the stream: nothing after the breaking event is pulled", () =>
    Effect.gen(function*() {
      let pulled = 0
      const rest = Stream.repeatEffect(Effect.sync(() => pulled++)).pipe(Stream.as(text("never")))
      const verdict = yield* verdictOf(
        Stream.concat(Stream.make(text("a"), completed("x")), rest).pipe(EventContract.check("providerDriven"))
      )
      assert.strictEqual(verdict.error?._tag, "ProviderEventContractViolation")
      assert.strictEqual(pulled, 0)
    }))

  it.effect("one stage value checks many streams, and a checked stream runs again with fresh state", () =>
    Effect.gen(function*() {
      const stage = EventContract.check("providerDriven")
      const trace = [started("a"), completed("a"), done]
      const checked = Stream.fromIterable(trace).pipe(stage)
      // the same ids in every run: a stage sharing state across runs would see duplicate starts
      for (let run = 0; run < 3; run++) assert.isUndefined((yield* verdictOf(checked)).error)
      assert.isUndefined((yield* verdictOf(Stream.fromIterable(trace).pipe(stage))).error)
      const broken = yield* verdictOf(Stream.make(completed("a"), done).pipe(stage))
      assert.strictEqual(broken.error?._tag === "ProviderEventContractViolation" ? broken.error.rule : undefined, "terminal_without_start")
    }))
})

describe("EventContract.check: hostile input", () => {
  it.effect("100,000 parallel calls in one stream pass; a repeated id among them is found", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 100_000 }, (_, i) => `call_${i}`)
      const run = (model: Provider.ExecutionModel, trace: ReadonlyArray<Event>) =>
        verdictOf(Stream.fromIterable(trace).pipe(Stream.rechunk(1000), EventContract.check(model)))
      const trace = [...ids.map((id) => started(id)), ...[...ids].reverse().map((id) => completed(id)), done]
      const verdict = yield* run("providerDriven", trace)
      assert.isUndefined(verdict.error)
      assert.strictEqual(verdict.emitted.length, 200_001)
      const repeated = yield* run("providerDriven", [...ids.map((id) => started(id)), started("call_99999"), done])
      assert.deepStrictEqual(repeated.error, new Errors.ProviderEventContractViolation({ rule: "duplicate_start", callId: "call_99999" }))
      assert.strictEqual(repeated.emitted.length, 100_000)
      const app = yield* run("appDriven", [...ids.map((id) => complete(id)), complete("call_0"), done])
      assert.deepStrictEqual(app.error, new Errors.ProviderEventContractViolation({ rule: "duplicate_tool_call", callId: "call_0" }))
    }), 60_000)

  it.effect("ids like __proto__, constructor and the empty string are ids like any other", () =>
    Effect.gen(function*() {
      const ids = ["__proto__", "constructor", "", "toString", "hasOwnProperty", "prototype", "valueOf"]
      yield* passes("providerDriven", [...ids.map((id) => started(id)), ...ids.map((id) => completed(id)), done])
      yield* passes("appDriven", [...ids.map((id) => complete(id)), done])
      yield* breaks("providerDriven", [completed("constructor"), done], "terminal_without_start", "constructor", 0)
      yield* breaks("providerDriven", [completed("toString"), done], "terminal_without_start", "toString", 0)
      yield* breaks("providerDriven", [started("__proto__"), started("__proto__"), done], "duplicate_start", "__proto__", 1)
      yield* breaks("providerDriven", [started(""), completed(""), completed(""), done], "duplicate_terminal", "", 2)
      yield* breaks("appDriven", [complete("__proto__"), complete("__proto__"), done], "duplicate_tool_call", "__proto__", 1)
      assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
      assert.strictEqual(Object.getPrototypeOf({}), Object.prototype)
    }))

  it.effect("elements that are no events fail with wrong_execution_model, never a throw or a defect", () =>
    Effect.gen(function*() {
      const throwing = new Proxy({}, { get: () => { throw new Error("hostile getter") } })
      const hostile: ReadonlyArray<unknown> = [
        null, undefined, 42, "TextDelta", { _tag: "Nope" }, { _tag: "__proto__" }, { _tag: "ToolCallStarted", id: 7 },
        { _tag: "ToolCallComplete" }, throwing, Object.create(null)
      ]
      for (const element of hostile) {
        for (const model of ["appDriven", "providerDriven"] as const) {
          yield* breaks(model, [text("a"), element as Event, done], "wrong_execution_model", undefined, 1)
        }
      }
      // a hostile element after Done is still event_after_done
      yield* breaks("appDriven", [done, throwing as Event], "event_after_done", undefined, 1)
    }))

  it.effect("payloads are never read: 10,000-level arguments and results pass through as the same objects", () =>
    Effect.gen(function*() {
      let deep: StreamEvent.ToolCallStarted["arguments"] = "leaf"
      for (let i = 0; i < 10_000; i++) deep = { next: deep }
      yield* passes("providerDriven", [{ _tag: "ToolCallStarted", id: "d", name: "n", arguments: deep }, { _tag: "ToolCallCompleted", id: "d", result: deep }, done])
      yield* passes("appDriven", [{ _tag: "ToolCallComplete", id: "d", name: "n", arguments: deep }, done])
    }))

  it.effect("an unknown execution model allows no tool events, and still demands Done", () =>
    Effect.gen(function*() {
      const model = "bogus" as Provider.ExecutionModel
      yield* passes(model, [text("a"), usage, done])
      yield* breaks(model, [started("a"), completed("a"), done], "wrong_execution_model", "a", 0)
      yield* breaks(model, [complete("b"), done], "wrong_execution_model", "b", 0)
      yield* breaks(model, [text("a")], "missing_done", undefined, 1)
    }))
})

describe("EventContract.check: what the provider declared", () => {
  it.effect("toolCalling false: any tool-call event breaks the contract (the session routes tools through text)", () =>
    Effect.gen(function*() {
      const checked = (events: ReadonlyArray<Event>) => verdictOf(Stream.fromIterable(events).pipe(EventContract.check("appDriven", { toolCalling: false })))
      assert.deepStrictEqual(yield* checked([text("a"), usage, done]), { emitted: [text("a"), usage, done], error: undefined })
      for (const event of [complete("c1"), partial("c1")]) {
        const { emitted, error } = yield* checked([text("a"), event, done])
        assert.deepStrictEqual(emitted, [text("a")])
        assert.deepStrictEqual([error?._tag, error?._tag === "ProviderEventContractViolation" ? error.rule : undefined], [
          "ProviderEventContractViolation",
          "tool_call_without_tool_calling"
        ])
      }
    }))

  it.effect("maxToolCalls: a provider-driven stream may start that many calls; one more is too_many_tool_calls naming it", () =>
    Effect.gen(function*() {
      const checked = (events: ReadonlyArray<Event>) => verdictOf(Stream.fromIterable(events).pipe(EventContract.check("providerDriven", { maxToolCalls: 2 })))
      const two = [started("a"), completed("a"), started("b"), denied("b"), done]
      assert.deepStrictEqual((yield* checked(two)).error, undefined)
      const { emitted, error } = yield* checked([started("a"), started("b"), started("c"), completed("a"), completed("b"), completed("c"), done])
      assert.deepStrictEqual(emitted, [started("a"), started("b")])
      assert.deepStrictEqual(error, new Errors.ProviderEventContractViolation({ rule: "too_many_tool_calls", callId: "c" }))
      const none = yield* verdictOf(Stream.make(started("a"), completed("a"), done).pipe(EventContract.check("providerDriven", { maxToolCalls: 0 })))
      assert.strictEqual(none.error?._tag === "ProviderEventContractViolation" ? none.error.rule : undefined, "too_many_tool_calls")
    }))
})

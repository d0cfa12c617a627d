/**
 * The span attributes and spans on hostile input: names and ids such as `__proto__` (a model picks call ids)
 * stay values under the fixed GenAI keys and never reach a prototype; huge strings are cut; numbers that are
 * not finite are left out; `span` leaves the effect's outcome as it is and records `error.type` on failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Chunk, Data, Effect, Exit, FiberId, Stream } from "effect"
import * as fc from "fast-check"
import { type StreamEvent, Telemetry } from "@toolgate/runtime"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"

const hostile = ["__proto__", "constructor", "", "x".repeat(1_000_000), "\uD800", "a\u0000b"] as const
const weirdNumbers = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -0, 1e308] as const

/** `s` as the attributes keep it: at most `maxValueLength` characters. */
const kept = (s: string) => s.length <= Telemetry.maxValueLength ? s : `${s.slice(0, Telemetry.maxValueLength - 1)}…`

/** Whether `record` has exactly `keys`, as own properties, on a plain object's prototype. */
const ownKeysAre = (record: object, keys: ReadonlyArray<string>) => {
  assert.deepStrictEqual(Object.keys(record).sort(), [...keys].sort())
  assert.strictEqual(Object.getPrototypeOf(record), Object.prototype)
}

/** Every value is a string of at most `maxValueLength` characters, a finite number, a boolean or an array of such strings. */
const wellFormed = (record: Readonly<Record<string, unknown>>) => {
  for (const value of Object.values(record)) {
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) {
      if (typeof v === "string") assert.isAtMost(v.length, Telemetry.maxValueLength)
      else if (typeof v === "number") assert.isTrue(Number.isFinite(v))
      else assert.strictEqual(typeof v, "boolean")
    }
  }
}

/** The same outcome: an equal success, or a failure with the same error (or defect) value. */
const sameOutcome = (actual: Exit.Exit<unknown, unknown>, expected: Exit.Exit<unknown, unknown>) => {
  assert.strictEqual(actual._tag, expected._tag)
  if (Exit.isSuccess(actual) && Exit.isSuccess(expected)) assert.deepStrictEqual(actual.value, expected.value)
  if (Exit.isFailure(actual) && Exit.isFailure(expected)) {
    // a failure inside a span is the same error seen through a proxy that carries the span: compare what it says
    const said = (cause: Cause.Cause<unknown>) => {
      const error = Cause.squash(cause)
      return [Cause.isFailType(cause), typeof error === "object" && error !== null && "_tag" in error ? error._tag : error]
    }
    assert.deepStrictEqual(said(actual.cause), said(expected.cause))
  }
}

class Boom extends Data.TaggedError("Boom")<{}> {}

describe("Telemetry", () => {
  it("toolCall keeps hostile names and call ids as values (huge ones cut) under its four keys", () => {
    for (const s of hostile) {
      const attributes = Telemetry.toolCall(s, s)
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.type"])
      assert.strictEqual(attributes["gen_ai.tool.name"], kept(s))
      assert.strictEqual(attributes["gen_ai.tool.call.id"], kept(s))
    }
    assert.strictEqual(Telemetry.toolCall("x".repeat(5000), "c")["gen_ai.tool.name"]!.length, Telemetry.maxValueLength)
    // a cut never leaves half of a surrogate pair behind
    const emoji = Telemetry.toolCall(`${"x".repeat(Telemetry.maxValueLength - 2)}😀😀`, "c")["gen_ai.tool.name"]!
    assert.strictEqual(emoji, `${"x".repeat(Telemetry.maxValueLength - 2)}…`)
    assert.notMatch(emoji, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
  })

  it("chat leaves out a model, URL and sampling given as undefined, and non-finite sampling numbers", () => {
    ownKeysAre(Telemetry.chat("__proto__", { model: undefined, url: undefined, sampling: undefined }), ["gen_ai.operation.name", "gen_ai.provider.name"])
    for (const n of weirdNumbers.filter((n) => !Number.isFinite(n))) {
      ownKeysAre(Telemetry.chat("p", { sampling: { temperature: n, topP: n, maxTokens: n } }), ["gen_ai.operation.name", "gen_ai.provider.name"])
    }
    assert.deepStrictEqual(Telemetry.chat("p", { model: "m", sampling: { temperature: 0, topP: 1, maxTokens: 7 } }), {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "p",
      "gen_ai.request.model": "m",
      "gen_ai.request.temperature": 0,
      "gen_ai.request.top_p": 1,
      "gen_ai.request.max_tokens": 7
    })
    for (const s of hostile) {
      const attributes = Telemetry.chat(s, { model: s, url: s })
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "url.full"])
      assert.deepStrictEqual([attributes["gen_ai.provider.name"], attributes["gen_ai.request.model"], attributes["url.full"]], [kept(s), kept(s), kept(s)])
    }
  })

  it("invokeAgent keeps hostile provider names and session ids as values under its three keys", () => {
    for (const s of hostile) {
      const attributes = Telemetry.invokeAgent(s, s)
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.conversation.id"])
      assert.strictEqual(attributes["gen_ai.conversation.id"], kept(s))
    }
  })

  it("usage and tokens leave out counts that were not reported or are not finite counts, and a turn number that is not finite", () => {
    ownKeysAre(Telemetry.usage(Number.NaN, undefined, undefined), [])
    for (const n of weirdNumbers.filter((n) => !Number.isFinite(n) || n < 0)) ownKeysAre(Telemetry.tokens(n, n), [])
    assert.deepStrictEqual(Telemetry.usage(3, 0, Number.MAX_SAFE_INTEGER), {
      "toolgate.turn": 3,
      "gen_ai.usage.input_tokens": 0,
      "gen_ai.usage.output_tokens": Number.MAX_SAFE_INTEGER
    })
  })

  it("roundOutcome: tool_calls when the model asked for tools, else stop; usage summed, absent without a Usage event", () => {
    assert.deepStrictEqual(Telemetry.roundOutcome([{ _tag: "TextDelta", text: "hi" }, { _tag: "Done" }]), { "gen_ai.response.finish_reasons": ["stop"] })
    assert.deepStrictEqual(
      Telemetry.roundOutcome([
        { _tag: "ToolCallComplete", id: "c", name: "t" },
        { _tag: "Usage", inputTokens: 3, outputTokens: 4 },
        { _tag: "Usage", inputTokens: 0, outputTokens: Number.NaN },
        { _tag: "Done" }
      ]),
      { "gen_ai.response.finish_reasons": ["tool_calls"], "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 4 }
    )
    assert.deepStrictEqual(Telemetry.roundOutcome([{ _tag: "Usage", inputTokens: 0, outputTokens: 0 }]), {
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 0,
      "gen_ai.usage.output_tokens": 0
    })
  })

  it.prop("every builder, on any strings and numbers, gives well-formed values under its fixed keys", [fc.string({ maxLength: 3000 }), fc.oneof(fc.double(), fc.integer())], ([s, n]) => {
    for (const record of [
      Telemetry.toolCall(s, s),
      Telemetry.chat(s, { model: s, url: s, sampling: { temperature: n, topP: n, maxTokens: n } }),
      Telemetry.endpoint(s, { model: s, url: s }),
      Telemetry.invokeAgent(s, s),
      Telemetry.usage(n, n, n)
    ]) {
      wellFormed(record)
      assert.strictEqual(Object.getPrototypeOf(record), Object.prototype)
    }
  })

  it("errorType: the failure's _tag, a defect's Error name, _OTHER, and nothing for an interruption", () => {
    assert.strictEqual(Telemetry.errorType(Cause.fail(new Boom())), "Boom")
    assert.strictEqual(Telemetry.errorType(Cause.fail({ _tag: "x".repeat(10_000) }))!.length, 128)
    assert.strictEqual(Telemetry.errorType(Cause.fail("plain")), "_OTHER")
    assert.strictEqual(Telemetry.errorType(Cause.fail({ _tag: 42 })), "_OTHER")
    assert.strictEqual(Telemetry.errorType(Cause.die(new TypeError("no"))), "TypeError")
    assert.strictEqual(Telemetry.errorType(Cause.die(null)), "_OTHER")
    assert.isUndefined(Telemetry.errorType(Cause.interrupt(FiberId.none)))
  })

  it.effect("span: success, failure and defect pass through, with hostile names and attributes; failures carry error.type", () =>
    Effect.gen(function*() {
      const outcomes = [Effect.succeed(1), Effect.fail(new Boom()), Effect.die("defect")] as const
      const { spans, tracer } = RecordingTracer.make()
      const attributes = {
        ...Telemetry.toolCall("__proto__", "constructor"),
        nan: Number.NaN,
        huge: "y".repeat(100_000),
        list: ["a", 1, "b"],
        nested: { a: 1 },
        ["__proto__"]: "value"
      }
      for (const outcome of outcomes) {
        const expected = yield* Effect.exit(outcome)
        const traced = outcome.pipe(Telemetry.span("z".repeat(100_000), attributes))
        sameOutcome(yield* Effect.exit(traced), expected)
        sameOutcome(yield* Effect.exit(traced.pipe(Effect.withTracer(tracer))), expected)
      }
      assert.deepStrictEqual(spans.map((s) => s.name.length), [Telemetry.maxValueLength, Telemetry.maxValueLength, Telemetry.maxValueLength])
      const first = spans[0]!.attributes
      assert.strictEqual(first.get("gen_ai.tool.call.id"), "constructor")
      assert.strictEqual(first.get("__proto__"), "value")
      assert.isFalse(first.has("nan"))
      assert.isFalse(first.has("nested"))
      assert.deepStrictEqual(first.get("list"), ["a", "b"])
      assert.strictEqual((first.get("huge") as string).length, Telemetry.maxValueLength)
      assert.deepStrictEqual(spans.map((s) => s.attributes.get("error.type")), [undefined, "Boom", "_OTHER"])
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(Effect.void.pipe(Telemetry.span("", undefined), Effect.withTracer(tracer)))))
      assert.strictEqual(spans.at(-1)!.name, "span")
      assert.isUndefined(({} as Record<string, unknown>)["gen_ai.tool.name"])
    }))

  it.effect("streamSpan: a stream's elements and failure pass through, in one span that records error.type on failure", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const ok = yield* Stream.make(1, 2, 3).pipe(Telemetry.streamSpan("s.ok", { "url.full": "u" }), Stream.runCollect, Effect.withTracer(tracer))
      assert.deepStrictEqual(Chunk.toReadonlyArray(ok), [1, 2, 3])
      const failed = yield* Stream.make(1).pipe(Stream.concat(Stream.fail(new Boom())), Telemetry.streamSpan("", { n: Number.NaN }), Stream.runCollect, Effect.flip, Effect.withTracer(tracer))
      assert.strictEqual(failed._tag, "Boom")
      assert.deepStrictEqual(spans.map((s) => [s.name, s.attributes.get("error.type"), s.exit?._tag]), [["s.ok", undefined, "Success"], ["span", "Boom", "Failure"]])
      assert.strictEqual(spans[0]!.attributes.get("url.full"), "u")
      assert.isFalse(spans[1]!.attributes.has("n"))
    }))

  it.effect("chatSpan and invokeAgentSpan on hostile capabilities, sampling and events: sanitized spans, the effect's value unchanged", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const capabilities = { name: { not: "a string" }, model: 42 } as unknown as Parameters<typeof Telemetry.chatSpan>[0]
      const request = { messages: [], tools: [], toolChoice: "auto", sampling: { temperature: Number.NaN, topP: Number.POSITIVE_INFINITY, maxTokens: 1e400 } } as const
      const events = [null, { _tag: "Usage", inputTokens: -5, outputTokens: Number.NaN }, { _tag: "Usage", inputTokens: 2, outputTokens: 3 }] as unknown as ReadonlyArray<never>
      const huge = { ...capabilities, name: "p", model: "m".repeat(100_000) }
      const value = yield* Effect.succeed(events).pipe(
        Telemetry.chatSpan(capabilities, request),
        Telemetry.invokeAgentSpan({ "gen_ai.agent.name": Symbol("weird"), "gen_ai.conversation.id": "x".repeat(100_000) }),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(value, events)
      yield* Effect.succeed([]).pipe(Telemetry.chatSpan(huge, request), Effect.withTracer(tracer))
      assert.deepStrictEqual(spans.map((s) => s.name), ["invoke_agent", "chat", `chat ${"m".repeat(255)}…`])
      const [agent, chat] = spans
      assert.deepStrictEqual(Object.fromEntries(chat!.attributes), {
        "gen_ai.operation.name": "chat",
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": 2,
        "gen_ai.usage.output_tokens": 3
      })
      assert.deepStrictEqual([agent!.attributes.get("gen_ai.usage.input_tokens"), agent!.attributes.get("gen_ai.usage.output_tokens")], [2, 3])
      assert.strictEqual((agent!.attributes.get("gen_ai.conversation.id") as string).length, Telemetry.maxValueLength)
      assert.isFalse(agent!.attributes.has("gen_ai.agent.name"))
    }))

  it.effect("a round trip's tokens count toward the nearest invoke_agent span above it, through spans between, and only there", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const request = { messages: [], tools: [], toolChoice: "auto" } as const
      const capabilities = { name: "p" } as unknown as Parameters<typeof Telemetry.chatSpan>[0]
      const round = (input: number, output: number) =>
        Effect.succeed([{ _tag: "Usage", inputTokens: input, outputTokens: output }] as ReadonlyArray<StreamEvent.StreamEvent>).pipe(Telemetry.chatSpan(capabilities, request))
      const inner = Effect.zipRight(round(5, 6), round(1, 1)).pipe(Telemetry.invokeAgentSpan({ "gen_ai.agent.name": "inner" }))
      yield* Effect.all([round(2, 3).pipe(Telemetry.span("between")), inner, Effect.succeed([]).pipe(Telemetry.chatSpan(capabilities, request))]).pipe(
        Telemetry.invokeAgentSpan(Telemetry.invokeAgent("p", "s", "outer")),
        Effect.withTracer(tracer)
      )
      const tokens = (name: string) => {
        const agent = spans.find((s) => s.name === name)!
        return [agent.attributes.get("gen_ai.operation.name"), agent.attributes.get("gen_ai.usage.input_tokens"), agent.attributes.get("gen_ai.usage.output_tokens")]
      }
      assert.deepStrictEqual(tokens("invoke_agent outer"), ["invoke_agent", 2, 3])
      assert.deepStrictEqual(tokens("invoke_agent inner"), ["invoke_agent", 6, 7])
    }))

  it.effect("executeTool and invokeAgentSpan name their spans after the tool and the agent; an empty name leaves the operation alone", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      yield* Effect.void.pipe(Telemetry.executeTool("add", "c1"), Effect.withTracer(tracer))
      yield* Effect.void.pipe(Telemetry.executeTool("", "c2"), Effect.withTracer(tracer))
      yield* Effect.void.pipe(Telemetry.invokeAgentSpan({ ...Telemetry.invokeAgent("p", "s"), "gen_ai.agent.name": "Math Tutor" }), Effect.withTracer(tracer))
      yield* Effect.void.pipe(Telemetry.invokeAgentSpan(Telemetry.invokeAgent("p", "s")), Effect.withTracer(tracer))
      assert.deepStrictEqual(spans.map((s) => [s.name, s.kind]), [
        ["execute_tool add", "internal"],
        ["execute_tool", "internal"],
        ["invoke_agent Math Tutor", "internal"],
        ["invoke_agent", "internal"]
      ])
      assert.isFalse(spans[3]!.attributes.has("gen_ai.usage.input_tokens"))
    }))
})

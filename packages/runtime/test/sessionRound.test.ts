import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import type { JsonValue as J } from "@toolgate/json-schema"
import * as StreamEvent from "../src/StreamEvent.js"
import * as ToolEnvelope from "../src/ToolEnvelope.js"
import { collectApp, collectProvider, terminalEnvelope } from "../src/internal/sessionRound.js"

/** Events as they cross the wire: one JSON text each, decoded with the vocabulary's own decoder. */
const wire = (...lines: ReadonlyArray<string>): ReadonlyArray<StreamEvent.StreamEvent> =>
  lines.map((line) => Either.getOrThrow(StreamEvent.decodeJson(line)))

// Seed 004's provider-driven traces that must succeed: a valid single call and valid parallel calls.
const single = wire(
  `{"_tag":"TextDelta","text":"Checking "}`,
  `{"_tag":"ToolCallStarted","id":"call_1","name":"get_weather","arguments":{"city":"Oslo"}}`,
  `{"_tag":"ToolCallCompleted","id":"call_1","result":{"temp_c":21}}`,
  `{"_tag":"TextDelta","text":"the weather."}`,
  `{"_tag":"Usage","inputTokens":12,"outputTokens":5}`,
  `{"_tag":"Done"}`
)
const parallel = wire(
  `{"_tag":"ToolCallStarted","id":"a","name":"read_file","arguments":"{\\"path\\":\\"/etc/hosts\\"}"}`,
  `{"_tag":"ToolCallStarted","id":"b","name":"delete_file"}`,
  `{"_tag":"ToolCallStarted","id":"c","name":"write_file","arguments":{"path":"x"}}`,
  `{"_tag":"ToolCallStarted","id":"d","name":"lock","arguments":null}`,
  `{"_tag":"ToolCallStarted","id":"e","name":"search","arguments":{}}`,
  `{"_tag":"ToolCallDenied","id":"b","reason":"the user said no"}`,
  `{"_tag":"ToolCallCompleted","id":"a","result":{"ok":true,"result":"127.0.0.1 localhost"}}`,
  `{"_tag":"ToolCallFailed","id":"c","message":"disk full"}`,
  `{"_tag":"ToolCallConflict","id":"d","reason":"held by another session"}`,
  `{"_tag":"ToolCallCancelled","id":"e"}`,
  `{"_tag":"Usage","inputTokens":3,"outputTokens":4}`,
  `{"_tag":"Usage","inputTokens":10,"outputTokens":1}`,
  `{"_tag":"Done"}`
)

describe("collectProvider on seed 004's traces", () => {
  it("a valid single call: one Assistant with the started call and one ToolResult", () => {
    const round = collectProvider(single)
    assert.strictEqual(round.text, "Checking the weather.")
    assert.deepStrictEqual(round.calls, [{ id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }])
    assert.strictEqual(round.inputTokens, 12)
    assert.strictEqual(round.outputTokens, 5)
    assert.deepStrictEqual(round.messages, [
      { _tag: "Assistant", text: "Checking the weather.", toolCalls: round.calls },
      { _tag: "ToolResult", callId: "call_1", name: "get_weather", envelope: { ok: true, tool: "get_weather", result: { temp_c: 21 } } }
    ])
  })

  it("valid parallel calls: calls in start order, results in terminal order, each terminal its envelope", () => {
    const round = collectProvider(parallel)
    assert.deepStrictEqual(round.calls.map((c) => c.id), ["a", "b", "c", "d", "e"])
    // arguments exactly as sent: JSON text stays text, absent stays absent, null stays null
    assert.strictEqual(round.calls[0]!.arguments, `{"path":"/etc/hosts"}`)
    assert.isFalse(Object.prototype.hasOwnProperty.call(round.calls[1], "arguments"))
    assert.strictEqual(round.calls[3]!.arguments, null)
    assert.strictEqual(round.inputTokens, 13)
    assert.strictEqual(round.outputTokens, 5)
    const results = round.messages.slice(1)
    assert.deepStrictEqual(results.map((m) => m._tag === "ToolResult" ? [m.callId, m.name] : []), [
      ["b", "delete_file"],
      ["a", "read_file"],
      ["c", "write_file"],
      ["d", "lock"],
      ["e", "search"]
    ])
    const kinds = results.map((m) => m._tag === "ToolResult" && !m.envelope.ok ? m.envelope.kind : "ok")
    assert.deepStrictEqual(kinds, ["user_denied", "ok", "execution_error", "rejected", "unavailable"])
    // the completed result was an envelope: it passes through, named for its tool
    assert.deepStrictEqual(results[1], {
      _tag: "ToolResult",
      callId: "a",
      name: "read_file",
      envelope: { ok: true, result: "127.0.0.1 localhost", tool: "read_file" }
    })
    assert.strictEqual(round.messages[0]!._tag, "Assistant")
    assert.strictEqual(round.messages.length, 6)
  })

  it("traces that break the contract (EventContract rejects them first) still give a value, never a made-up history", () => {
    const withoutStart = collectProvider(wire(`{"_tag":"ToolCallCompleted","id":"ghost","result":1}`, `{"_tag":"Done"}`))
    assert.deepStrictEqual(withoutStart.messages, [{ _tag: "Assistant", text: "", toolCalls: [] }])
    const duplicateStart = collectProvider(wire(
      `{"_tag":"ToolCallStarted","id":"x","name":"first"}`,
      `{"_tag":"ToolCallStarted","id":"x","name":"second"}`,
      `{"_tag":"ToolCallCancelled","id":"x"}`
    ))
    assert.deepStrictEqual(duplicateStart.calls, [{ id: "x", name: "first" }])
    assert.deepStrictEqual(duplicateStart.messages.slice(1).map((m) => m._tag === "ToolResult" ? m.name : ""), ["first"])
    const duplicateTerminal = collectProvider(wire(
      `{"_tag":"ToolCallStarted","id":"x","name":"t"}`,
      `{"_tag":"ToolCallFailed","id":"x","message":"first"}`,
      `{"_tag":"ToolCallCompleted","id":"x","result":2}`
    ))
    assert.strictEqual(duplicateTerminal.messages.length, 2)
    const only = duplicateTerminal.messages[1]!
    assert.isTrue(only._tag === "ToolResult" && !only.envelope.ok && only.envelope.message.includes("first"))
    const withoutTerminal = collectProvider(wire(`{"_tag":"ToolCallStarted","id":"x","name":"t"}`))
    assert.deepStrictEqual(withoutTerminal.messages, [{ _tag: "Assistant", text: "", toolCalls: [{ id: "x", name: "t" }] }])
  })

  it("ignores app-driven calls in a provider-driven round", () => {
    const round = collectProvider(wire(`{"_tag":"ToolCallComplete","id":"x","name":"t","arguments":{}}`, `{"_tag":"Done"}`))
    assert.deepStrictEqual(round.calls, [])
  })
})

describe("collectApp", () => {
  it("joins text, keeps ToolCallComplete calls in order with arguments as sent, sums usage, skips partials", () => {
    const round = collectApp(wire(
      `{"_tag":"TextDelta","text":"Let me "}`,
      `{"_tag":"ToolCallPartial","id":"1","name":"get_weather","argsDelta":"{\\"ci"}`,
      `{"_tag":"TextDelta","text":"look."}`,
      `{"_tag":"ToolCallComplete","id":"1","name":"get_weather","arguments":"{\\"city\\": \\"Oslo\\"}"}`,
      `{"_tag":"ToolCallComplete","id":"2","name":"get_time"}`,
      `{"_tag":"ToolCallComplete","id":"3","name":"get_time","arguments":{"zone":"UTC"}}`,
      `{"_tag":"Usage","inputTokens":7,"outputTokens":2}`,
      `{"_tag":"Usage","inputTokens":1,"outputTokens":8}`,
      `{"_tag":"Done"}`
    ))
    assert.deepStrictEqual(round, {
      text: "Let me look.",
      calls: [
        { id: "1", name: "get_weather", arguments: `{"city": "Oslo"}` },
        { id: "2", name: "get_time" },
        { id: "3", name: "get_time", arguments: { zone: "UTC" } }
      ],
      inputTokens: 8,
      outputTokens: 10
    })
    assert.isFalse(Object.prototype.hasOwnProperty.call(round.calls[1], "arguments"))
  })

  it("ignores provider-driven events (EventContract rejects them in an app-driven stream)", () => {
    assert.deepStrictEqual(collectApp(single).calls, [])
    assert.strictEqual(collectApp(single).text, "Checking the weather.")
  })

  it("an empty event list is an empty round, in both collectors", () => {
    assert.deepStrictEqual(collectApp([]), { text: "", calls: [], inputTokens: 0, outputTokens: 0 })
    assert.deepStrictEqual(collectProvider([]), {
      text: "",
      calls: [],
      inputTokens: 0,
      outputTokens: 0,
      messages: [{ _tag: "Assistant", text: "", toolCalls: [] }]
    })
  })

  const eventArb: FastCheck.Arbitrary<StreamEvent.StreamEvent> = FastCheck.oneof(
    FastCheck.string().map((text) => StreamEvent.TextDelta.make({ text })),
    FastCheck.tuple(FastCheck.string({ maxLength: 5 }), FastCheck.string({ maxLength: 5 }), FastCheck.option(FastCheck.jsonValue({ maxDepth: 3 }), { nil: undefined }))
      .map(([id, name, args]) => args === undefined
        ? StreamEvent.ToolCallComplete.make({ id, name })
        : StreamEvent.ToolCallComplete.make({ id, name, arguments: args as J.JsonValue })),
    FastCheck.tuple(FastCheck.nat(1000), FastCheck.nat(1000)).map(([i, o]) => StreamEvent.Usage.make({ inputTokens: i, outputTokens: o })),
    FastCheck.constant(StreamEvent.Done.make({}))
  )

  it.prop("is the fold of the events: text concatenated, calls filtered in order with the same arguments, usage summed", [
    FastCheck.array(eventArb, { maxLength: 40 })
  ], ([events]) => {
    const round = collectApp(events)
    assert.strictEqual(round.text, events.map((e) => e._tag === "TextDelta" ? e.text : "").join(""))
    const complete = events.filter((e): e is StreamEvent.ToolCallComplete => e._tag === "ToolCallComplete")
    assert.strictEqual(round.calls.length, complete.length)
    for (const [i, call] of round.calls.entries()) {
      assert.strictEqual(call.id, complete[i]!.id)
      assert.strictEqual(call.arguments, complete[i]!.arguments)
    }
    assert.strictEqual(round.inputTokens, events.reduce((n, e) => n + (e._tag === "Usage" ? e.inputTokens : 0), 0))
    assert.strictEqual(round.outputTokens, events.reduce((n, e) => n + (e._tag === "Usage" ? e.outputTokens : 0), 0))
  })
})

describe("terminalEnvelope", () => {
  it("maps each terminal to its kind, with the kind's default retryable and the provider's reason", () => {
    const denied = terminalEnvelope(StreamEvent.ToolCallDenied.make({ id: "1", reason: "not allowed" }), "rm")
    assert.deepStrictEqual(denied, { ok: false, kind: "user_denied", message: "The call was denied: not allowed", tool: "rm", retryable: false })
    const failed = terminalEnvelope(StreamEvent.ToolCallFailed.make({ id: "1", message: "disk full" }), "rm")
    assert.deepStrictEqual(failed, { ok: false, kind: "execution_error", message: "The tool failed: disk full", tool: "rm", retryable: true })
    const cancelled = terminalEnvelope(StreamEvent.ToolCallCancelled.make({ id: "1" }), "rm")
    assert.deepStrictEqual(cancelled, { ok: false, kind: "unavailable", message: "The call was cancelled before it finished.", tool: "rm", retryable: true })
    const conflict = terminalEnvelope(StreamEvent.ToolCallConflict.make({ id: "1", reason: "" }), "rm")
    assert.deepStrictEqual(conflict, { ok: false, kind: "rejected", message: "The call conflicted with another and did not apply.", tool: "rm", retryable: false })
    for (const envelope of [denied, failed, cancelled, conflict]) assert.isTrue(Either.isRight(ToolEnvelope.decode(envelope)))
  })

  it("Completed: a plain result becomes a success; an envelope passes through (its own tool kept); a look-alike is what the detectors read it as", () => {
    const completed = (result: J.JsonValue) => terminalEnvelope(StreamEvent.ToolCallCompleted.make({ id: "1", result }), "t")
    assert.deepStrictEqual(completed([1, 2]), { ok: true, tool: "t", result: [1, 2] })
    assert.deepStrictEqual(completed(null), { ok: true, tool: "t", result: null })
    const failure: J.JsonValue = { ok: false, kind: "not_found", message: "no such file", tool: "other", retryable: false }
    assert.deepStrictEqual(completed(failure), failure)
    assert.deepStrictEqual(completed({ ok: true, result: 3 }), { ok: true, result: 3, tool: "t" })
    // an ok:false object short of the schema (no retryable) is still the failure the detectors read it as
    const partial: J.JsonValue = { ok: false, kind: "timeout", message: "ran past 30 s" }
    assert.deepStrictEqual(completed(partial), { ok: false, kind: "timeout", message: "ran past 30 s", tool: "t", retryable: true })
    assert.isTrue(ToolEnvelope.isError(partial))
    const nonsense = completed({ ok: false, kind: "nonsense" })
    assert.strictEqual(nonsense.ok, ToolEnvelope.isSuccess({ ok: false, kind: "nonsense" }), "history agrees with the detectors")
    const proto = JSON.parse(`{"__proto__":{"ok":true,"result":1}}`) as J.JsonValue
    assert.deepStrictEqual(completed(proto), { ok: true, tool: "t", result: proto })
  })
})

describe("hostile rounds", () => {
  it("10,000 text deltas are joined in order", () => {
    const events = Array.from({ length: 10_000 }, (_, i) => StreamEvent.TextDelta.make({ text: `${i % 10}` }))
    const text = collectApp(events).text
    assert.strictEqual(text.length, 10_000)
    assert.strictEqual(text.slice(0, 12), "012345678901")
    assert.strictEqual(collectProvider(events).text, text)
  })

  it("__proto__ and constructor ids and names are plain data, and nothing is polluted", () => {
    const events = wire(
      `{"_tag":"ToolCallStarted","id":"__proto__","name":"constructor","arguments":{"__proto__":{"polluted":true}}}`,
      `{"_tag":"ToolCallStarted","id":"constructor","name":"__proto__"}`,
      `{"_tag":"ToolCallCompleted","id":"constructor","result":{"__proto__":1}}`,
      `{"_tag":"ToolCallDenied","id":"__proto__","reason":"no"}`,
      `{"_tag":"ToolCallCompleted","id":"toString","result":1}`
    )
    const round = collectProvider(events)
    assert.deepStrictEqual(round.calls.map((c) => [c.id, c.name]), [["__proto__", "constructor"], ["constructor", "__proto__"]])
    assert.deepStrictEqual(round.messages.slice(1).map((m) => m._tag === "ToolResult" ? [m.callId, m.name] : []), [
      ["constructor", "__proto__"],
      ["__proto__", "constructor"]
    ])
    assert.strictEqual(round.calls[0]!.arguments, (events[0] as StreamEvent.ToolCallStarted).arguments)
    assert.deepStrictEqual(
      collectApp(wire(`{"_tag":"ToolCallComplete","id":"__proto__","name":"__proto__"}`)).calls,
      [{ id: "__proto__", name: "__proto__" }]
    )
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.strictEqual(Object.getPrototypeOf({}), Object.prototype)
  })

  it("huge and deep arguments are kept as the very values sent", () => {
    const huge = "x".repeat(5_000_000)
    let deep: J.JsonValue = "leaf"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const app = collectApp([
      StreamEvent.ToolCallComplete.make({ id: "1", name: "t", arguments: huge }),
      StreamEvent.ToolCallComplete.make({ id: "2", name: "t", arguments: deep })
    ])
    assert.strictEqual(app.calls[0]!.arguments, huge)
    assert.strictEqual(app.calls[1]!.arguments, deep)
    const provider = collectProvider([
      StreamEvent.ToolCallStarted.make({ id: "1", name: "t", arguments: huge }),
      StreamEvent.ToolCallCompleted.make({ id: "1", result: deep })
    ])
    assert.strictEqual(provider.calls[0]!.arguments, huge)
    const envelope = provider.messages[1]!
    assert.isTrue(envelope._tag === "ToolResult" && envelope.envelope.ok && envelope.envelope.result === deep)
  })

  it("usage of the wrong kind (past the Schema) counts zero; unknown events are skipped; any iterable is read once", () => {
    const odd = [
      { _tag: "Usage", inputTokens: Number.NaN, outputTokens: "3" },
      { _tag: "Mystery" },
      null,
      StreamEvent.Usage.make({ inputTokens: 2, outputTokens: 1 })
    ] as unknown as ReadonlyArray<StreamEvent.StreamEvent>
    const round = collectApp(odd)
    assert.strictEqual(round.inputTokens, 2)
    assert.strictEqual(round.outputTokens, 1)
    function* generated(): Generator<StreamEvent.StreamEvent> {
      yield StreamEvent.TextDelta.make({ text: "a" })
      yield StreamEvent.ToolCallStarted.make({ id: "1", name: "t" })
      yield StreamEvent.ToolCallCompleted.make({ id: "1", result: 1 })
    }
    assert.strictEqual(collectProvider(generated()).messages.length, 2)
  })
})

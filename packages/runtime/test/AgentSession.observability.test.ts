import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, Queue } from "effect"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import type * as SessionEvent from "../src/SessionEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session, text } from "./support/scriptedProvider.js"

const toolkit = Either.getOrThrow(Toolkit.make(Tool.make("add", {
  description: "Adds.",
  parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
  execute: (args) => Effect.succeed((args as { a: number; b: number }).a + (args as { a: number; b: number }).b)
})))

/** A turn with one repair: an invalid call and a valid sibling, then a valid call, then the answer. */
const oneRepair = () =>
  make([
    [call("c1", "add", { a: "x", b: 1 }), call("c2", "add", { a: 1, b: 1 }), done],
    [call("c3", "add", { a: 2, b: 2 }), call("c4", "nope"), done],
    answer("4")
  ], { supportsParallelToolCalls: false })

/** A short form of an event: its tag and the fields that tell events of one turn apart. */
const brief = (e: SessionEvent.SessionEvent): string => {
  switch (e._tag) {
    case "TurnStarted":
      return `TurnStarted ${e.turn} ${e.text}`
    case "RoundStarted":
      return `RoundStarted ${e.turn}.${e.round}`
    case "ToolCalled":
      return `ToolCalled ${e.round} ${e.callId} ${e.outcome} ${e.issues.length > 0 ? "issues" : "-"}`
    case "ToolAnswered":
      return `ToolAnswered ${e.round} ${e.callId} ${e.envelope.ok ? "ok" : e.envelope.kind}`
    case "RepairSpent":
      return `RepairSpent ${e.round} ${e.repairs}/${e.limit}`
    case "TurnCommitted":
      return `TurnCommitted ${e.turn} rounds=${e.rounds} calls=${e.toolCalls}`
    case "TurnRolledBack":
      return `TurnRolledBack ${e.turn} ${e.error}`
    case "TurnCompensated":
      return `TurnCompensated ${e.turn} undone=${e.compensated.join(",")} left=${e.notCompensated.map((c) => `${c.callId}:${c.reason}`).join(",")}`
    case "DriftGateChecked":
      return `DriftGateChecked ${e.outcome}`
    case "TextDelta":
      return `TextDelta ${e.round} ${e.text}`
    case "RoundDiscarded":
      return `RoundDiscarded ${e.round}`
    case "ToolCallStarted":
      return `ToolCallStarted ${e.round} ${e.callId}`
  }
}

describe("AgentSession (observability)", () => {
  it.scoped("the events of a turn with one repair come in the expected sequence", () =>
    Effect.gen(function*() {
      const s = yield* session(oneRepair(), toolkit)
      const events = yield* s.subscribe
      yield* s.send("sum")
      const seen = (yield* Queue.takeAll(events)).pipe((c) => Array.from(c, brief))
      assert.deepStrictEqual(seen, [
        "TurnStarted 1 sum",
        "RoundStarted 1.1",
        "ToolCalled 1 c1 invalid issues",
        "ToolAnswered 1 c1 invalid_args",
        "ToolCalled 1 c2 skipped -",
        "ToolAnswered 1 c2 rejected",
        "RepairSpent 1 1/1",
        "RoundStarted 1.2",
        "ToolCalled 2 c3 valid -",
        "ToolAnswered 2 c3 ok",
        "ToolCalled 2 c4 unknown_tool -",
        "ToolAnswered 2 c4 tool_not_found",
        "RoundStarted 1.3",
        "TextDelta 3 4",
        "TurnCommitted 1 rounds=3 calls=4"
      ])
    }))

  it.scoped("an invalid call is reported with the same detail as an executed one; a failed turn says how it failed", () =>
    Effect.gen(function*() {
      const s = yield* session(make([[call("c1", "add", { a: "x", b: 1 }), done], [call("c2", "add", {}), done]]), toolkit)
      const events = yield* s.subscribe
      yield* Effect.flip(s.send("sum"))
      const all = Array.from(yield* Queue.takeAll(events))
      const invalid = all.find((e): e is SessionEvent.ToolCalled => e._tag === "ToolCalled" && e.callId === "c1")!
      assert.deepStrictEqual(invalid.arguments, { a: "x", b: 1 })
      assert.strictEqual(invalid.tool, "add")
      assert.strictEqual(invalid.issues[0]!.field, "a")
      const last = all.at(-1)!
      assert.strictEqual(last._tag, "TurnRolledBack")
      if (last._tag !== "TurnRolledBack") return
      assert.strictEqual(last.error, "ToolArgumentRepairExhausted")
      assert.include(last.message, "repairs exhausted")
    }))

  it.effect("one execute_tool span per call, invalid ones included, with name, id, outcome and issue count", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const s = yield* session(oneRepair(), toolkit)
      yield* s.send("sum").pipe(Effect.withTracer(tracer))
      const calls = spans.filter((span) => span.name.startsWith("execute_tool "))
      assert.deepStrictEqual(calls.map((span) => [
        span.attributes.get("gen_ai.tool.name"),
        span.attributes.get("gen_ai.tool.call.id"),
        span.attributes.get("toolgate.tool.outcome"),
        span.attributes.get("toolgate.tool.issue_count")
      ]), [
        ["add", "c1", "invalid", 1],
        ["add", "c2", "skipped", 0],
        ["add", "c3", "valid", 0],
        ["nope", "c4", "unknown_tool", 0]
      ])
      assert.deepStrictEqual(calls.map((span) => span.name), ["execute_tool add", "execute_tool add", "execute_tool add", "execute_tool nope"])
      assert.isTrue(calls.every((span) => span.exit !== undefined && Exit.isSuccess(span.exit)))
      assert.isTrue(spans.some((span) => span.name === "invoke_agent"))
    }))

  it.effect("an executor runs inside its execute_tool span, under the caller's span, with Effect's built-in tracer as with an installed one", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const spy = Tool.make("spy", {
        description: "reports the span it runs in and that span's parents",
        parameters: { type: "object" },
        execute: () =>
          Effect.map(Effect.option(Effect.currentSpan), (span) => {
            const names: Array<string> = []
            for (let s = span._tag === "Some" ? span.value : undefined; s !== undefined; s = s.parent._tag === "Some" && s.parent.value._tag === "Span" ? s.parent.value : undefined) names.push(s.name)
            seen.push(names.join(" < "))
            return "ok"
          })
      })
      const s = yield* session(make([[call("c1", "spy", {}), done], [text("done"), done]]), Either.getOrThrow(Toolkit.make(spy)))
      yield* s.send("go").pipe(Effect.withSpan("app.request"))
      // a session made inside a span of its own: its executors still run under the call's span, not that one
      const made = yield* session(make([[call("c0", "spy", {}), done], [text("done"), done]]), Either.getOrThrow(Toolkit.make(spy))).pipe(Effect.withSpan("app.setup"))
      yield* made.send("go").pipe(Effect.withSpan("app.request"))
      const { spans, tracer } = RecordingTracer.make()
      const traced = yield* session(make([[call("c2", "spy", {}), done], [text("done"), done]]), Either.getOrThrow(Toolkit.make(spy)))
      yield* traced.send("go").pipe(Effect.withSpan("app.request"), Effect.withTracer(tracer))
      assert.deepStrictEqual(seen, Array.from({ length: 3 }, () => "execute_tool spy < invoke_agent < app.request"))
      assert.deepStrictEqual(spans.map((span) => `${span.name} < ${span.parent}`), [
        "app.request < undefined",
        "invoke_agent < app.request",
        "chat < invoke_agent",
        "ArgumentValidator.prepare < invoke_agent",
        "execute_tool spy < invoke_agent",
        "chat < invoke_agent"
      ])
    }))

  it.effect("a turn that exhausts its repairs still leaves a span for every invalid call", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const s = yield* session(make([[call("c1", "add", {}), done], [call("c2", "add", { a: 1 }), done]]), toolkit)
      yield* Effect.flip(s.send("sum").pipe(Effect.withTracer(tracer)))
      const calls = spans.filter((span) => span.name.startsWith("execute_tool "))
      assert.deepStrictEqual(calls.map((span) => [span.attributes.get("gen_ai.tool.call.id"), span.attributes.get("toolgate.tool.outcome")]), [["c1", "invalid"], ["c2", "invalid"]])
      assert.deepStrictEqual(calls.map((span) => span.attributes.get("toolgate.tool.issue_count")), [2, 1])
    }))

  it.effect("a provider-driven call gets its span too: outcome provider, with what it ended with", () =>
    Effect.gen(function*() {
      const { spans, tracer } = RecordingTracer.make()
      const provider = make([[
        { _tag: "ToolCallStarted", id: "p1", name: "add", arguments: { a: 1, b: 2 } },
        { _tag: "ToolCallStarted", id: "p2", name: "rm" },
        { _tag: "ToolCallCompleted", id: "p1", result: 3 },
        { _tag: "ToolCallDenied", id: "p2", reason: "the user said no" },
        done
      ]], { executionModel: "providerDriven" })
      const s = yield* session(provider, toolkit)
      yield* s.send("sum").pipe(Effect.withTracer(tracer))
      const calls = spans.filter((span) => span.name.startsWith("execute_tool "))
      assert.deepStrictEqual(calls.map((span) => [
        span.attributes.get("gen_ai.tool.name"),
        span.attributes.get("gen_ai.tool.call.id"),
        span.attributes.get("toolgate.tool.outcome"),
        span.attributes.get("toolgate.tool.result")
      ]), [["add", "p1", "provider", "success"], ["rm", "p2", "provider", "user_denied"]])
      assert.isTrue(calls.every((span) => span.exit !== undefined))
    }))

  it.scoped("a sliding events hub drops the oldest events for a slow subscriber instead of blocking the turn", () =>
    Effect.gen(function*() {
      const s = yield* AgentSession.make({ provider: oneRepair(), toolkit, mode: "local", eventCapacity: 2 }).pipe(
        Effect.provide(ArgumentValidator.layer)
      )
      const events = yield* s.subscribe
      yield* s.send("sum")
      const kept = Array.from(yield* Queue.takeAll(events), brief)
      assert.deepStrictEqual(kept, ["TextDelta 3 4", "TurnCommitted 1 rounds=3 calls=4"])
    }))
})

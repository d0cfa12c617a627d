import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { done, make, session, text } from "./support/scriptedProvider.js"

// Seed 004's traces for a provider-driven provider: the provider runs the tools and reports their lifecycle.
const started = (id: string, name = "lookup", args: unknown = { q: id }): StreamEvent.StreamEvent =>
  ({ _tag: "ToolCallStarted", id, name, arguments: args as never })
const completed = (id: string, result: unknown = { found: id }): StreamEvent.StreamEvent =>
  ({ _tag: "ToolCallCompleted", id, result: result as never })

const neverRuns = () => {
  let runs = 0
  const tool = Tool.make("lookup", { description: "l", parameters: { type: "object" }, execute: () => Effect.sync(() => runs++) })
  return { runs: () => runs, toolkit: Either.getOrThrow(Toolkit.make(tool)) }
}

const providerDriven = (events: ReadonlyArray<StreamEvent.StreamEvent>) => make([events], { executionModel: "providerDriven" })

describe("AgentSession (provider-driven, seed 004 traces)", () => {
  it.effect("a valid single call succeeds and persists (Assistant + ToolResult), the app's executor never runs", () =>
    Effect.gen(function*() {
      const { runs, toolkit } = neverRuns()
      const s = yield* session(providerDriven([text("looking"), started("c1"), completed("c1"), text(" found"), done]), toolkit)
      const turn = yield* s.send("find")
      assert.strictEqual(runs(), 0)
      assert.strictEqual(turn.text, "looking found")
      assert.deepStrictEqual(turn.calls, [{ callId: "c1", tool: "lookup", arguments: { q: "c1" }, envelope: { ok: true, tool: "lookup", result: { found: "c1" } } }])
      assert.deepStrictEqual(yield* s.history, [
        { _tag: "User", text: "find" },
        { _tag: "Assistant", text: "looking found", toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "c1" } }] },
        { _tag: "ToolResult", callId: "c1", name: "lookup", envelope: { ok: true, tool: "lookup", result: { found: "c1" } } }
      ])
      assert.strictEqual(turn.usage.roundTrips, 1)
    }))

  it.effect("valid parallel calls succeed and persist; every terminal kind maps to its envelope", () =>
    Effect.gen(function*() {
      const { toolkit } = neverRuns()
      const s = yield* session(providerDriven([
        started("a"),
        started("b"),
        started("c"),
        started("d"),
        started("e"),
        { _tag: "ToolCallDenied", id: "b", reason: "policy" },
        completed("a"),
        { _tag: "ToolCallFailed", id: "c", message: "boom" },
        { _tag: "ToolCallCancelled", id: "d" },
        { _tag: "ToolCallConflict", id: "e", reason: "locked" },
        done
      ]), toolkit)
      const turn = yield* s.send("many")
      const history = yield* s.history
      assert.deepStrictEqual(history.map((m) => m._tag), ["User", "Assistant", "ToolResult", "ToolResult", "ToolResult", "ToolResult", "ToolResult"])
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["b", "a", "c", "d", "e"])
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok ? "ok" : c.envelope.kind), ["user_denied", "ok", "execution_error", "unavailable", "rejected"])
    }))

  const violations: ReadonlyArray<readonly [string, string, ReadonlyArray<StreamEvent.StreamEvent>]> = [
    ["terminal without start", "terminal_without_start", [completed("ghost"), done]],
    ["duplicate start", "duplicate_start", [started("c1"), started("c1"), completed("c1"), done]],
    ["duplicate terminal", "duplicate_terminal", [started("c1"), completed("c1"), completed("c1"), done]],
    ["start without terminal", "start_without_terminal", [started("c1"), done]]
  ]
  for (const [name, rule, events] of violations) {
    it.effect(`${name}: ProviderEventContractViolation (${rule}) and history is exactly [User]`, () =>
      Effect.gen(function*() {
        const { toolkit } = neverRuns()
        const s = yield* session(providerDriven(events), toolkit)
        const error = yield* Effect.flip(s.send("go"))
        assert.strictEqual(error._tag, "ProviderEventContractViolation")
        if (error._tag !== "ProviderEventContractViolation") return
        assert.strictEqual(error.rule, rule)
        assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "go" }])
        assert.isTrue(Option.isNone(yield* s.undoLastTurn))
      }))
  }

  it.effect("a managed provider-driven conversation is sent only the new user message on the next send", () =>
    Effect.gen(function*() {
      const { toolkit } = neverRuns()
      const provider = make([[started("c1"), completed("c1"), done], [text("again"), done]], { executionModel: "providerDriven", managedConversation: true })
      const s = yield* session(provider, toolkit)
      yield* s.send("one")
      yield* s.send("two")
      assert.deepStrictEqual(provider.requests[1]!.messages, [{ _tag: "User", text: "two" }])
    }))

  it.effect("an app-driven event from a provider-driven provider is a violation", () =>
    Effect.gen(function*() {
      const { toolkit } = neverRuns()
      const s = yield* session(providerDriven([{ _tag: "ToolCallComplete", id: "x", name: "lookup" }, done]), toolkit)
      const error = yield* Effect.flip(s.send("go"))
      assert.strictEqual(error._tag, "ProviderEventContractViolation")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "go" }])
    }))
})

describe("AgentSession (provider-driven, maxToolCallsPerTurn)", () => {
  it.effect("the request carries the cap; one more started call fails the turn typed and persists nothing", () =>
    Effect.gen(function*() {
      const { toolkit } = neverRuns()
      const provider = make([[started("a"), completed("a"), started("b"), completed("b"), done]], { executionModel: "providerDriven" })
      const s = yield* session(provider, toolkit, { limits: { maxToolCallsPerTurn: 1 } })
      const e = yield* Effect.flip(s.send("go"))
      assert.deepStrictEqual([e._tag, e._tag === "ProviderEventContractViolation" ? e.rule : ""], ["ProviderEventContractViolation", "too_many_tool_calls"])
      assert.strictEqual(provider.requests[0]!.maxToolCallsPerTurn, 1)
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "go" }])
    }))
})

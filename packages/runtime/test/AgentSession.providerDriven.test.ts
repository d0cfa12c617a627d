import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import * as Provider from "../src/Provider.js"
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

describe("AgentSession (registry-aware providers)", () => {
  it.effect("a provider-driven provider built from the session's tools runs them through layer 2: an invalid call never reaches the executor", () =>
    Effect.gen(function*() {
      const ran: Array<unknown> = []
      const lookup = Tool.make("lookup", {
        description: "Looks a word up.",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        execute: (args) => Effect.sync(() => (ran.push(args), { found: (args as { q: string }).q }))
      })
      const toolkit = Either.getOrThrow(Toolkit.make(lookup))
      let seen: ReadonlyArray<string> = []
      const provider = Provider.registryAware((registry) => {
        seen = registry.tools.map((t) => t.name)
        const tool = registry.get("lookup")!
        return {
          capabilities: { ...make([]).capabilities, executionModel: "providerDriven" },
          stream: () =>
            Stream.fromEffect(Effect.all([tool.execute({ q: "cat" }, "p1"), tool.execute({ q: 7 }, "p2"), tool.execute("{\"q\": \"dog\"}", "p3")])).pipe(
              Stream.flatMap(([a, b, c]) =>
                Stream.make(
                  { _tag: "ToolCallStarted", id: "p1", name: "lookup", arguments: { q: "cat" } },
                  { _tag: "ToolCallCompleted", id: "p1", result: a },
                  { _tag: "ToolCallStarted", id: "p2", name: "lookup", arguments: { q: 7 } },
                  { _tag: "ToolCallCompleted", id: "p2", result: b },
                  { _tag: "ToolCallStarted", id: "p3", name: "lookup", arguments: "{\"q\": \"dog\"}" },
                  { _tag: "ToolCallCompleted", id: "p3", result: c },
                  { _tag: "Done" }
                ).pipe(Stream.map((e): StreamEvent.StreamEvent => e as StreamEvent.StreamEvent))
              )
            )
        }
      })
      const s = yield* AgentSession.make({ provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("look")
      assert.deepStrictEqual(seen, ["lookup"])
      assert.deepStrictEqual(ran, [{ q: "cat" }, { q: "dog" }])
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok ? c.envelope.result : c.envelope.kind), [{ found: "cat" }, "invalid_args", { found: "dog" }])
    }))
})

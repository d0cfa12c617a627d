import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type * as Message from "../src/Message.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, session } from "./support/scriptedProvider.js"

/** `locate` answers `{ city }`; `forecast` needs a `city` string and records what it got. */
const kit = () => {
  const seen: Array<unknown> = []
  const locate = Tool.make("locate", {
    description: "Where the user is.",
    parameters: { type: "object" },
    execute: () => Effect.succeed({ city: "Oslo", population: 700000 })
  })
  const forecast = Tool.make("forecast", {
    description: "The weather of a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    execute: (args) => Effect.sync(() => (seen.push(args), "rain"))
  })
  return { seen, toolkit: Either.getOrThrow(Toolkit.make(locate, forecast)) }
}

const ref = (id: string, path?: string) => ({ city: path === undefined ? { $tool: id } : { $tool: id, $path: path } })

const lastResult = (messages: ReadonlyArray<Message.Message>) => messages.at(-1) as Message.ToolResult

describe("AgentSession (tool chaining by reference)", () => {
  it.effect("call_2 refers to call_1's result and runs with the resolved value; the tools went out widened", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const provider = make([[call("call_1", "locate"), done], [call("call_2", "forecast", ref("call_1", "result.city")), done], answer("rain in Oslo")])
      const s = yield* session(provider, toolkit, { chaining: true })
      const turn = yield* s.send("weather here?")
      assert.deepStrictEqual(seen, [{ city: "Oslo" }])
      assert.strictEqual(turn.usage.repairs, 0)
      assert.deepStrictEqual(turn.calls[1]!.arguments, ref("call_1", "result.city"))
      const city = provider.requests[0]!.tools.find((t) => t.name === "forecast")!.parameters as { properties: { city: unknown } }
      assert.include(JSON.stringify(city.properties.city), "$tool")
    }))

  it.effect("a ref whose value the base schema rejects is invalid_args at the ref's field and goes through repair", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const provider = make([
        [call("call_1", "locate"), done],
        [call("call_2", "forecast", ref("call_1", "result.population")), done],
        [call("call_3", "forecast", { city: "Oslo" }), done],
        answer("ok")
      ])
      const s = yield* session(provider, toolkit, { chaining: true })
      const turn = yield* s.send("x")
      assert.strictEqual(turn.usage.repairs, 1)
      assert.deepStrictEqual(seen, [{ city: "Oslo" }])
      const fed = lastResult(provider.requests[2]!.messages).envelope
      assert.isFalse(fed.ok)
      if (fed.ok) return
      assert.strictEqual(fed.kind, "invalid_args")
      assert.strictEqual(fed.field, "city")
    }))

  it.effect("a ref to a sibling of the same round, or through __proto__, is invalid", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const provider = make([
        [call("call_1", "locate"), call("call_2", "forecast", ref("call_1", "result.city")), done],
        [call("call_3", "locate"), done],
        [call("call_4", "forecast", ref("call_3", "result.__proto__")), done]
      ])
      const s = yield* session(provider, toolkit, { chaining: true })
      const error = yield* Effect.flip(s.send("x"))
      // call_3 (locate) ran in round 2, so the exhausted turn fails after a tool ran: locate has no undo and stays outstanding
      assert.strictEqual(error._tag, "ToolArgumentRepairExhausted")
      assert.deepStrictEqual(compensationOf(error)?.notCompensated, [{ callId: "call_3", tool: "locate", reason: "no_undo" }])
      assert.deepStrictEqual(seen, [])
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User", "Assistant", "ToolResult"])
      assert.deepStrictEqual((yield* s.outstanding).map((o) => o.callId), ["call_3"])
    }))

  it.effect("scope turn: a ref to a call of an earlier turn is invalid; scope session: it resolves", () =>
    Effect.gen(function*() {
      const rounds = () => [[call("call_1", "locate"), done], answer("located"), [call("call_2", "forecast", ref("call_1", "result.city")), done], answer("done")] as const
      const turnScoped = kit()
      const p1 = make(rounds())
      const s1 = yield* session(p1, turnScoped.toolkit, { chaining: true })
      yield* s1.send("where")
      const t1 = yield* s1.send("weather")
      assert.deepStrictEqual(turnScoped.seen, [])
      assert.strictEqual(t1.usage.repairs, 1)
      const sessionScoped = kit()
      const s2 = yield* session(make(rounds()), sessionScoped.toolkit, { chaining: true, chainScope: "session" })
      yield* s2.send("where")
      const t2 = yield* s2.send("weather")
      assert.deepStrictEqual(sessionScoped.seen, [{ city: "Oslo" }])
      assert.strictEqual(t2.usage.repairs, 0)
    }))

  it.effect("a ref to another session's call id is invalid, even with scope session", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const a = yield* session(make([[call("call_1", "locate"), done], answer("located")]), toolkit, { chaining: true, chainScope: "session" })
      yield* a.send("where")
      const other = make([[call("call_9", "forecast", ref("call_1", "result.city")), done], answer("no")])
      const b = yield* session(other, toolkit, { chaining: true, chainScope: "session" })
      const turn = yield* b.send("weather")
      assert.deepStrictEqual(seen, [])
      assert.strictEqual(turn.usage.repairs, 1)
      const fed = lastResult(other.requests[1]!.messages).envelope
      assert.strictEqual(fed.ok === false && fed.kind, "invalid_args")
    }))

  it.effect("undoing a turn removes its results from what session-scoped refs can reach", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const provider = make([[call("call_1", "locate"), done], answer("located"), [call("call_2", "forecast", ref("call_1", "result.city")), done], answer("x")])
      const s = yield* session(provider, toolkit, { chaining: true, chainScope: "session" })
      yield* s.send("where")
      yield* s.undoLastTurn
      const turn = yield* s.send("weather")
      assert.deepStrictEqual(seen, [])
      assert.strictEqual(turn.usage.repairs, 1)
    }))

  it.effect("with chaining off, a ref is just an invalid argument", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = kit()
      const provider = make([[call("call_1", "locate"), done], [call("call_2", "forecast", ref("call_1", "result.city")), done], answer("x")])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("x")
      assert.deepStrictEqual(seen, [])
      assert.strictEqual(turn.usage.repairs, 1)
    }))
})

describe("AgentSession ($artifact refs)", () => {
  /** `search` saves its hits as artifact `hits` and answers only their count. */
  const withArtifacts = () => {
    const { seen, toolkit } = kit()
    const search = Tool.make("search", {
      description: "Finds cities.",
      parameters: { type: "object" },
      execute: (_args, ctx) => Effect.as(ctx.saveArtifact("hits", [{ city: "Tromsø" }, { city: "Bodø" }]), { count: 2 }),
      undo: () => Effect.void
    })
    return { seen, toolkit: Either.getOrThrow(Toolkit.make(search, ...toolkit.tools.values())) }
  }
  const artifactRef = (id: string, path: string) => ({ city: { $tool: id, $artifact: "hits", $path: path } })

  it.effect("a call reads an artifact an earlier call saved (this turn, then a later one with scope session); undo forgets it", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = withArtifacts()
      const provider = make([
        [call("s1", "search"), done],
        [call("f1", "forecast", artifactRef("s1", "[1].city")), done],
        answer("done"),
        [call("f2", "forecast", artifactRef("s1", "[0].city")), done],
        answer("done again"),
        [call("f3", "forecast", artifactRef("s1", "[0].city")), done],
        [call("f4", "forecast", { city: "Oslo" }), done],
        answer("after undo")
      ])
      const s = yield* session(provider, toolkit, { chaining: true, chainScope: "session" })
      yield* s.send("one")
      yield* s.send("two")
      assert.deepStrictEqual(seen, [{ city: "Bodø" }, { city: "Tromsø" }])
      yield* s.undoLastTurn
      yield* s.undoLastTurn
      const third = yield* s.send("three")
      assert.deepStrictEqual(third.calls[0]!.envelope.ok ? "ok" : third.calls[0]!.envelope.kind, "invalid_args")
      assert.include(third.calls[0]!.envelope.ok ? "" : third.calls[0]!.envelope.message, "s1")
    }))
})

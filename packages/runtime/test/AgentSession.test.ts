import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Option, Stream } from "effect"
import { ProviderError } from "../src/Errors.js"
import type * as Message from "../src/Message.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, session, text, usage } from "./support/scriptedProvider.js"

const addSchema = {
  type: "object",
  properties: { a: { type: "integer" }, b: { type: "integer" } },
  required: ["a", "b"],
  additionalProperties: false
}

/** A toolkit with `add` whose executor records every argument it receives. */
const adder = () => {
  const seen: Array<unknown> = []
  const add = Tool.make("add", {
    description: "Adds two integers.",
    parameters: addSchema,
    execute: (args) =>
      Effect.sync(() => {
        seen.push(args)
        const { a, b } = args as { a: number; b: number }
        return a + b
      })
  })
  return { seen, toolkit: Either.getOrThrow(Toolkit.make(add)) }
}

const tags = (messages: ReadonlyArray<Message.Message>) => messages.map((m) => m._tag)

describe("AgentSession (app-driven)", () => {
  it.effect("a call runs, its envelope is fed back, and the turn is committed", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const provider = make([[text("adding"), call("c1", "add", { a: 1, b: 2 }), usage(10, 3), done], [text("3"), usage(20, 1), done]])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("1 + 2?")
      assert.deepStrictEqual(seen, [{ a: 1, b: 2 }])
      assert.strictEqual(turn.text, "3")
      assert.strictEqual(turn.turn, 1)
      assert.deepStrictEqual(turn.calls, [{ callId: "c1", tool: "add", arguments: { a: 1, b: 2 }, envelope: { ok: true, tool: "add", result: 3 } }])
      assert.deepStrictEqual(turn.usage, { roundTrips: 2, repairs: 0, invalidRounds: 0, inputTokens: 30, outputTokens: 4 })
      assert.strictEqual(provider.requests.length, 2)
      const second = provider.requests[1]!.messages
      assert.deepStrictEqual(tags(second), ["User", "Assistant", "ToolResult"])
      assert.deepStrictEqual(second[1], { _tag: "Assistant", text: "adding", toolCalls: [{ id: "c1", name: "add", arguments: { a: 1, b: 2 } }] })
      assert.deepStrictEqual(second[2], { _tag: "ToolResult", callId: "c1", name: "add", envelope: { ok: true, tool: "add", result: 3 } })
      const history = yield* s.history
      assert.deepStrictEqual(tags(history), ["User", "Assistant", "ToolResult", "Assistant"])
      assert.deepStrictEqual(history.at(-1), { _tag: "Assistant", text: "3", toolCalls: [] })
      assert.deepStrictEqual(provider.requests[0]!.tools.map((t) => t.name), ["add"])
    }))

  it.effect("a near miss (\"15\" for an integer) is coerced and runs without a repair", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const s = yield* session(make([[call("c1", "add", { a: "15", b: 1 }), done], answer("16")]), toolkit)
      const turn = yield* s.send("add")
      assert.deepStrictEqual(seen, [{ a: 15, b: 1 }])
      assert.strictEqual(turn.usage.repairs, 0)
      assert.deepStrictEqual(turn.calls[0]!.envelope, { ok: true, tool: "add", result: 16 })
    }))

  it.effect("an invalid call is repaired (one repair spent) and then runs", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const provider = make([[call("c1", "add", { a: "x", b: 1 }), done], [call("c2", "add", { a: 2, b: 1 }), done], answer("3")])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("add")
      assert.deepStrictEqual(seen, [{ a: 2, b: 1 }])
      assert.strictEqual(turn.usage.repairs, 1)
      assert.strictEqual(turn.usage.roundTrips, 3)
      const fed = provider.requests[1]!.messages.at(-1) as Message.ToolResult
      assert.strictEqual(fed._tag, "ToolResult")
      assert.isFalse(fed.envelope.ok)
      if (fed.envelope.ok) return
      assert.strictEqual(fed.envelope.kind, "invalid_args")
      assert.strictEqual(fed.envelope.field, "a")
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["c1", "c2"])
    }))

  it.effect("repairs exhausted: ToolArgumentRepairExhausted, no executor ran, history = previous + User, no undo entry", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const bad = [call("c1", "add", { a: "x" }), done]
      const provider = make([answer("hello"), bad, [call("c2", "add", { b: [] }), done]])
      const s = yield* session(provider, toolkit)
      yield* s.send("hi")
      const before = yield* s.history
      const error = yield* Effect.flip(s.send("add"))
      assert.strictEqual(error._tag, "ToolArgumentRepairExhausted")
      if (error._tag !== "ToolArgumentRepairExhausted") return
      assert.strictEqual(error.limit, 1)
      assert.strictEqual(error.attempts, 2)
      assert.deepStrictEqual(error.lastIssues.map((i) => [i.path, i.keyword]), [["/a", "required"], ["/b", "type"]])
      assert.deepStrictEqual(seen, [])
      assert.deepStrictEqual(yield* s.history, [...before, { _tag: "User", text: "add" }])
      const undo = yield* s.undoLastTurn
      assert.isTrue(Option.isSome(undo))
      assert.strictEqual(Option.getOrThrow(undo).turn, 1)
    }))

  it.effect("an atomic round: one invalid call and one valid sibling, neither runs; the sibling is told it was not run", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const provider = make([[call("c1", "add", { a: "x", b: 1 }), call("c2", "add", { a: 1, b: 1 }), done], answer("ok")])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("add")
      assert.deepStrictEqual(seen, [])
      assert.strictEqual(turn.usage.repairs, 1)
      const [first, second] = turn.calls
      assert.strictEqual(first!.envelope.ok === false && first!.envelope.kind, "invalid_args")
      assert.deepStrictEqual(second!.envelope, {
        ok: false,
        kind: "rejected",
        message: "not run: another call of this round had invalid arguments; send it again",
        tool: "add",
        retryable: true
      })
      assert.deepStrictEqual(tags(provider.requests[1]!.messages), ["User", "Assistant", "ToolResult", "ToolResult"])
    }))

  it.effect("several invalid calls in one round spend one repair", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const s = yield* session(make([[call("c1", "add", {}), call("c2", "add", { a: null }), done], answer("ok")]), toolkit)
      const turn = yield* s.send("add")
      assert.strictEqual(turn.usage.repairs, 1)
      assert.strictEqual(turn.usage.invalidRounds, 1)
    }))

  it.effect("an unknown tool gets tool_not_found and spends no repair; its valid siblings run", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const s = yield* session(make([[call("c1", "nope", {}), call("c2", "add", { a: 1, b: 1 }), done], answer("ok")]), toolkit)
      const turn = yield* s.send("go")
      assert.strictEqual(turn.usage.repairs, 0)
      const envelope = turn.calls[0]!.envelope
      assert.isFalse(envelope.ok)
      if (envelope.ok) return
      assert.strictEqual(envelope.kind, "tool_not_found")
      assert.include(envelope.message, "add")
      assert.deepStrictEqual(seen, [{ a: 1, b: 1 }])
    }))

  it.effect("round-trip limit: RoundTripLimitExceeded and history keeps only the user message", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const loop = [call("c", "add", { a: 1, b: 1 }), done]
      const provider = make([loop, loop, loop, loop])
      const s = yield* session(provider, toolkit, { limits: { maxProviderRoundTrips: 2 } })
      const error = yield* Effect.flip(s.send("loop"))
      assert.deepStrictEqual([error._tag, compensationOf(error)?.executed.length], ["RoundTripLimitExceeded", 2])
      assert.strictEqual(provider.requests.length, 2)
      // add has no undo: its two runs stay in effect, and history tells the model so
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User", "Assistant", "ToolResult", "ToolResult"])
    }))

  it.effect("a ProviderError from the stream rolls the turn back, even after a call ran", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = adder()
      const provider = make([[call("c1", "add", { a: 1, b: 1 }), done], { fail: { reason: "503", retryable: true } }])
      const s = yield* session(provider, toolkit)
      const error = yield* Effect.flip(s.send("x"))
      assert.deepStrictEqual([error._tag, compensationOf(error)?.executed.length], ["ProviderError", 1])
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual((yield* s.history)[0], { _tag: "User", text: "x" })
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason]), [["c1", "no_undo"]])
      assert.isTrue(Option.isNone(yield* s.undoLastTurn))
    }))

  it.effect("a stream that ends without Done is a contract violation (app-driven)", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const s = yield* session(make([[text("half")]]), toolkit)
      const error = yield* Effect.flip(s.send("x"))
      assert.strictEqual(error._tag, "ProviderEventContractViolation")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "x" }])
    }))

  it.live("parallel execution when the provider supports it: two executors that wait for each other both finish", () =>
    Effect.gen(function*() {
      const left = yield* Deferred.make<void>()
      const right = yield* Deferred.make<void>()
      const meet = (mine: Deferred.Deferred<void>, other: Deferred.Deferred<void>) =>
        Effect.zipRight(Deferred.succeed(mine, undefined), Deferred.await(other))
      const params = { type: "object" }
      const toolkit = Either.getOrThrow(Toolkit.make(
        Tool.make("left", { description: "l", parameters: params, execute: () => Effect.as(meet(left, right), "L") }),
        Tool.make("right", { description: "r", parameters: params, execute: () => Effect.as(meet(right, left), "R") })
      ))
      const s = yield* session(make([[call("l", "left"), call("r", "right"), done], answer("both")]), toolkit)
      const turn = yield* s.send("go").pipe(Effect.timeout("5 seconds"))
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok && c.envelope.result), ["L", "R"])
    }))

  it.effect("sequential execution when the provider does not support parallel calls", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const step = (name: string) =>
        Tool.make(name, {
          description: name,
          parameters: { type: "object" },
          execute: () => Effect.sync(() => log.push(`${name} start`)).pipe(Effect.zipRight(Effect.yieldNow()), Effect.zipRight(Effect.sync(() => log.push(`${name} end`))))
        })
      const toolkit = Either.getOrThrow(Toolkit.make(step("a"), step("b"), step("c")))
      const provider = make([[call("1", "a"), call("2", "b"), call("3", "c"), done], answer("ok")], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit)
      yield* s.send("go")
      assert.deepStrictEqual(log, ["a start", "a end", "b start", "b end", "c start", "c end"])
    }))

  it.effect("concurrent sends on one session are serialized: the second request sees the first turn", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const release = yield* Deferred.make<void>()
      const provider = make([
        () => Stream.fromEffect(Deferred.await(release)).pipe(Stream.flatMap(() => Stream.fromIterable(answer("first")))),
        answer("second")
      ])
      const s = yield* session(provider, toolkit)
      const a = yield* Effect.fork(s.send("A"))
      while (provider.requests.length === 0) yield* Effect.yieldNow()
      const b = yield* Effect.fork(s.send("B"))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      assert.strictEqual(provider.requests.length, 1)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      assert.deepStrictEqual(tags(provider.requests[1]!.messages), ["User", "Assistant", "User"])
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag === "Assistant" ? m.text : m._tag === "User" ? m.text : m._tag), ["A", "first", "B", "second"])
    }))

  it.effect("a send that fails, or is interrupted while it waits its turn, leaves the session free for the next", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const release = yield* Deferred.make<void>()
      const provider = make([
        () => Stream.fromEffect(Deferred.await(release)).pipe(Stream.flatMap(() => Stream.fail(new ProviderError({ provider: "scripted", reason: "down", retryable: false })))),
        answer("third")
      ])
      const s = yield* session(provider, toolkit)
      const first = yield* Effect.fork(s.send("A"))
      while (provider.requests.length === 0) yield* Effect.yieldNow()
      const waiting = yield* Effect.fork(s.send("B"))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      yield* Deferred.succeed(release, undefined)
      const failed = yield* Effect.flip(Fiber.join(first))
      assert.strictEqual(failed._tag, "ProviderError")
      const third = yield* s.send("C")
      assert.strictEqual(third.text, "third")
      assert.strictEqual(provider.requests.length, 2)
      // the failed turn keeps its user message (as any failed send does); the interrupted one never started
      assert.deepStrictEqual(provider.requests[1]!.messages.map((m) => m._tag === "User" ? m.text : m._tag), ["A", "C"])
    }))

  it.effect("a tool whose parameters have no usable schema fails the send with InvalidToolSchema when called", () =>
    Effect.gen(function*() {
      const broken = Tool.make("broken", { description: "b", parameters: { type: "object", properties: { a: { $ref: "#/nowhere" } } }, execute: () => Effect.void })
      const toolkit = Either.getOrThrow(Toolkit.make(broken))
      const s = yield* session(make([[call("c1", "broken", { a: 1 }), done], answer("x")]), toolkit)
      const error = yield* Effect.flip(s.send("x"))
      assert.strictEqual(error._tag, "InvalidToolSchema")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "x" }])
    }))

})

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Stream, TestClock } from "effect"
import * as RunLimits from "../src/RunLimits.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, session } from "./support/scriptedProvider.js"

/** `wait` sleeps `seconds` (per call) and records how often it finished; `move` adds to a balance and undoes it. */
const kit = (timeout?: Tool.Timeout) => {
  const state = { finished: 0, balance: 0 }
  const wait = Tool.make("wait", {
    description: "Sleep.",
    parameters: { type: "object", properties: { seconds: { type: "integer" } }, required: ["seconds"] },
    execute: (args) => Effect.sleep(`${(args as { seconds: number }).seconds} seconds`).pipe(Effect.tap(() => void state.finished++), Effect.as("awake")),
    ...(timeout === undefined ? {} : { timeout })
  })
  const move = Tool.make("move", {
    description: "Move money.",
    parameters: { type: "object" },
    execute: () => Effect.sync(() => state.balance += 10),
    undo: () => Effect.sync(() => void (state.balance -= 10))
  })
  return { state, toolkit: Either.getOrThrow(Toolkit.make(wait, move)) }
}

describe("AgentSession deadlines (TestClock)", () => {
  it.effect("a tool past its default budget (120 s) is stopped and answered with a retryable timeout envelope; the turn goes on", () =>
    Effect.gen(function*() {
      const { state, toolkit } = kit()
      const s = yield* session(make([[call("w", "wait", { seconds: 3600 }), done], answer("gave up")]), toolkit)
      const fiber = yield* Effect.fork(s.send("sleep"))
      yield* TestClock.adjust("119 seconds")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 second")
      const turn = yield* Fiber.join(fiber)
      const envelope = turn.calls[0]!.envelope
      assert.deepStrictEqual([envelope.ok, !envelope.ok && envelope.kind, !envelope.ok && envelope.retryable], [false, "timeout", true])
      assert.strictEqual(turn.text, "gave up")
      assert.strictEqual(state.finished, 0)
    }))

  it.effect("a tool's own budget applies; \"none\" opts a long-running tool out", () =>
    Effect.gen(function*() {
      const short = kit("2 seconds")
      const s1 = yield* session(make([[call("w", "wait", { seconds: 5 }), done], answer("ok")]), short.toolkit)
      const f1 = yield* Effect.fork(s1.send("go"))
      yield* TestClock.adjust("2 seconds")
      const t1 = yield* Fiber.join(f1)
      assert.strictEqual(!t1.calls[0]!.envelope.ok && t1.calls[0]!.envelope.kind, "timeout")
      const long = kit("none")
      // past the default 120 s, within the turn's default deadline of 10 minutes
      const s2 = yield* session(make([[call("w", "wait", { seconds: 300 }), done], answer("ok")]), long.toolkit)
      const f2 = yield* Effect.fork(s2.send("go"))
      yield* TestClock.adjust("300 seconds")
      const t2 = yield* Fiber.join(f2)
      assert.isTrue(t2.calls[0]!.envelope.ok)
      assert.strictEqual(long.state.finished, 1)
    }))

  it.effect("the turn deadline (RunLimits.turnDeadlineMillis) ends a hanging round with TurnDeadlineExceeded, after compensating", () =>
    Effect.gen(function*() {
      const { state, toolkit } = kit()
      const asked = yield* Deferred.make<void>()
      const hangs = () => Stream.concat(Stream.drain(Stream.fromEffect(Deferred.succeed(asked, undefined))), Stream.never)
      const s = yield* session(make([[call("m", "move"), done], hangs]), toolkit, { limits: { turnDeadlineMillis: 5_000 } })
      const fiber = yield* Effect.fork(Effect.flip(s.send("go")))
      yield* Deferred.await(asked)
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "TurnDeadlineExceeded")
      assert.include(error.message, "5000 ms")
      assert.deepStrictEqual([compensationOf(error)?.compensated, state.balance], [["m"], 0])
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User"])
    }))

  it.effect("a tool stopped by the turn deadline or its own budget in a failed turn is an outstanding effect (its result is unknown)", () =>
    Effect.gen(function*() {
      const { toolkit } = kit("1 second")
      const s = yield* session(make([[call("w", "wait", { seconds: 10 }), done], { fail: { reason: "down", retryable: true } }]), toolkit)
      const fiber = yield* Effect.fork(Effect.flip(s.send("go")))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(compensationOf(error)?.notCompensated[0]?.reason, "interrupted")
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason]), [["w", "interrupted"]])
      const told = (yield* s.history)[2]
      assert.isTrue(told?._tag === "ToolResult" && !told.envelope.ok && !told.envelope.retryable)
    }))

  it("the deadline has a default and is read from config", () => {
    assert.strictEqual(RunLimits.defaultTurnDeadlineMillis, 600_000)
    assert.deepStrictEqual(RunLimits.make({ turnDeadlineMillis: 1000 }), Either.right({ maxToolArgumentRepairs: 1, maxProviderRoundTrips: 10, turnDeadlineMillis: 1000 }))
    assert.isTrue(Either.isLeft(RunLimits.make({ turnDeadlineMillis: 0 })))
  })
})

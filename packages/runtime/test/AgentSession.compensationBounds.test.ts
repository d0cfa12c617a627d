import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Stream } from "effect"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, type Round, session } from "./support/scriptedProvider.js"

/**
 * Real time, small durations. `move` adds to a balance; its undo hangs (never answers). `block` never answers
 * either. `move`'s budget is `budget`.
 */
const kit = (budget: Tool.Timeout) => {
  const state = { balance: 0, undos: 0 }
  const move = Tool.make("move", {
    description: "Move money.",
    parameters: { type: "object" },
    execute: () => Effect.sync(() => state.balance += 10),
    undo: () => Effect.zipRight(Effect.sync(() => void state.undos++), Effect.never),
    timeout: budget
  })
  const block = Tool.make("block", { description: "Hang.", parameters: { type: "object" }, execute: () => Effect.never, timeout: "100 millis" })
  return { state, toolkit: Either.getOrThrow(Toolkit.make(move, block)) }
}

const moved: Round = [call("m", "move"), done]
const down: Round = { fail: { reason: "down", retryable: true } }
const hangs: Round = () => Stream.never

/** `effect`, or a failure `hung` when it has not ended after a few seconds (it is left running, detached). */
const unhung = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.exit(Effect.disconnect(effect)).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "hung" as const }))

describe("AgentSession: compensation is bounded (real time)", () => {
  it.live("an undo that never answers is stopped at its tool's budget: send fails with its own error, the call is outstanding (undo_failed)", () =>
    Effect.gen(function*() {
      const { state, toolkit } = kit("200 millis")
      const s = yield* session(make([moved, down]), toolkit)
      const exit = yield* unhung(s.send("go"))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
      assert.strictEqual(error?._tag === "Some" && error.value._tag, "ProviderError")
      const report = error?._tag === "Some" ? compensationOf(error.value) : undefined
      assert.deepStrictEqual(report?.notCompensated.map((c) => [c.callId, c.reason, c.undoFailure?.kind]), [["m", "undo_failed", "timeout"]])
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason]), [["m", "undo_failed"]])
      assert.deepStrictEqual([state.balance, state.undos], [10, 1])
    }), 20_000)

  it.live("the caller's own Effect.timeout ends a send whose compensation meets a hanging undo", () =>
    Effect.gen(function*() {
      const { state, toolkit } = kit("200 millis")
      const s = yield* session(make([moved, hangs]), toolkit)
      const exit = yield* unhung(s.send("go").pipe(Effect.timeout("300 millis")))
      assert.strictEqual(Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe((o) => o._tag === "Some" && o.value._tag), "TimeoutException")
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason]), [["m", "undo_failed"]])
      assert.strictEqual(state.undos, 1)
    }), 20_000)

  it.live("an undo without a budget (\"none\") is stopped by the compensation's deadline (as long as the turn's)", () =>
    Effect.gen(function*() {
      const { toolkit } = kit("none")
      const s = yield* session(make([moved, down]), toolkit, { limits: { turnDeadlineMillis: 300 } })
      const exit = yield* unhung(s.send("go"))
      const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
      const report = error?._tag === "Some" ? compensationOf(error.value) : undefined
      assert.deepStrictEqual(report?.notCompensated.map((c) => [c.callId, c.reason, c.undoFailure?.kind]), [["m", "undo_failed", "timeout"]])
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason]), [["m", "undo_failed"]])
    }), 20_000)

  it.live("an undo that interrupts itself or dies is undo_failed, in a compensation and in undoLastTurn; the send keeps its own error", () =>
    Effect.gen(function*() {
      for (const undo of [Effect.interrupt, Effect.die("bug"), Effect.sync(() => { throw new Error("thrown") })]) {
        const move = Tool.make("move", { description: "m", parameters: { type: "object" }, execute: () => Effect.succeed(1), undo: () => undo })
        const toolkit = Either.getOrThrow(Toolkit.make(move))
        const s = yield* session(make([moved, down, moved, answer("ok")]), toolkit)
        const exit = yield* unhung(s.send("go"))
        const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
        assert.strictEqual(error?._tag === "Some" && error.value._tag, "ProviderError")
        const report = error?._tag === "Some" ? compensationOf(error.value) : undefined
        assert.deepStrictEqual(report?.notCompensated.map((c) => [c.callId, c.reason]), [["m", "undo_failed"]])
        assert.isTrue(Exit.isSuccess(yield* unhung(s.send("again"))))
        const undone = yield* unhung(s.undoLastTurn)
        const incomplete = Exit.isFailure(undone) ? Cause.failureOption(undone.cause) : undefined
        assert.strictEqual(incomplete?._tag === "Some" && incomplete.value._tag, "UndoIncomplete")
      }
    }), 20_000)

  it.scopedLive("send as an acquireRelease acquire keeps its tool budgets, its turn deadline and a bounded compensation", () =>
    Effect.gen(function*() {
      const acquired = <A, E>(effect: Effect.Effect<A, E>) => unhung(Effect.acquireRelease(effect, () => Effect.void))
      // a tool that never answers is stopped at its budget and answered `timeout`; the turn goes on
      const blocked = kit("200 millis")
      const s1 = yield* session(make([[call("b", "block"), done], answer("gave up")]), blocked.toolkit)
      const t1 = yield* acquired(s1.send("go"))
      assert.isTrue(Exit.isSuccess(t1))
      const envelope = Exit.isSuccess(t1) ? t1.value.calls[0]!.envelope : undefined
      assert.strictEqual(envelope?.ok === false && envelope.kind, "timeout")
      // a round that never ends meets the turn deadline; the hanging undo is stopped at its budget
      const late = kit("200 millis")
      const s2 = yield* session(make([moved, hangs]), late.toolkit, { limits: { turnDeadlineMillis: 300 } })
      const t2 = yield* acquired(s2.send("go"))
      const error = Exit.isFailure(t2) ? Cause.failureOption(t2.cause) : undefined
      assert.strictEqual(error?._tag === "Some" && error.value._tag, "TurnDeadlineExceeded")
      assert.deepStrictEqual((yield* s2.outstanding).map((o) => [o.callId, o.reason]), [["m", "undo_failed"]])
    }), 20_000)
})

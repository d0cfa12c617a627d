import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, keyShape, make, session } from "./support/scriptedProvider.js"

/** `write` records what it wrote and undoes it; `flaky` cannot be undone; `read` has no undo. */
const kit = () => {
  const log: Array<string> = []
  const params = { type: "object", properties: { v: { type: "string" } }, required: ["v"] }
  const write = Tool.make("write", {
    description: "w",
    parameters: params,
    execute: (args) => Effect.sync(() => (log.push(`write ${(args as { v: string }).v}`), { wrote: (args as { v: string }).v })),
    undo: (args, ctx) => Effect.sync(() => void log.push(`undo ${(args as { v: string }).v} ${JSON.stringify(ctx.result)} ${ctx.callId}`))
  })
  // its undo fails the first time it is asked, then works
  let flakyUndos = 0
  const flaky = Tool.make("flaky", {
    description: "f",
    parameters: params,
    execute: () => Effect.succeed("done"),
    undo: () => flakyUndos++ === 0 ? Tool.fail("unavailable", "cannot undo now") : Effect.sync(() => void log.push("undo flaky"))
  })
  const read = Tool.make("read", { description: "r", parameters: { type: "object" }, execute: () => Effect.succeed("data") })
  return { log, toolkit: Either.getOrThrow(Toolkit.make(write, flaky, read)) }
}

describe("AgentSession.undoLastTurn", () => {
  it.effect("runs the last turn's undo entries newest first and removes the turn from history", () =>
    Effect.gen(function*() {
      const { log, toolkit } = kit()
      const provider = make([
        answer("first"),
        [call("w1", "write", { v: "a" }), call("r", "read"), done],
        [call("w2", "write", { v: "b" }), done],
        answer("written")
      ], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit)
      yield* s.send("one")
      const before = yield* s.history
      yield* s.send("two")
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(report, { turn: 2, undone: ["w2", "w1"], notUndone: ["r"] })
      assert.deepStrictEqual(log, ["write a", "write b", "undo b {\"wrote\":\"b\"} w2", "undo a {\"wrote\":\"a\"} w1"])
      assert.deepStrictEqual(yield* s.history, before)
      // `read` has no undo: whatever it did stays, and the session says so until the app reconciles it
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.turn, o.callId, o.tool, o.reason, keyShape(o.idempotencyKey), o.envelope?.ok]), [
        [2, "r", "read", "no_undo", `${s.id}:2:r`, true]
      ])
      const first = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(first, { turn: 1, undone: [], notUndone: [] })
      assert.deepStrictEqual(yield* s.history, [])
      assert.isTrue(Option.isNone(yield* s.undoLastTurn))
    }))

  it.effect("a failing undo fails with UndoIncomplete and the turn stays; undoing again retries exactly what is left", () =>
    Effect.gen(function*() {
      const { log, toolkit } = kit()
      const provider = make([
        answer("first"),
        [call("w", "write", { v: "a" }), call("f", "flaky", { v: "x" }), call("w2", "write", { v: "b" }), done],
        answer("ok")
      ], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit)
      yield* s.send("one")
      yield* s.send("two")
      const history = yield* s.history
      const error = yield* Effect.flip(s.undoLastTurn)
      assert.strictEqual(error._tag, "UndoIncomplete")
      if (error._tag !== "UndoIncomplete") return
      assert.deepStrictEqual([error.turn, error.undone, error.left], [2, ["w2", "w"], ["f"]])
      assert.deepStrictEqual(error.failed.map((f) => [f.callId, f.tool, f.envelope.kind]), [["f", "flaky", "unavailable"]])
      assert.include(error.message, "cannot undo now")
      assert.deepStrictEqual(yield* s.history, history, "the turn stays in history")
      assert.deepStrictEqual(log.slice(2), ["undo b {\"wrote\":\"b\"} w2", "undo a {\"wrote\":\"a\"} w"])
      const retried = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(retried, { turn: 2, undone: ["f"], notUndone: [] })
      assert.deepStrictEqual(log.slice(4), ["undo flaky"], "the steps already undone do not run again")
      assert.deepStrictEqual(yield* s.history, history.slice(0, 2))
      assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 1, undone: [], notUndone: [] })
      assert.deepStrictEqual(yield* s.outstanding, [])
    }))

  it.effect("a failed turn after a committed one: undo removes the committed turn and keeps the failed turn's user message", () =>
    Effect.gen(function*() {
      const { log, toolkit } = kit()
      const provider = make([[call("w", "write", { v: "a" }), done], answer("ok"), { fail: { reason: "down", retryable: true } }])
      const s = yield* session(provider, toolkit)
      yield* s.send("one")
      yield* Effect.flip(s.send("two"))
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.strictEqual(report.turn, 1)
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "two" }])
      assert.strictEqual(log.length, 2)
    }))

  it.effect("calls that failed or were rejected have no undo entry", () =>
    Effect.gen(function*() {
      const { log, toolkit } = kit()
      const failing = Tool.make("boom", {
        description: "b",
        parameters: { type: "object" },
        execute: () => Tool.fail("execution_error", "no"),
        undo: () => Effect.sync(() => void log.push("undo boom"))
      })
      const withBoom = Either.getOrThrow(Toolkit.make(...toolkit.tools.values(), failing))
      const provider = make([[call("b", "boom"), done], [call("w", "write", {}), call("w2", "write", { v: "z" }), done], answer("ok")])
      const s = yield* session(provider, withBoom)
      yield* s.send("go")
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual([report.undone, report.notUndone], [[], []])
      assert.deepStrictEqual(log, [])
      assert.deepStrictEqual(yield* s.outstanding, [], "a call that failed had no effect to keep")
    }))

  it.live("a committed call that ran out of time may have done anything: undoing its turn leaves it outstanding", () =>
    Effect.gen(function*() {
      const slow = Tool.make("slow", {
        description: "s",
        parameters: { type: "object" },
        timeout: "20 millis",
        execute: () => Effect.never,
        undo: () => Effect.die("an unanswered call has no result to undo")
      })
      const provider = make([[call("s1", "slow"), done], answer("it timed out")])
      const s = yield* session(provider, Either.getOrThrow(Toolkit.make(slow)))
      yield* s.send("go")
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(report, { turn: 1, undone: [], notUndone: ["s1"] })
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason, o.envelope?.ok === false && o.envelope.kind]), [["s1", "interrupted", "timeout"]])
      assert.deepStrictEqual(yield* s.history, [])
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

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
  const flaky = Tool.make("flaky", {
    description: "f",
    parameters: params,
    execute: () => Effect.succeed("done"),
    undo: () => Tool.fail("unavailable", "cannot undo now")
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
      assert.deepStrictEqual(report, { turn: 2, undone: ["w2", "w1"], failed: [] })
      assert.deepStrictEqual(log, ["write a", "write b", "undo b {\"wrote\":\"b\"} w2", "undo a {\"wrote\":\"a\"} w1"])
      assert.deepStrictEqual(yield* s.history, before)
      const first = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(first, { turn: 1, undone: [], failed: [] })
      assert.deepStrictEqual(yield* s.history, [])
      assert.isTrue(Option.isNone(yield* s.undoLastTurn))
    }))

  it.effect("a failing undo is reported with its envelope; the others still run", () =>
    Effect.gen(function*() {
      const { log, toolkit } = kit()
      const provider = make([[call("w", "write", { v: "a" }), call("f", "flaky", { v: "x" }), done], answer("ok")], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit)
      yield* s.send("go")
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(report.undone, ["w"])
      assert.strictEqual(report.failed.length, 1)
      assert.strictEqual(report.failed[0]!.callId, "f")
      assert.strictEqual(report.failed[0]!.envelope.kind, "unavailable")
      assert.strictEqual(log.at(-1), "undo a {\"wrote\":\"a\"} w")
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
      assert.deepStrictEqual(report.undone, [])
      assert.deepStrictEqual(log, [])
    }))
})

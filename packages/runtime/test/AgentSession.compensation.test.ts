import { assert, describe, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Fiber, Option, Queue, Schema, Stream } from "effect"
import * as Compensation from "../src/Compensation.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, keyShape, make, type Round, session, text } from "./support/scriptedProvider.js"

/**
 * A bank: `transfer` adds to the balance and its undo takes it back; `notify` cannot be undone; `refund`'s
 * undo fails. Every executor and undo records the idempotency key it was given.
 */
const bank = () => {
  const state = { balance: 0, notified: 0, refunded: 0 }
  const keys: Array<string> = []
  const undoKeys: Array<string> = []
  const amount = { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] } as const
  const transfer = Tool.make("transfer", {
    description: "Move money.",
    parameters: amount,
    execute: (args, ctx) =>
      Effect.sync(() => {
        keys.push(ctx.idempotencyKey)
        state.balance += (args as { amount: number }).amount
        return { balance: state.balance }
      }),
    undo: (args, ctx) =>
      Effect.sync(() => {
        undoKeys.push(ctx.idempotencyKey)
        state.balance -= (args as { amount: number }).amount
      })
  })
  const notify = Tool.make("notify", {
    description: "Send a message.",
    parameters: { type: "object" },
    execute: (_, ctx) => Effect.sync(() => (keys.push(ctx.idempotencyKey), state.notified++, "sent"))
  })
  const refund = Tool.make("refund", {
    description: "Refund.",
    parameters: { type: "object" },
    execute: () => Effect.sync(() => (state.refunded++, "refunded")),
    undo: () => Tool.fail("unavailable", "the ledger is closed")
  })
  return { state, keys, undoKeys, toolkit: Either.getOrThrow(Toolkit.make(transfer, notify, refund)) }
}

const transfer10 = (id: string) => [call(id, "transfer", { amount: 10 }), done]

/** The ways round 2 can end a turn after round 1 ran `transfer`. */
const secondRounds: ReadonlyArray<readonly [string, ReadonlyArray<Round>, string]> = [
  ["a provider error", [{ fail: { reason: "503", retryable: true } }], "ProviderError"],
  ["exhausted repair", [[call("bad1", "transfer", { amount: "ten" }), done], [call("bad2", "transfer", {}), done]], "ToolArgumentRepairExhausted"],
  ["a missing Done", [[text("half")]], "ProviderEventContractViolation"]
]

describe("AgentSession compensation (a failed turn takes back what it ran)", () => {
  for (const [name, failing, tag] of secondRounds) {
    it.scoped(`round 2 fails with ${name}: the transfer is undone exactly once, and a retry applies it once`, () =>
      Effect.gen(function*() {
        const b = bank()
        const provider = make([transfer10("t1"), ...failing, transfer10("t2"), answer("Sent 10.")])
        const s = yield* session(provider, b.toolkit)
        const events = yield* s.subscribe
        const error = yield* Effect.flip(s.send("send 10"))
        // the error keeps its own tag; what the compensation did rides on it
        assert.strictEqual(error._tag, tag)
        const report = compensationOf(error)!
        assert.strictEqual(report.turn, 1)
        assert.deepStrictEqual(report.executed.map((e) => [e.callId, e.tool, e.round, e.arguments]), [["t1", "transfer", 1, { amount: 10 }]])
        assert.deepStrictEqual(report.compensated, ["t1"])
        assert.deepStrictEqual(report.notCompensated, [])
        assert.include(error.message, tag === "ProviderError" ? "503" : "")
        // it encodes with the error and decodes back to the same class
        const back = Schema.decodeUnknownSync(Compensation.TurnError)(JSON.parse(JSON.stringify(Schema.encodeSync(Compensation.TurnError)(error as Compensation.TurnError))))
        assert.strictEqual(back.constructor, error.constructor)
        assert.deepStrictEqual(compensationOf(back), report)
        assert.deepStrictEqual([b.state.balance, b.undoKeys.map(keyShape)], [0, [`${s.id}:1:t1`]])
        assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "send 10" }])
        assert.deepStrictEqual(yield* s.outstanding, [])
        assert.isTrue(Option.isNone(yield* s.undoLastTurn))
        const tags = Chunk.toReadonlyArray(yield* Queue.takeAll(events)).map((e) => e._tag)
        assert.deepStrictEqual(tags.slice(-2), ["TurnCompensated", "TurnRolledBack"])

        const retry = yield* s.send("send 10")
        assert.strictEqual(retry.text, "Sent 10.")
        assert.strictEqual(b.state.balance, 10)
        assert.deepStrictEqual(b.keys.map(keyShape), [`${s.id}:1:t1`, `${s.id}:2:t2`])
      }))
  }

  it.effect("interrupted in round 2: the transfer is undone before the interruption completes, and a retry applies it once", () =>
    Effect.gen(function*() {
      const b = bank()
      const asked = yield* Deferred.make<void>()
      const hangs = () => Stream.concat(Stream.drain(Stream.fromEffect(Deferred.succeed(asked, undefined))), Stream.never)
      const provider = make([transfer10("t1"), hangs, transfer10("t2"), answer("Sent 10.")])
      const s = yield* session(provider, b.toolkit)
      const fiber = yield* Effect.fork(s.send("send 10"))
      yield* Deferred.await(asked)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual([b.state.balance, b.undoKeys.length], [0, 1])
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "send 10" }])
      assert.deepStrictEqual(yield* s.outstanding, [])
      yield* s.send("send 10")
      assert.strictEqual(b.state.balance, 10)
    }))

  it.effect("undo runs newest first; a call without undo and a failing undo stay outstanding, and the model is told", () =>
    Effect.gen(function*() {
      const b = bank()
      const provider = make([
        [call("t1", "transfer", { amount: 5 }), call("n1", "notify"), done],
        [call("r1", "refund"), call("t2", "transfer", { amount: 7 }), done],
        { fail: { reason: "down", retryable: false } }
      ], { supportsParallelToolCalls: false })
      const s = yield* session(provider, b.toolkit)
      const error = yield* Effect.flip(s.send("go"))
      assert.strictEqual(error._tag, "ProviderError")
      const report = compensationOf(error)!
      assert.deepStrictEqual(report.executed.map((e) => e.callId), ["t1", "n1", "r1", "t2"])
      assert.deepStrictEqual(report.compensated, ["t2", "t1"])
      assert.deepStrictEqual(report.notCompensated.map((c) => [c.callId, c.reason, c.undoFailure?.kind]), [["n1", "no_undo", undefined], ["r1", "undo_failed", "unavailable"]])
      assert.strictEqual(b.state.balance, 0)
      const outstanding = yield* s.outstanding
      assert.deepStrictEqual(outstanding.map((o) => [o.turn, o.callId, o.tool, o.reason, keyShape(o.idempotencyKey)]), [
        [1, "n1", "notify", "no_undo", `${s.id}:1:n1`],
        [1, "r1", "refund", "undo_failed", `${s.id}:1:r1`]
      ])
      const history = yield* s.history
      assert.deepStrictEqual(history.slice(0, 2), [
        { _tag: "User", text: "go" },
        { _tag: "Assistant", text: "", toolCalls: [{ id: "n1", name: "notify", arguments: {} }, { id: "r1", name: "refund", arguments: {} }] }
      ])
      const results = history.slice(2)
      assert.deepStrictEqual(results.map((m) => m._tag === "ToolResult" && m.callId), ["n1", "r1"])
      for (const m of results) {
        assert.isTrue(m._tag === "ToolResult" && m.envelope.ok && m.envelope.warnings!.some((w) => w.includes("still in place")))
      }
      // the app reconciles one; the other stays
      const removed: ReadonlyArray<Compensation.OutstandingEffect> = yield* s.reconcile([outstanding[0]!.idempotencyKey, "no such key"])
      assert.deepStrictEqual(removed.map((o) => o.callId), ["n1"])
      assert.deepStrictEqual((yield* s.outstanding).map((o) => o.callId), ["r1"])
    }))

  it.effect("a call that answered with a failure ran but had no effect: it is executed, and neither undone nor outstanding", () =>
    Effect.gen(function*() {
      const failing = Tool.make("boom", {
        description: "b",
        parameters: { type: "object" },
        execute: () => Tool.fail("execution_error", "no"),
        undo: () => Effect.die("never")
      })
      const provider = make([[call("b1", "boom"), done], { fail: { reason: "down", retryable: false } }])
      const s = yield* session(provider, Either.getOrThrow(Toolkit.make(failing)))
      const error = yield* Effect.flip(s.send("go"))
      assert.strictEqual(error._tag, "ProviderError")
      const report = compensationOf(error)!
      assert.deepStrictEqual([report.executed.length, report.compensated, report.notCompensated], [1, [], []])
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "go" }])
    }))

  it.effect("repair exhaustion after an earlier round ran a tool is caught by its own tag, with the compensation attached", () =>
    Effect.gen(function*() {
      const b = bank()
      const exhausted = [[call("bad1", "transfer", { amount: "ten" }), done], [call("bad2", "transfer", {}), done]] as const
      const s = yield* session(make([transfer10("t1"), ...exhausted]), b.toolkit)
      const caught = yield* s.send("send 10").pipe(
        Effect.map(() => undefined),
        Effect.catchTag("ToolArgumentRepairExhausted", (e) => Effect.succeed(e))
      )
      assert.isDefined(caught)
      assert.deepStrictEqual([caught!.limit, caught!.attempts], [1, 2])
      assert.deepStrictEqual(caught!.compensation?.compensated, ["t1"])
      assert.deepStrictEqual(b.state.balance, 0)
      // a turn that ran no tool carries no compensation
      const quiet = yield* session(make([...exhausted]), bank().toolkit)
      const plain = yield* Effect.flip(quiet.send("x"))
      assert.deepStrictEqual([plain._tag, compensationOf(plain)], ["ToolArgumentRepairExhausted", undefined])
    }))

  it.effect("a committed turn's executors and undos get the same key; two sessions never share one", () =>
    Effect.gen(function*() {
      const one = bank()
      const two = bank()
      const s1 = yield* session(make([transfer10("t"), answer("ok")]), one.toolkit)
      const s2 = yield* session(make([transfer10("t"), answer("ok")]), two.toolkit)
      yield* s1.send("a")
      yield* s2.send("a")
      yield* s1.undoLastTurn
      assert.deepStrictEqual(one.undoKeys, one.keys)
      assert.notStrictEqual(one.keys[0], two.keys[0])
      assert.notStrictEqual(s1.id, s2.id)
    }))

  it.live("a send interrupted while its failed turn is being compensated still finishes the compensation", () =>
    Effect.gen(function*() {
      const live = new Set<string>()
      const undoing = yield* Deferred.make<void>()
      const resume = yield* Deferred.make<void>()
      const put = Tool.make("put", {
        description: "An effect whose undo takes a while.",
        parameters: { type: "object" },
        execute: (_, ctx) => Effect.sync(() => void live.add(ctx.idempotencyKey)),
        undo: (_, ctx) =>
          Effect.zipRight(
            Effect.zipRight(Deferred.succeed(undoing, undefined), Deferred.await(resume)),
            Effect.sync(() => void live.delete(ctx.idempotencyKey))
          )
      })
      const provider = make([[call("p1", "put", {}), call("p2", "put", {}), done], { fail: { reason: "503", retryable: true } }])
      const s = yield* session(provider, Either.getOrThrow(Toolkit.make(put)))
      const events = yield* s.subscribe
      const send = yield* Effect.fork(s.send("put twice"))
      yield* Deferred.await(undoing)
      // the turn failed by itself and is compensating; the caller gives up now
      const interrupted = yield* Effect.fork(Fiber.interrupt(send))
      yield* Effect.sleep("20 millis")
      yield* Deferred.succeed(resume, undefined)
      yield* Fiber.join(interrupted)
      assert.deepStrictEqual([...live], [])
      assert.deepStrictEqual(yield* s.outstanding, [])
      const tags = Chunk.toReadonlyArray(yield* Queue.takeAll(events)).map((e) => e._tag)
      assert.deepStrictEqual(tags.slice(-2), ["TurnCompensated", "TurnRolledBack"])
    }).pipe(Effect.scoped))
})

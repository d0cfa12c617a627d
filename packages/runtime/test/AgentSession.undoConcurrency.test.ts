import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Option, Stream } from "effect"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

/** `pay` records each run and each undo; its undo answers `undone` before it returns, and first waits for `release` when given. */
const payments = (release?: Deferred.Deferred<void>) => {
  const state = { paid: 0, undos: 0 }
  const undone = Deferred.unsafeMake<void>(undefined as never)
  const started = Deferred.unsafeMake<void>(undefined as never)
  const pay = Tool.make("pay", {
    description: "Pay.",
    parameters: { type: "object" },
    execute: () => Effect.sync(() => ++state.paid),
    undo: () =>
      Effect.gen(function*() {
        yield* Deferred.succeed(started, undefined)
        if (release !== undefined) yield* Deferred.await(release)
        state.undos++
        yield* Deferred.succeed(undone, undefined)
      })
  })
  return { state, undone, started, toolkit: Either.getOrThrow(Toolkit.make(pay)) }
}

/** Until `fiber` waits (for the session's lock, a provider, …). */
const waiting = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function*() {
    while ((yield* Fiber.status(fiber))._tag !== "Suspended") yield* Effect.yieldNow()
  })

describe("AgentSession.undoLastTurn under interruption and beside sends", () => {
  it.effect("interrupted right after its undo answered, the step is done: a retry does not run it again", () =>
    Effect.gen(function*() {
      const p = payments()
      const s = yield* session(make([[call("p1", "pay"), done], answer("paid")]), p.toolkit)
      yield* s.send("pay")
      const undo = yield* Effect.fork(s.undoLastTurn)
      yield* Deferred.await(p.undone)
      yield* Fiber.interrupt(undo)
      const retried = yield* s.undoLastTurn
      assert.strictEqual(p.state.undos, 1, "the undo ran once")
      assert.deepStrictEqual(Option.map(retried, (r) => r.turn), Option.some(1))
      assert.deepStrictEqual(yield* s.history, [])
      assert.isTrue(Option.isNone(yield* s.undoLastTurn))
      assert.strictEqual(p.state.undos, 1)
    }))

  it.effect("interrupted while its undo runs, a retry waits for that same run instead of starting another", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const p = payments(release)
      const s = yield* session(make([[call("p1", "pay"), done], answer("paid")]), p.toolkit)
      yield* s.send("pay")
      const undo = yield* Effect.fork(s.undoLastTurn)
      yield* Deferred.await(p.started)
      yield* Fiber.interrupt(undo)
      const retry = yield* Effect.fork(s.undoLastTurn)
      yield* waiting(retry)
      yield* Deferred.succeed(release, undefined)
      const report = yield* Fiber.join(retry)
      assert.deepStrictEqual(Option.map(report, (r): [number, ReadonlyArray<string>] => [r.turn, r.undone]), Option.some<[number, ReadonlyArray<string>]>([1, ["p1"]]))
      assert.strictEqual(p.state.undos, 1)
    }))

  it.effect("asked for while a send is in flight: it waits, and refuses (UndoSuperseded) once the send committed a newer turn", () =>
    Effect.gen(function*() {
      const p = payments()
      const gate = yield* Deferred.make<void>()
      const asked = yield* Deferred.make<void>()
      const held = () => Stream.concat(Stream.drain(Stream.fromEffect(Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(gate)))), Stream.fromIterable(answer("two")))
      const s = yield* session(make([[call("p1", "pay"), done], answer("one"), held]), p.toolkit)
      yield* s.send("first")
      const sending = yield* Effect.fork(s.send("second"))
      yield* Deferred.await(asked)
      const undo = yield* Effect.fork(s.undoLastTurn)
      yield* waiting(undo)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual((yield* Fiber.join(sending)).turn, 2)
      const error = yield* Effect.flip(Fiber.join(undo))
      assert.strictEqual(error._tag, "UndoSuperseded")
      if (error._tag !== "UndoSuperseded") return
      assert.deepStrictEqual([error.expected, error.last], [1, 2])
      assert.strictEqual(p.state.undos, 0, "nothing was undone")
      assert.strictEqual((yield* s.history).length, 6)
      // asked again, it takes back the turn that is last now
      assert.deepStrictEqual(Option.map(yield* s.undoLastTurn, (r) => r.turn), Option.some(2))
    }))

  it.effect("a send asked for while an undo runs waits for it, and its request no longer carries the undone turn", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const p = payments(release)
      const provider = make([[call("p1", "pay"), done], answer("one"), answer("two")])
      const s = yield* session(provider, p.toolkit)
      yield* s.send("first")
      const undo = yield* Effect.fork(s.undoLastTurn)
      yield* Deferred.await(p.started)
      const sending = yield* Effect.fork(s.send("second"))
      yield* waiting(sending)
      assert.strictEqual(provider.requests.length, 2, "the send has not reached the provider while the undo runs")
      yield* Deferred.succeed(release, undefined)
      assert.deepStrictEqual(Option.map(yield* Fiber.join(undo), (r) => r.turn), Option.some(1))
      const turn = yield* Fiber.join(sending)
      assert.strictEqual(turn.text, "two")
      const last = provider.requests.at(-1)!
      assert.notInclude(JSON.stringify(last), "first")
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User", "Assistant"])
    }))
})

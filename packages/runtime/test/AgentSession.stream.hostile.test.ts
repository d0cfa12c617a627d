import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, type Round, text } from "./support/scriptedProvider.js"

/** `transfer` adds to a balance and its undo takes it back. */
const bank = () => {
  const state = { balance: 0 }
  const transfer = Tool.make("transfer", {
    description: "Move money.",
    parameters: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
    execute: (args) => Effect.sync(() => (state.balance += (args as { amount: number }).amount, { balance: state.balance })),
    undo: (args) => Effect.sync(() => void (state.balance -= (args as { amount: number }).amount))
  })
  return { state, toolkit: Either.getOrThrow(Toolkit.make(transfer)) }
}

/** A round that writes text for ever, one delta per chunk, counting what it wrote. */
const endless = (written: { n: number }): Round => () =>
  Stream.repeatEffect(Effect.sync((): StreamEvent.StreamEvent => (written.n++, text("x".repeat(1_000)))))

const sessionOver = (rounds: ReadonlyArray<Round>, toolkit: Toolkit.Toolkit<never>, options: { readonly turnDeadlineMillis?: number; readonly maxEventsPerRound?: number }) =>
  AgentSession.make({
    provider: make(rounds),
    toolkit,
    mode: "local",
    ...(options.turnDeadlineMillis === undefined ? {} : { limits: { turnDeadlineMillis: options.turnDeadlineMillis } }),
    ...(options.maxEventsPerRound === undefined ? {} : { maxEventsPerRound: options.maxEventsPerRound })
  }).pipe(Effect.provide(ArgumentValidator.layer))

describe("AgentSession.stream (hostile)", () => {
  it.live("a reader that stops reading holds the turn at a bounded distance; the turn deadline still ends it, compensated", () =>
    Effect.gen(function*() {
      const b = bank()
      const written = { n: 0 }
      const s = yield* sessionOver([[call("t1", "transfer", { amount: 10 }), done], endless(written), answer("next")], b.toolkit, { turnDeadlineMillis: 300 })
      const first = yield* Deferred.make<void>()
      // reads the first event, then never again
      const reader = yield* Effect.fork(Stream.runForEach(s.stream("send 10"), () => Effect.zipRight(Deferred.succeed(first, undefined), Effect.never)))
      yield* Deferred.await(first)
      // the turn runs until the buffer is full, then waits for the reader
      while (written.n === 0) yield* Effect.sleep("5 millis")
      yield* Effect.sleep("50 millis")
      const held = written.n
      yield* Effect.sleep("50 millis")
      assert.strictEqual(written.n, held, "the turn went on writing while no one read")
      assert.isBelow(held, 200)
      // the deadline ends the turn: it is compensated and the session takes the next send
      const next = yield* s.send("again")
      assert.strictEqual(next.text, "next")
      assert.strictEqual(b.state.balance, 0)
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User", "User", "Assistant"])
      yield* Fiber.interrupt(reader)
    }))

  it.live("a provider that streams text without end is stopped by maxEventsPerRound, typed, its text taken back", () =>
    Effect.gen(function*() {
      const written = { n: 0 }
      const s = yield* sessionOver([endless(written)], bank().toolkit, { maxEventsPerRound: 2_000 })
      const tags: Array<string> = []
      const outcome = yield* Effect.either(Stream.runForEach(s.stream("go"), (e) => Effect.sync(() => tags.push(e._tag))))
      assert.isTrue(Either.isLeft(outcome))
      if (Either.isLeft(outcome)) assert.strictEqual(outcome.left._tag, "ProviderError")
      assert.isAtMost(written.n, 2_100)
      assert.isAbove(tags.filter((t) => t === "TextDelta").length, 0)
      assert.deepStrictEqual(tags.slice(-2), ["RoundDiscarded", "TurnRolledBack"])
    }))
})

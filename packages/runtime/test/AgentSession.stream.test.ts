import { assert, describe, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Exit, Fiber, Option, Queue, Stream } from "effect"
import type * as AgentSession from "../src/AgentSession.js"
import type * as SessionEvent from "../src/SessionEvent.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, session, text } from "./support/scriptedProvider.js"

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

const tags = (events: ReadonlyArray<AgentSession.TurnEvent>) => events.map((e) => e._tag)

/** The streamed text that is the answer: every TextDelta of the rounds no RoundDiscarded took back. */
const answerOf = (events: ReadonlyArray<AgentSession.TurnEvent>): string => {
  const discarded = new Set(events.flatMap((e) => e._tag === "RoundDiscarded" ? [`${e.turn}:${e.round}`] : []))
  return events.flatMap((e) => e._tag === "TextDelta" && !discarded.has(`${e.turn}:${e.round}`) ? [e.text] : []).join("")
}

describe("AgentSession.stream", () => {
  it.effect("text reaches the reader while the provider is still writing", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const provider = make([() =>
        Stream.concat(
          Stream.make(text("a")),
          Stream.fromEffect(Deferred.await(gate)).pipe(Stream.flatMap(() => Stream.fromIterable<StreamEvent.StreamEvent>([text("b"), done])))
        )
      ])
      const s = yield* session(provider, bank().toolkit)
      const pull = yield* Stream.toPull(s.stream("hi"))
      const seen: Array<AgentSession.TurnEvent> = []
      // read until the first TextDelta: the gate is still closed, so "b" cannot have been written yet
      while (!seen.some((e) => e._tag === "TextDelta")) seen.push(...Chunk.toReadonlyArray(yield* pull))
      assert.deepStrictEqual(seen.filter((e) => e._tag === "TextDelta").map((e) => (e as SessionEvent.TextDelta).text), ["a"])
      assert.isFalse(yield* Deferred.isDone(gate))
      yield* Deferred.succeed(gate, undefined)
      while (seen.at(-1)?._tag !== "TurnFinished") seen.push(...Chunk.toReadonlyArray(yield* pull))
      assert.deepStrictEqual(tags(seen), ["TurnStarted", "RoundStarted", "TextDelta", "TextDelta", "TurnCommitted", "TurnFinished"])
      assert.strictEqual((seen.at(-1) as AgentSession.TurnFinished).turn.text, "ab")
      assert.strictEqual(answerOf(seen), "ab")
    }).pipe(Effect.scoped))

  it.effect("a turn with a call: the calling round's text is taken back, the answer's stays, and TurnFinished holds send's turn", () =>
    Effect.gen(function*() {
      const script = () => make([[text("Let me "), text("check."), call("t1", "transfer", { amount: 10 }), done], answer("Sent 10.")])
      const streamed = yield* session(script(), bank().toolkit)
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(streamed.stream("send 10")))
      assert.deepStrictEqual(tags(events), [
        "TurnStarted",
        "RoundStarted",
        "TextDelta",
        "RoundDiscarded",
        "ToolCalled",
        "ToolAnswered",
        "RoundStarted",
        "TextDelta",
        "TurnCommitted",
        "TurnFinished"
      ])
      assert.strictEqual(answerOf(events), "Sent 10.")
      const sent = yield* session(script(), bank().toolkit)
      const turn = yield* sent.send("send 10")
      const finished = events.at(-1) as AgentSession.TurnFinished
      assert.deepStrictEqual({ ...finished.turn, usage: undefined }, { ...turn, usage: undefined })
      assert.deepStrictEqual(yield* streamed.history, yield* sent.history)
    }))

  it.effect("a failed turn fails the stream with its typed error after its compensation events", () =>
    Effect.gen(function*() {
      const b = bank()
      const provider = make([[call("t1", "transfer", { amount: 10 }), done], [text("half")]])
      const s = yield* session(provider, b.toolkit)
      const seen: Array<AgentSession.TurnEvent> = []
      const exit = yield* Effect.exit(Stream.runForEach(s.stream("send 10"), (e) => Effect.sync(() => seen.push(e))))
      assert.isTrue(Exit.isFailure(exit))
      const error = Option.getOrThrow(Exit.isFailure(exit) ? Option.fromNullable(exit.cause._tag === "Fail" ? exit.cause.error : undefined) : Option.none())
      assert.strictEqual(error._tag, "ProviderEventContractViolation")
      assert.deepStrictEqual(compensationOf(error)?.compensated, ["t1"])
      assert.deepStrictEqual(tags(seen).slice(-4), ["TextDelta", "RoundDiscarded", "TurnCompensated", "TurnRolledBack"])
      assert.strictEqual(b.state.balance, 0)
    }))

  it.effect("a provider that answers rounds whole gives one TextDelta per round", () =>
    Effect.gen(function*() {
      const provider = make([[text("x"), text("y"), call("t1", "transfer", { amount: 1 }), done], [text("o"), text("k"), done]], {}, undefined, true)
      const s = yield* session(provider, bank().toolkit)
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(s.stream("go")))
      const deltas = events.filter((e): e is SessionEvent.TextDelta => e._tag === "TextDelta")
      assert.deepStrictEqual(deltas.map((d) => [d.round, d.text]), [[1, "xy"], [2, "ok"]])
      assert.strictEqual(answerOf(events), "ok")
    }))

  it.effect("options that throw fail the stream with InvalidOptions, and nothing starts", () =>
    Effect.gen(function*() {
      const provider = make([answer("never")])
      const s = yield* session(provider, bank().toolkit)
      const hostile = { get sampling(): never { throw new Error("getter") } } as unknown as AgentSession.SendOptions
      const error = yield* Effect.flip(Stream.runCollect(s.stream("hi", hostile)))
      assert.strictEqual(error._tag, "InvalidOptions")
      assert.deepStrictEqual(yield* s.history, [])
      assert.strictEqual(provider.requests.length, 0)
    }))

  it.effect("subscribers get the new events too", () =>
    Effect.gen(function*() {
      const s = yield* session(make([[text("hel"), text("lo"), done]]), bank().toolkit)
      const sub = yield* s.subscribe
      yield* s.send("hi")
      const published = Chunk.toReadonlyArray(yield* Queue.takeAll(sub))
      assert.deepStrictEqual(published.filter((e) => e._tag === "TextDelta").map((e) => (e as SessionEvent.TextDelta).text), ["hello"])
    }).pipe(Effect.scoped))

  it.effect("a reader that stops after the first delta interrupts the turn, which is compensated", () =>
    Effect.gen(function*() {
      const b = bank()
      const provider = make([[call("t1", "transfer", { amount: 10 }), done], () =>
        Stream.concat(Stream.make(text("first")), Stream.never)])
      const s = yield* session(provider, b.toolkit)
      const read = yield* Stream.runCollect(Stream.takeUntil(s.stream("send 10"), (e) => e._tag === "TextDelta"))
      assert.strictEqual(Chunk.last(read).pipe(Option.getOrThrow)._tag, "TextDelta")
      assert.strictEqual(b.state.balance, 0)
      const history = yield* s.history
      assert.deepStrictEqual(history.map((m) => m._tag), ["User"])
      // the session is free for the next turn
      const fiber = yield* Effect.fork(s.send("again"))
      assert.strictEqual((yield* Effect.flip(Fiber.join(fiber)))._tag, "ProviderError")
    }))

  it.effect("a provider-driven round: ToolCallStarted as each call starts, between the text around it", () =>
    Effect.gen(function*() {
      const provider = make([[
        text("looking"),
        { _tag: "ToolCallStarted", id: "p1", name: "transfer", arguments: { amount: 1 } },
        { _tag: "ToolCallCompleted", id: "p1", result: { balance: 1 } },
        text(" done"),
        done
      ]], { executionModel: "providerDriven" })
      const s = yield* session(provider, bank().toolkit)
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(s.stream("go")))
      assert.deepStrictEqual(tags(events), [
        "TurnStarted",
        "RoundStarted",
        "TextDelta",
        "ToolCallStarted",
        "TextDelta",
        "ToolCalled",
        "ToolAnswered",
        "TurnCommitted",
        "TurnFinished"
      ])
      assert.deepStrictEqual(events[3], { _tag: "ToolCallStarted", turn: 1, round: 1, callId: "p1", tool: "transfer" })
      assert.strictEqual(answerOf(events), "looking done")
      assert.strictEqual((events.at(-1) as AgentSession.TurnFinished).turn.text, "looking done")
    }))
})

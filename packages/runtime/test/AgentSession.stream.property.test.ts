/**
 * `stream` is `send` with its events handed over as they happen: over random scripts (text in several
 * deltas, valid and invalid calls, tools with and without undo, turns that commit, fail on a provider error,
 * break the event contract or exhaust their repairs), a session driven by `stream` and one driven by `send`
 * end with the same history, turns, requests and outstanding effects, and the streamed text minus the rounds
 * taken back is the turn's text. A reader that stops at a random event interrupts the turn, which leaves
 * every effect it ran committed, compensated or outstanding.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck as fc, Queue, Stream } from "effect"
import type * as AgentSession from "../src/AgentSession.js"
import { ProviderError } from "../src/Errors.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { call, compensationOf, done, keyShape, make, type Round, session, text } from "./support/scriptedProvider.js"

type Kind = "add" | "note" | "stuck" | "refuse" | "slow" | "invalid"
type Ending = "answer" | "providerError" | "missingDone"

interface TurnSpec {
  readonly rounds: ReadonlyArray<{ readonly text: ReadonlyArray<string>; readonly calls: ReadonlyArray<Kind> }>
  readonly answer: ReadonlyArray<string>
  readonly ending: Ending
}

const words = fc.array(fc.constantFrom("", "a", "b c", "é", "🙂", " "), { maxLength: 3 })
const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  rounds: fc.array(
    fc.record({ text: words, calls: fc.array(fc.constantFrom<Kind>("add", "add", "note", "stuck", "refuse", "slow", "invalid"), { minLength: 1, maxLength: 3 }) }),
    { maxLength: 3 }
  ),
  answer: words,
  ending: fc.constantFrom<Ending>("answer", "answer", "providerError", "missingDone")
})

/** The world the tools act on: the idempotency keys whose effects are in place. */
const world = () => {
  const live = new Set<string>()
  const apply = (key: string) => Effect.sync(() => void live.add(key))
  const param = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const
  const tools = [
    Tool.make("add", {
      description: "An effect its undo takes back.",
      parameters: param,
      execute: (_, ctx) => apply(ctx.idempotencyKey),
      undo: (_, ctx) => Effect.sync(() => void live.delete(ctx.idempotencyKey))
    }),
    Tool.make("note", { description: "An effect with no undo.", parameters: param, execute: (_, ctx) => apply(ctx.idempotencyKey) }),
    Tool.make("stuck", {
      description: "An effect whose undo always fails.",
      parameters: param,
      execute: (_, ctx) => apply(ctx.idempotencyKey),
      undo: () => Tool.fail("unavailable", "the ledger is closed")
    }),
    Tool.make("refuse", { description: "Answers a failure, no effect.", parameters: param, execute: () => Tool.fail("execution_error", "no") }),
    Tool.make("slow", {
      description: "An effect in place, then a pause before it answers (a reader may stop meanwhile).",
      parameters: param,
      execute: (_, ctx) => Effect.zipRight(apply(ctx.idempotencyKey), Effect.sleep("1 millis")),
      undo: (_, ctx) => Effect.sync(() => void live.delete(ctx.idempotencyKey))
    })
  ]
  return { live, toolkit: Either.getOrThrow(Toolkit.make(...tools)) }
}

/** The rounds a turn plays. */
const roundsOf = (t: TurnSpec): Array<Round> => [
  ...t.rounds.map((r, i): Round => [
    ...r.text.map(text),
    ...r.calls.map((k, j) => k === "invalid" ? call(`c${i}_${j}`, "add", { n: "many" }) : call(`c${i}_${j}`, k, { n: j })),
    done
  ]),
  t.ending === "answer" ? [...t.answer.map(text), done] :
  t.ending === "providerError" ? { fail: { reason: "503", retryable: true } } :
  [...t.answer.map(text)]
]

/** A provider playing `turns` one after another, each turn's rounds in order (a turn that ends early leaves the rest unplayed). */
const playing = (turns: ReadonlyArray<TurnSpec>) => {
  const script = turns.map(roundsOf)
  const state = { turn: 0, left: [] as Array<Round> }
  const next: Round = (request) => {
    const round = state.left.shift()
    if (round === undefined) return Stream.fail(new ProviderError({ provider: "scripted", reason: "no round left", retryable: false }))
    if (typeof round === "function") return round(request)
    // one event per chunk: text is handed over delta by delta
    return "fail" in round ? Stream.fail(new ProviderError({ provider: "scripted", ...round.fail })) : Stream.rechunk(Stream.fromIterable(round as ReadonlyArray<StreamEvent.StreamEvent>), 1)
  }
  const provider = make(Array.from({ length: 1_000 }, () => next))
  return { provider, start: (i: number) => void (state.left = [...script[i]!]) }
}

/** The streamed text that is the answer: the deltas of the rounds no RoundDiscarded took back. */
const answerOf = (events: ReadonlyArray<AgentSession.TurnEvent>): string => {
  const discarded = new Set(events.flatMap((e) => e._tag === "RoundDiscarded" ? [e.round] : []))
  return events.flatMap((e) => e._tag === "TextDelta" && !discarded.has(e.round) ? [e.text] : []).join("")
}

/** A send's outcome in a form two sessions can be compared by (keys without their random part). */
const outcomeOf = (outcome: Either.Either<AgentSession.Turn, AgentSession.SendError>) =>
  Either.isRight(outcome)
    ? { turn: outcome.right }
    : { error: outcome.left._tag, executed: compensationOf(outcome.left)?.executed.map((e) => keyShape(e.idempotencyKey)) }

const limits = { maxToolArgumentRepairs: 1, maxProviderRoundTrips: 4 }

describe("AgentSession.stream (property)", () => {
  it.live.prop(
    "a streamed session and a sent one end alike; the streamed text minus discarded rounds is the turn's text",
    [fc.array(turnSpec, { minLength: 1, maxLength: 3 })],
    ([turns]) =>
      Effect.gen(function*() {
        const sent = playing(turns)
        const streamed = playing(turns)
        const a = yield* session(sent.provider, world().toolkit, { limits, id: "s" })
        const b = yield* session(streamed.provider, world().toolkit, { limits, id: "s" })
        for (const [i] of turns.entries()) {
          sent.start(i)
          streamed.start(i)
          const bySend = yield* Effect.either(a.send(`turn ${i}`))
          const events: Array<AgentSession.TurnEvent> = []
          const byStream = yield* Effect.either(Stream.runForEach(b.stream(`turn ${i}`), (e) => Effect.sync(() => events.push(e))))
          const last = events.at(-1)
          const streamOutcome = Either.isRight(byStream)
            ? Either.right((last as AgentSession.TurnFinished).turn)
            : Either.left(byStream.left)
          assert.deepStrictEqual(outcomeOf(streamOutcome), outcomeOf(bySend))
          if (Either.isRight(streamOutcome)) {
            assert.strictEqual(last?._tag, "TurnFinished")
            assert.strictEqual(answerOf(events), streamOutcome.right.text)
          } else {
            // a failed turn takes back every round whose text it showed
            assert.strictEqual(answerOf(events), "")
            assert.strictEqual(events.at(-1)?._tag, "TurnRolledBack")
          }
        }
        assert.deepStrictEqual(yield* b.history, yield* a.history)
        assert.deepStrictEqual(streamed.provider.requests, sent.provider.requests)
        const shapes = (o: ReadonlyArray<{ readonly idempotencyKey: string }>) => o.map((x) => ({ ...x, idempotencyKey: keyShape(x.idempotencyKey) }))
        assert.deepStrictEqual(shapes(yield* b.outstanding), shapes(yield* a.outstanding))
      }),
    { fastCheck: { numRuns: 40 }, timeout: 120_000 }
  )

  it.live.prop(
    "a reader that stops at any event leaves every effect committed, compensated or outstanding",
    [fc.array(fc.tuple(turnSpec, fc.nat(40)), { minLength: 1, maxLength: 3 })],
    ([turns]) =>
      Effect.gen(function*() {
        const w = world()
        const p = playing(turns.map(([t]) => t))
        const s = yield* session(p.provider, w.toolkit, { limits })
        const published = yield* s.subscribe
        const committed = new Set<number>()
        for (const [i, [, stopAt]] of turns.entries()) {
          p.start(i)
          yield* Effect.either(Stream.runDrain(Stream.take(s.stream(`turn ${i}`), stopAt)))
          for (const e of Chunk.toReadonlyArray(yield* Queue.takeAll(published))) if (e._tag === "TurnCommitted") committed.add(e.turn)
          const outstanding = new Set((yield* s.outstanding).map((o) => o.idempotencyKey))
          for (const key of w.live) {
            const turn = Number(key.split(":").at(-2)!.split("-")[0])
            assert.isTrue(committed.has(turn) || outstanding.has(key), `effect ${key} is unaccounted for`)
          }
        }
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: 40 }, timeout: 120_000 }
  )
})

/**
 * The turn as a transaction, over random scripts: tools with an undo, with none, with an undo that fails, that
 * answer a failure, that run past their time budget, invalid calls; turns that commit, fail (a provider error,
 * a broken event contract, repairs exhausted) or are interrupted (waiting for the model, or while a tool runs);
 * `undoLastTurn` and `reconcile` between them.
 * After every step, each effect still in the world belongs to a committed turn or is an outstanding effect of
 * the session: nothing is left behind that the session cannot account for, and no undo runs twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, FastCheck as fc, Fiber, Option, Schema, Stream } from "effect"
import * as Compensation from "../src/Compensation.js"
import { ProviderError } from "../src/Errors.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, compensationOf, done, make, type Round, session, text } from "./support/scriptedProvider.js"

type Kind = "add" | "note" | "stuck" | "refuse" | "late" | "invalid" | "block"
type Ending = "answer" | "providerError" | "missingDone" | "interrupt"
type After = "none" | "undo" | "reconcile"

interface TurnSpec {
  readonly rounds: ReadonlyArray<ReadonlyArray<Kind>>
  readonly ending: Ending
  readonly after: After
}

const kinds: ReadonlyArray<Kind> = ["add", "add", "note", "stuck", "refuse", "late", "invalid"]
// a turn that is interrupted may be so while a tool runs (`block` never answers): only such a turn has one
const turnSpec: fc.Arbitrary<TurnSpec> = fc.constantFrom<Ending>("answer", "answer", "providerError", "missingDone", "interrupt")
  .chain((ending) =>
    fc.record({
      rounds: fc.array(fc.array(fc.constantFrom(...kinds, ...(ending === "interrupt" ? ["block" as const] : [])), { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
      ending: fc.constant(ending),
      after: fc.constantFrom<After>("none", "none", "undo", "reconcile")
    })
  )

/**
 * The world the tools act on: the idempotency keys whose effects are in place, and every key ever run.
 * `blocked` is called by a `block` call once its effect is in place (it then never answers).
 */
const world = (blocked: () => Effect.Effect<void>) => {
  const live = new Set<string>()
  const ran = new Set<string>()
  const doubleRuns: Array<string> = []
  const undoOfNothing: Array<string> = []
  const apply = (key: string) =>
    Effect.sync(() => {
      if (ran.has(key)) doubleRuns.push(key)
      ran.add(key)
      live.add(key)
    })
  const param = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const
  const tools = [
    Tool.make("add", {
      description: "An effect its undo takes back.",
      parameters: param,
      execute: (_, ctx) => apply(ctx.idempotencyKey),
      undo: (_, ctx) => Effect.sync(() => void (live.delete(ctx.idempotencyKey) || undoOfNothing.push(ctx.idempotencyKey)))
    }),
    Tool.make("note", { description: "An effect with no undo.", parameters: param, execute: (_, ctx) => apply(ctx.idempotencyKey) }),
    Tool.make("stuck", {
      description: "An effect whose undo always fails.",
      parameters: param,
      execute: (_, ctx) => apply(ctx.idempotencyKey),
      undo: () => Tool.fail("unavailable", "the ledger is closed")
    }),
    Tool.make("refuse", { description: "Answers a failure, no effect.", parameters: param, execute: () => Tool.fail("execution_error", "no") }),
    Tool.make("late", {
      description: "Starts an effect, then outlives its time budget.",
      parameters: param,
      timeout: "5 millis",
      execute: (_, ctx) => Effect.zipRight(apply(ctx.idempotencyKey), Effect.never),
      undo: () => Effect.die("a call that never answered has nothing to undo")
    }),
    Tool.make("block", {
      description: "Starts an effect, then waits until the turn is interrupted.",
      parameters: param,
      timeout: "none",
      execute: (_, ctx) => Effect.zipRight(apply(ctx.idempotencyKey), Effect.zipRight(blocked(), Effect.never)),
      undo: () => Effect.die("a call that never answered has nothing to undo")
    })
  ]
  return { live, ran, doubleRuns, undoOfNothing, toolkit: Either.getOrThrow(Toolkit.make(...tools)) }
}

const isTurnError = Schema.is(Compensation.TurnError)

/** The turn number an idempotency key (`<session>:<turn>-<random>:<call>`) belongs to. */
const turnOf = (key: string): number => Number(key.split(":").at(-2)!.split("-")[0])

describe("AgentSession: the turn as a transaction (property)", () => {
  it.live.prop(
    "every effect in place belongs to a committed turn or is outstanding; no undo runs twice or on nothing",
    [fc.array(turnSpec, { minLength: 1, maxLength: 4 }), fc.boolean()],
    ([turns, parallel]) =>
      Effect.gen(function*() {
        const asked = yield* Effect.forEach(turns, () => Deferred.make<void>())
        let current = 0
        const w = world(() => Deferred.succeed(asked[current]!, undefined))
        // each turn plays its own rounds: a turn that ends early (repairs exhausted) leaves the rest unplayed
        const script = turns.map((t, i): Array<Round> => {
          const rounds: Array<Round> = []
          t.rounds.forEach((kinds, r) =>
            rounds.push([
              text("t"),
              ...kinds.map((k, j) => k === "invalid" ? call(`c${r}_${j}`, "add", { n: "many" }) : call(`c${r}_${j}`, k, { n: j })),
              done
            ]))
          const hangs = () => Stream.concat(Stream.drain(Stream.fromEffect(Deferred.succeed(asked[i]!, undefined))), Stream.never)
          rounds.push(
            t.ending === "answer" ? answer("ok") :
            t.ending === "providerError" ? { fail: { reason: "503", retryable: true } } :
            t.ending === "missingDone" ? [text("half")] :
            hangs
          )
          return rounds
        })
        let playing: Array<Round> = []
        const nextRound: Round = (request) => {
          const round = playing.shift()
          if (round === undefined) return Stream.fail(new ProviderError({ provider: "scripted", reason: "no round left", retryable: false }))
          if (typeof round === "function") return round(request)
          return "fail" in round ? Stream.fail(new ProviderError({ provider: "scripted", ...round.fail })) : Stream.fromIterable(round)
        }
        const provider = make(Array.from({ length: 1_000 }, () => nextRound), { supportsParallelToolCalls: parallel })
        const s = yield* session(provider, w.toolkit)
        const committed = new Set<number>()
        for (const [i, t] of turns.entries()) {
          playing = script[i]!
          current = i
          if (t.ending === "interrupt") {
            const fiber = yield* Effect.fork(s.send(`turn ${i}`))
            yield* Effect.raceFirst(Deferred.await(asked[i]!), Fiber.await(fiber))
            yield* Fiber.interrupt(fiber)
          } else {
            const before = new Set(w.ran)
            const outcome = yield* Effect.either(s.send(`turn ${i}`))
            if (Either.isRight(outcome)) committed.add(outcome.right.turn)
            else {
              // the error is the turn's own, never a wrapper; what ran is on it as its compensation
              assert.isTrue(isTurnError(outcome.left), outcome.left._tag)
              const ranNow = [...w.ran].filter((key) => !before.has(key))
              const report = compensationOf(outcome.left)
              assert.strictEqual(report !== undefined || ranNow.length === 0, true, `${outcome.left._tag} after ${ranNow.length} run(s) carries no compensation`)
              const executed = new Set(report?.executed.map((e) => e.idempotencyKey))
              for (const key of ranNow) assert.isTrue(executed.has(key) && turnOf(key) === report?.turn, key)
              for (const left of report?.notCompensated ?? []) {
                const expected = left.tool === "note" ? "no_undo" : left.tool === "stuck" ? "undo_failed" : "interrupted"
                assert.strictEqual(left.reason, expected, JSON.stringify(left))
              }
              assert.notInclude(report?.notCompensated.map((l) => l.tool) ?? [], "refuse")
            }
          }
          if (t.after === "undo") {
            const undone = yield* Effect.either(s.undoLastTurn)
            if (Either.isRight(undone) && Option.isSome(undone.right)) committed.delete(undone.right.value.turn)
          } else if (t.after === "reconcile") {
            const handled = yield* s.reconcile((yield* s.outstanding).map((o) => o.idempotencyKey))
            for (const o of handled) w.live.delete(o.idempotencyKey) // the app set these right itself
          }
          const outstanding = new Set((yield* s.outstanding).map((o) => o.idempotencyKey))
          for (const key of w.live) {
            assert.isTrue(committed.has(turnOf(key)) || outstanding.has(key), `effect ${key} is unaccounted for (committed turns ${[...committed]})`)
          }
        }
        assert.deepStrictEqual(w.doubleRuns, [])
        assert.deepStrictEqual(w.undoOfNothing, [])
      }),
    { fastCheck: { numRuns: 60 }, timeout: 120_000 }
  )
})

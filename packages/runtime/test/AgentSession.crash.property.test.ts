/**
 * Crashes between journal writes, over random scripts: the store stops taking writes at a random one (and the
 * process that made them is taken to have died there: from then on its tools change nothing), then a new
 * session resumes from the store. Every effect in place belongs to a committed turn or is outstanding, no
 * executor runs twice, no undo runs on nothing, every tool call in history is answered, and once every turn is
 * undone, every effect still in place is outstanding.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Logger, LogLevel, Option } from "effect"
import * as SessionStore from "../src/SessionStore.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, type Round } from "./support/scriptedProvider.js"
import { dying, onStore, unanswered } from "./support/storeSessions.js"

type Kind = "charge" | "book"

/** The world the tools change: effects in place by idempotency key; nothing changes once the process is dead. */
const world = () => {
  const state = { dead: false }
  const live = new Set<string>()
  const runs = new Map<string, number>()
  const undoOfNothing: Array<string> = []
  const params = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const
  const apply = (key: string) =>
    Effect.sync(() => {
      if (state.dead) return
      runs.set(key, (runs.get(key) ?? 0) + 1)
      live.add(key)
    })
  const charge = Tool.make("charge", { description: "c", parameters: params, execute: (_, ctx) => apply(ctx.idempotencyKey) })
  const book = Tool.make("book", {
    description: "b",
    parameters: params,
    execute: (_, ctx) => apply(ctx.idempotencyKey),
    undo: (_, ctx) => Effect.sync(() => void (state.dead || live.delete(ctx.idempotencyKey) || undoOfNothing.push(ctx.idempotencyKey)))
  })
  return { state, live, runs, undoOfNothing, toolkit: Either.getOrThrow(Toolkit.make(charge, book)) }
}

const script = fc.array(fc.array(fc.array(fc.constantFrom<Kind>("charge", "book"), { minLength: 1, maxLength: 2 }), { maxLength: 2 }), { minLength: 1, maxLength: 3 })

/** The provider's rounds for `turns`: each turn's call rounds, then its answer. */
const roundsOf = (turns: ReadonlyArray<ReadonlyArray<ReadonlyArray<Kind>>>): Array<Round> =>
  turns.flatMap((rounds, t) => [...rounds.map((calls) => [...calls.map((k, i) => call(`c${i}`, k, { n: t })), done]), answer(`turn ${t}`)])

describe("AgentSession on a store that dies between journal writes (property)", () => {
  it.effect("after resume every effect in place is committed or outstanding, nothing runs twice, history is answered", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(script, fc.nat({ max: 24 }), fc.boolean(), (turns, crashAt, parallel) =>
          Effect.runPromise(Effect.gen(function*() {
            const w = world()
            const memory = yield* SessionStore.makeMemory()
            const { store } = dying(memory, crashAt, () => void (w.state.dead = true))
            const provider = make(roundsOf(turns), { supportsParallelToolCalls: parallel })
            yield* Effect.scoped(Effect.gen(function*() {
              const s = yield* onStore(store, provider, w.toolkit)
              for (const _ of turns) if (Either.isLeft(yield* Effect.either(s.send("go")))) break
            }))
            w.state.dead = false
            yield* Effect.scoped(Effect.gen(function*() {
              const s = yield* onStore(memory, make([]), w.toolkit)
              const snapshot = yield* s.export
              const accounted = new Set([
                ...snapshot.undoLog.flatMap((e) => [...e.steps.map((st) => st.idempotencyKey), ...e.kept.map((k) => k.idempotencyKey)]),
                ...snapshot.outstanding.map((o) => o.idempotencyKey)
              ])
              for (const key of w.live) assert.isTrue(accounted.has(key), `effect ${key} is neither committed nor outstanding`)
              assert.deepStrictEqual(unanswered(snapshot.history), [])
              while (Option.isSome(yield* s.undoLastTurn)) { /* every committed turn */ }
              const outstanding = new Set((yield* s.outstanding).map((o) => o.idempotencyKey))
              for (const key of w.live) assert.isTrue(outstanding.has(key), `effect ${key} is in place after every turn was undone, yet not outstanding`)
            }))
            assert.deepStrictEqual([...w.runs.values()].filter((n) => n > 1), [])
            assert.deepStrictEqual(w.undoOfNothing, [])
            assert.deepStrictEqual(Option.match(yield* memory.load("s1"), { onNone: () => [], onSome: (stored) => stored.pending }), [])
            // the dead process logs the turn it could not close; that is expected here
          }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))
        ),
        { numRuns: 150 }
      )
    ), 120_000)
})

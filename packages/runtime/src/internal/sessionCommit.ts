/**
 * The commit of a turn: its messages, undo entry and results appended (journaled first when the session has
 * a store) in one step no interruption can split.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { outstandingOf, stays } from "./sessionCompensate.js"
import { artifactsOf, type Current, usageOf } from "./sessionCurrent.js"
import * as SessionJournal from "./sessionJournal.js"
import { type Env, publish, type UndoEntry } from "./sessionState.js"

/** Appends the turn's messages, its undo entry and its results (journaled first when the session has a store); one step no interruption can split. */
export const commit = (env: Env, current: Current) =>
  Effect.uninterruptible(Effect.gen(function*() {
    const { answered, messages, results } = current.progress
    const entry: UndoEntry = {
      turn: current.number,
      start: current.start,
      count: messages.length + 1,
      calls: [...results.keys()],
      steps: current.executions.flatMap((e) => e.undo === undefined ? [] : [e.undo]),
      kept: current.executions.flatMap((e) => {
        const left = stays(e)
        return left === undefined ? [] : [outstandingOf(current.number, e, left)]
      })
    }
    const keepsResults = env.chainScope === "session" && results.size > 0
    if (env.durable !== undefined) {
      const user = (yield* Ref.get(env.history))[current.start]!
      yield* SessionJournal.commit(env.durable, {
        ...entry,
        messages: [user, ...messages],
        results: keepsResults ? SessionJournal.sessionResults(current.number, results, artifactsOf(current)) : [],
        usage: yield* usageOf(current)
      })
    }
    yield* Ref.update(env.history, (h) => [...h, ...messages])
    yield* Ref.update(env.undoLog, (log) => [...log, entry])
    if (keepsResults) {
      yield* Ref.update(env.results, (r) => new Map([...r, ...results]))
      yield* Ref.update(env.artifacts, (a) => new Map([...a, ...artifactsOf(current)]))
    }
    current.committed = true
    yield* publish(env, { _tag: "TurnCommitted", turn: current.number, rounds: current.rounds, toolCalls: answered.length })
  }))

/**
 * Undoing the last committed turn: its undo steps still to run go newest first (each one's failure is
 * recorded, the others still run; each one that succeeds is marked at once, so a retry never runs it
 * again). Only when no step is left does the turn leave history, and its calls no undo can take back (no
 * undo, or timed out) become outstanding effects; otherwise the undo fails with `UndoIncomplete` and the
 * turn stays, ready to be undone again.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as AgentSession from "../AgentSession.js"
import { type UndoFailure, UndoIncomplete } from "../Compensation.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import { type Env, type UndoEntry, type UndoStep } from "./sessionState.js"

/** One step's outcome: `undefined` when it undid, else the failure envelope (interruption passes on). */
export const attempt = (step: UndoStep): Effect.Effect<ToolEnvelope.Failure | undefined> =>
  step.run.pipe(
    Effect.as(undefined),
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) return Effect.succeed(ToolEnvelope.fromError(failure.value, step.tool))
      const defect = Cause.dieOption(cause)
      if (Option.isNone(defect)) return Effect.failCause(cause as Cause.Cause<never>)
      return Effect.logError(`Undo of tool \`${step.tool}\` died`, cause).pipe(
        Effect.as(ToolEnvelope.failure("execution_error", `The undo failed unexpectedly: ${ToolEnvelope.fromError(defect.value).message}`, { tool: step.tool }))
      )
    })
  )

/** Runs one step; a step that succeeded leaves the entry's steps in the same uninterruptible step. */
const runStep = (env: Env, entry: UndoEntry, step: UndoStep) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.tap(restore(attempt(step)), (failure) =>
      failure === undefined
        ? Ref.update(env.undoLog, (log) => log.map((e) => e.turn === entry.turn ? { ...e, steps: e.steps.filter((s) => s !== step) } : e))
        : Effect.void
    )
  )

/**
 * Takes the turn of `entry` out of the log, history and the session's results, and makes the effects no undo
 * could take back outstanding: one step no interruption can split.
 */
const remove = (env: Env, entry: UndoEntry) =>
  Effect.uninterruptible(Effect.gen(function*() {
    yield* Ref.update(env.undoLog, (log) => log.filter((e) => e.turn !== entry.turn))
    if (entry.kept.length > 0) yield* Ref.update(env.outstanding, (o) => [...o, ...entry.kept])
    yield* Ref.update(env.history, (h) => [...h.slice(0, entry.start), ...h.slice(entry.start + entry.count)])
    const without = <V>(byCall: ReadonlyMap<string, V>) => {
      const kept = new Map(byCall)
      for (const id of entry.calls) kept.delete(id)
      return kept
    }
    yield* Ref.update(env.results, without)
    yield* Ref.update(env.artifacts, without)
    const length = (yield* Ref.get(env.history)).length
    yield* Ref.update(env.seen, (s) => Math.min(s, length))
  }))

/** Undoes the last committed turn, or `None` when no committed turn is left; `UndoIncomplete` when a step failed. */
export const undoLast = (env: Env): Effect.Effect<Option.Option<AgentSession.UndoReport>, UndoIncomplete> =>
  Effect.gen(function*() {
    const entry = (yield* Ref.get(env.undoLog)).at(-1)
    if (entry === undefined) return Option.none()
    const undone: Array<string> = []
    const failed: Array<UndoFailure> = []
    for (const step of [...entry.steps].reverse()) {
      const envelope = yield* runStep(env, entry, step)
      if (envelope === undefined) undone.push(step.callId)
      else failed.push({ callId: step.callId, tool: step.tool, envelope })
    }
    if (failed.length > 0) {
      const left = (yield* Ref.get(env.undoLog)).find((e) => e.turn === entry.turn)?.steps ?? []
      return yield* new UndoIncomplete({ turn: entry.turn, undone, failed, left: [...left].reverse().map((s) => s.callId) })
    }
    yield* remove(env, entry)
    return Option.some({ turn: entry.turn, undone, notUndone: entry.kept.map((k) => k.callId).reverse() })
  })

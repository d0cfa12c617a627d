/**
 * Undoing the last committed turn: its undo steps run newest first (each one's failure is reported, not
 * fatal: the others still run), then the turn's messages leave history.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as AgentSession from "../AgentSession.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import { type Env, type UndoStep } from "./sessionState.js"

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

/** Undoes the last committed turn, or `None` when no committed turn is left. */
export const undoLast = (env: Env): Effect.Effect<Option.Option<AgentSession.UndoReport>> =>
  Effect.gen(function*() {
    const log = yield* Ref.get(env.undoLog)
    const entry = log.at(-1)
    if (entry === undefined) return Option.none()
    const undone: Array<string> = []
    const failed: Array<{ readonly callId: string; readonly envelope: ToolEnvelope.Failure }> = []
    for (const step of [...entry.steps].reverse()) {
      const envelope = yield* attempt(step)
      if (envelope === undefined) undone.push(step.callId)
      else failed.push({ callId: step.callId, envelope })
    }
    yield* Effect.uninterruptible(Effect.zipRight(
      Ref.set(env.undoLog, log.slice(0, -1)),
      Ref.update(env.history, (h) => [...h.slice(0, entry.start), ...h.slice(entry.start + entry.count)])
    ).pipe(Effect.zipRight(Ref.update(env.results, (r) => {
      const kept = new Map(r)
      for (const id of entry.calls) kept.delete(id)
      return kept
    }))))
    const length = (yield* Ref.get(env.history)).length
    yield* Ref.update(env.seen, (s) => Math.min(s, length))
    return Option.some({ turn: entry.turn, undone, failed })
  })

/**
 * Undoing the last committed turn: its undo steps still to run go newest first (each one's failure is
 * recorded, the others still run; each one that succeeds is marked done in the same step no interruption
 * can split, so a retry never runs it again). Undos and sends are serialized; an undo asked for while a send
 * was in flight that then committed a turn refuses (`UndoSuperseded`) rather than take back a turn the caller
 * had not seen. Only when no step is left does the turn leave history, and its calls no undo can take back (no
 * undo, or timed out) become outstanding effects; otherwise the undo fails with `UndoIncomplete` and the
 * turn stays, ready to be undone again.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as AgentSession from "../AgentSession.js"
import type { UndoFailure } from "../Compensation.js"
import { type SessionStoreError, UndoIncomplete, UndoSuperseded } from "../Errors.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as SessionJournal from "./sessionJournal.js"
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

/** Leaves `step` out of its entry's steps still to run. */
const markDone = (env: Env, entry: UndoEntry, step: UndoStep) =>
  Ref.update(env.undoLog, (log) => log.map((e) => e.turn === entry.turn ? { ...e, steps: e.steps.filter((s) => s !== step) } : e))

/**
 * Marks a step that undid as done, in the store first when the session has one: a store that cannot record
 * it makes the step a failure (left to run again, as its undo is keyed by the call's idempotency key).
 */
const recordDone = (env: Env, entry: UndoEntry, step: UndoStep): Effect.Effect<ToolEnvelope.Failure | undefined> =>
  env.durable === undefined
    ? Effect.as(markDone(env, entry, step), undefined)
    : SessionJournal.stepDone(env.durable, entry.turn, step.callId).pipe(
      Effect.zipRight(Effect.as(markDone(env, entry, step), undefined)),
      Effect.catchAll((e) => Effect.succeed(ToolEnvelope.failure("execution_error", `The undo ran, but the session store could not record it: ${e.message}`, { tool: step.tool })))
    )

/**
 * Marks a step started in the store before its undo runs, when the session has one: a process that stops
 * before the undo answers leaves the mark, and the session resumed from the store reports the step outstanding
 * (`interrupted`) instead of running it again. A store that cannot record the start makes the step a failure
 * that never ran (left to run again).
 */
const recordStart = (env: Env, entry: UndoEntry, step: UndoStep): Effect.Effect<ToolEnvelope.Failure | undefined> =>
  env.durable === undefined
    ? Effect.succeed(undefined)
    : SessionJournal.stepStarted(env.durable, entry.turn, step.callId, true).pipe(
      Effect.as(undefined),
      Effect.catchAll((e) => Effect.succeed(ToolEnvelope.failure("execution_error", `The undo did not run: the session store could not record its start: ${e.message}`, { tool: step.tool })))
    )

/**
 * A step whose undo failed stays to run again: its start mark is taken back in the store (a store that cannot
 * leaves it, and a resumed session reports the step outstanding rather than run it again).
 */
const recordFailed = (env: Env, entry: UndoEntry, step: UndoStep, failure: ToolEnvelope.Failure): Effect.Effect<ToolEnvelope.Failure> =>
  env.durable === undefined
    ? Effect.succeed(failure)
    : Effect.as(Effect.ignore(SessionJournal.stepStarted(env.durable, entry.turn, step.callId, false)), failure)

/** The outcome of each step whose run is under way, so that a retry waits for it instead of running it again. */
const underWay = new WeakMap<UndoStep, Deferred.Deferred<ToolEnvelope.Failure | undefined>>()

/**
 * Runs one step: the undo and, when it succeeded, its mark as done are one unit that no interruption splits.
 * The unit runs in a fiber of its own, stopped only by the step's time budget: a caller interrupted while it
 * runs stops waiting, the unit still finishes (and marks), and a retry meanwhile waits for that same run.
 */
const runStep = (env: Env, entry: UndoEntry, step: UndoStep): Effect.Effect<ToolEnvelope.Failure | undefined> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const running = underWay.get(step)
      if (running !== undefined) return restore(Deferred.await(running))
      const outcome = Deferred.unsafeMake<ToolEnvelope.Failure | undefined>(FiberId.none)
      underWay.set(step, outcome)
      const unit = recordStart(env, entry, step).pipe(
        Effect.flatMap((refused) => refused !== undefined ? Effect.succeed(refused) : attempt(step)),
        Effect.flatMap((failure) => failure === undefined ? recordDone(env, entry, step) : recordFailed(env, entry, step, failure)),
        // only the undo itself can interrupt this fiber: that is its failure
        Effect.catchAllCause(() => Effect.succeed(ToolEnvelope.failure("execution_error", "The undo was interrupted before it answered.", { tool: step.tool }))),
        Effect.tap((failure) => Effect.zipRight(Effect.sync(() => underWay.delete(step)), Deferred.succeed(outcome, failure)))
      )
      return Effect.zipRight(Effect.forkDaemon(Effect.uninterruptible(unit)), restore(Deferred.await(outcome)))
    })
  )

/**
 * Takes the turn of `entry` out of the log, history and the session's results, and makes the effects no undo
 * could take back outstanding: one step no interruption can split.
 */
const remove = (env: Env, entry: UndoEntry) =>
  Effect.uninterruptible(Effect.gen(function*() {
    if (env.durable !== undefined) yield* SessionJournal.turnUndone(env.durable, entry.turn)
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

/** The last committed turn still in the undo log (`undefined`: none). */
export const lastCommitted = (env: Env): Effect.Effect<number | undefined> => Effect.map(Ref.get(env.undoLog), (log) => log.at(-1)?.turn)

/**
 * Undoes the last committed turn, or `None` when no committed turn is left; `UndoIncomplete` when a step
 * failed; `UndoSuperseded` when the last committed turn is no longer `expected` (what it was when the caller asked).
 */
export const undoLast = (env: Env, expected: number | undefined): Effect.Effect<Option.Option<AgentSession.UndoReport>, UndoIncomplete | UndoSuperseded | SessionStoreError> =>
  Effect.gen(function*() {
    const entry = (yield* Ref.get(env.undoLog)).at(-1)
    if (entry?.turn !== expected) {
      return yield* new UndoSuperseded({ ...(expected === undefined ? {} : { expected }), ...(entry === undefined ? {} : { last: entry.turn }) })
    }
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

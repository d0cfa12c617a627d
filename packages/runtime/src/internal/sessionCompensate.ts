/**
 * Compensation of a failed turn: the calls it executed are taken back newest first (each undo's failure is
 * recorded, the others still run), and what could not be taken back becomes an outstanding effect of the
 * session and a pair of messages that tell the model it happened. The caller runs this uninterruptibly; it
 * is bounded all the same: each undo within its tool's time budget, all of them within a deadline.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as AgentSession from "../AgentSession.js"
import * as Compensation from "../Compensation.js"
import type * as Message from "../Message.js"
import * as Telemetry from "../Telemetry.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Deadline from "./deadline.js"
import { clip } from "@toolgate/json-schema/Text"
import * as SessionJournal from "./sessionJournal.js"
import { type Env, type Execution, publish } from "./sessionState.js"
import { attempt } from "./sessionUndo.js"

/** What the compensation did: the executed calls, those undone and those left, and the messages to record. */
export interface Compensated {
  readonly executed: ReadonlyArray<Compensation.ExecutedCall>
  readonly compensated: ReadonlyArray<string>
  readonly notCompensated: ReadonlyArray<Compensation.NotCompensated>
  /** The effects left, as the session keeps them. */
  readonly outstanding: ReadonlyArray<Compensation.OutstandingEffect>
  /** For history after the turn's user message: the calls left in effect and what they answered (empty when none is). */
  readonly messages: ReadonlyArray<Message.Message>
}

const executedCall = (e: Execution): Compensation.ExecutedCall => ({
  callId: e.callId,
  tool: e.tool,
  round: e.round,
  arguments: e.arguments,
  ...(e.envelope === undefined ? {} : { envelope: e.envelope }),
  idempotencyKey: e.idempotencyKey
})

/** Why the effect stays, in the words the model reads. */
const why = (turn: number, left: Compensation.NotCompensated): string => {
  const because = left.reason === "no_undo"
    ? "the tool cannot be undone"
    : left.reason === "undo_failed"
    ? `its undo failed (${left.undoFailure?.message ?? "no reason given"})`
    : "it was interrupted or ran past its time budget, so its effect may be partial"
  return `This call ran in turn ${turn}, which then failed; its effect could not be taken back (${because}) ` +
    "and is still in place. Do not repeat it unless the user asks to."
}

/** What the model is told about a call left in effect: its own answer with a warning, or an interruption. */
const told = (turn: number, e: Execution, left: Compensation.NotCompensated): ToolEnvelope.Envelope => {
  if (e.envelope === undefined || e.timedOut) return ToolEnvelope.failure("execution_error", why(turn, left), { tool: e.tool, retryable: false })
  return e.envelope.ok ? { ...e.envelope, warnings: [...(e.envelope.warnings ?? []), why(turn, left)] } : e.envelope
}

/** The calls left in effect as history: one Assistant making them and a ToolResult for each. */
const messagesOf = (turn: number, left: ReadonlyArray<readonly [Execution, Compensation.NotCompensated]>): ReadonlyArray<Message.Message> =>
  left.length === 0 ? [] : [
    { _tag: "Assistant", text: "", toolCalls: left.map(([e]) => ({ id: e.callId, name: e.tool, arguments: e.arguments })) },
    ...left.map(([e, l]): Message.Message => ({ _tag: "ToolResult", callId: e.callId, name: e.tool, envelope: told(turn, e, l) }))
  ]

/**
 * Why an execution's effect stays with no undo to try: it was interrupted or ran out of time (its effect
 * unknown), or its tool has no undo. `undefined` when it had no effect (it answered a failure) or has an undo.
 */
export const stays = (e: Execution): Compensation.NotCompensated | undefined => {
  if (e.envelope === undefined || e.timedOut) return { callId: e.callId, tool: e.tool, reason: "interrupted" }
  return e.envelope.ok && e.undo === undefined ? { callId: e.callId, tool: e.tool, reason: "no_undo" } : undefined
}

/** An execution of `turn` left in effect, as the session keeps it until the app reconciles it. */
export const outstandingOf = (turn: number, e: Execution, left: Compensation.NotCompensated): Compensation.OutstandingEffect =>
  ({ ...executedCall(e), ...left, turn })

/** The failure of an undo that interrupted itself. */
const selfInterrupted = (tool: string) => ToolEnvelope.failure("execution_error", "The undo was interrupted before it answered.", { tool })

/**
 * One execution taken back: `undefined` when undone or when it had no effect, else why it stays. An undo
 * that interrupts itself failed; an interruption from outside (the compensation's deadline) passes on.
 */
const takeBack = (e: Execution): Effect.Effect<Compensation.NotCompensated | "undone" | undefined> => {
  const left = stays(e)
  if (left !== undefined || e.undo === undefined) return Effect.succeed(left)
  const step = e.undo
  return attempt(step).pipe(
    Effect.catchAllCause((cause) =>
      Effect.flatMap(Effect.descriptor, (self) => HashSet.size(self.interruptors) > 0 ? Effect.failCause(cause) : Effect.succeed(selfInterrupted(step.tool)))
    ),
    Effect.map((failure) => failure === undefined ? "undone" : { callId: e.callId, tool: e.tool, reason: "undo_failed", undoFailure: failure })
  )
}

/** The undo failure of a call whose undo had not finished when the compensation's deadline passed. */
const lateUndo = (e: Execution, millis: number): Compensation.NotCompensated => ({
  callId: e.callId,
  tool: e.tool,
  reason: "undo_failed",
  undoFailure: ToolEnvelope.failure("timeout", `The compensation ran past its deadline of ${millis} ms before this undo finished; its effect may be in place.`, {
    tool: e.tool
  })
})

/** A call the compensation had not reached or finished by its deadline: as it stays when it has no undo to run, else `undo_failed`. */
const unsettled = (e: Execution, millis: number): Compensation.NotCompensated | undefined =>
  stays(e) ?? (e.undo === undefined ? undefined : lateUndo(e, millis))

/**
 * What happened to each of `executions`, newest first, within `millis`: the undos run one at a time, each
 * within its tool's budget, all of them within the deadline. Past it the undos still running are interrupted
 * without waiting on them (an undo that will not stop cannot hold the compensation), and every call not
 * settled by then is `undo_failed`.
 */
const takeBackAll = (executions: ReadonlyArray<Execution>, millis: number) =>
  Effect.gen(function*() {
    const settled = new Map<Execution, Compensation.NotCompensated | "undone" | undefined>()
    const newestFirst = [...executions].reverse()
    const run = Effect.forEach(newestFirst, (e) => Effect.map(takeBack(e), (outcome) => void settled.set(e, outcome)), { discard: true })
    const finished = yield* Deadline.within(Effect.as(Effect.disconnect(run), true), Duration.millis(millis), () => Effect.succeed(false))
    // a copy taken once: an undo interrupted in the background cannot change the report after this
    return newestFirst.map((e) => [e, settled.has(e) || finished ? settled.get(e) : unsettled(e, millis)] as const)
  })

/**
 * Takes back `executions` (newest first) within `millis`, records what stays as outstanding effects and
 * publishes `TurnCompensated`.
 */
export const compensate = (env: Env, turn: number, executions: ReadonlyArray<Execution>, millis: number): Effect.Effect<Compensated> =>
  Effect.gen(function*() {
    const compensated: Array<string> = []
    const left: Array<readonly [Execution, Compensation.NotCompensated]> = []
    for (const [e, outcome] of yield* takeBackAll(executions, millis)) {
      if (outcome === "undone") compensated.push(e.callId)
      else if (outcome !== undefined) left.push([e, outcome])
    }
    left.reverse()
    const notCompensated = left.map(([, l]) => l)
    const outstanding = left.map(([e, l]) => outstandingOf(turn, e, l))
    yield* Ref.update(env.outstanding, (o) => [...o, ...outstanding])
    const executed = executions.map(executedCall)
    yield* publish(env, { _tag: "TurnCompensated", turn, executed: executed.map((e) => e.callId), compensated, notCompensated })
    return { executed, compensated, notCompensated, outstanding, messages: messagesOf(turn, left) }
  }).pipe(Telemetry.span("AgentSession.compensate", { "toolgate.turn": turn, "toolgate.tool.executed": executions.length }))

/** A failed turn's event: the typed error's tag and message, an interruption, or a defect. */
const rolledBack = (env: Env, turn: number, cause: Cause.Cause<{ readonly _tag: string; readonly message: string }>) => {
  const failure = Cause.failureOption(cause)
  const [error, message] = Option.isSome(failure)
    ? [failure.value._tag, failure.value.message]
    : Cause.isInterruptedOnly(cause)
    ? ["Interrupted", "The send was interrupted."]
    : ["Defect", clip(Cause.pretty(cause), 500)]
  return publish(env, { _tag: "TurnRolledBack", turn, error, message })
}

/** The turn a rollback closes: its number, where its user message sits in history, its executions. */
export interface Closing {
  readonly number: number
  readonly start: number
  readonly executions: ReadonlyArray<Execution>
}

/**
 * A failed turn's rollback: the executed calls are taken back, the calls left in effect join history after
 * the user's message (so the model is told they happened), the store (when the session has one) closes the
 * turn, then `TurnRolledBack`.
 */
export const rollBack = Effect.fnUntraced(function*(
  env: Env,
  turn: Closing,
  how: {
    readonly usage: AgentSession.UsageReport | undefined
    readonly cause: Cause.Cause<{ readonly _tag: string; readonly message: string }>
    readonly millis: number
  }
) {
  const compensated = turn.executions.length === 0 ? undefined : yield* compensate(env, turn.number, turn.executions, how.millis)
  const messages = compensated?.messages ?? []
  if (messages.length > 0) yield* Ref.update(env.history, (h) => [...h, ...messages])
  if (env.durable !== undefined) {
    const user = (yield* Ref.get(env.history))[turn.start]!
    // a store that cannot close the turn leaves it pending there, as a crash would: the next resume reports its calls
    yield* SessionJournal.rollback(env.durable, turn.number, [user, ...messages], compensated?.outstanding ?? [], how.usage).pipe(
      Effect.catchAll((e) => Effect.logError(`The store could not close turn ${turn.number} of session ${env.id}`, e))
    )
  }
  yield* rolledBack(env, turn.number, how.cause)
  return compensated
})

/** A Schema error class: its constructor, and the fields it declares. */
type ErrorClass<E> = (new(props: object, disableValidation: boolean) => E) & { readonly fields?: Record<string, unknown> }

/**
 * The typed failure of a turn that executed tools: the same error, its own tag kept, carrying what was and
 * was not taken back as its `compensation` field (a copy: an error the provider shares is never changed).
 */
export const reported = <E>(turn: number, compensated: Compensated | undefined, error: E): E => {
  if (compensated === undefined || typeof error !== "object" || error === null) return error
  const Class = error.constructor as ErrorClass<E>
  if (Class.fields === undefined || !("compensation" in Class.fields)) return error
  const props: Record<string, unknown> = {}
  for (const key of Object.keys(Class.fields)) {
    const value = (error as Record<string, unknown>)[key]
    if (value !== undefined) props[key] = value
  }
  const report: Compensation.Report = {
    turn,
    executed: compensated.executed,
    compensated: compensated.compensated,
    notCompensated: compensated.notCompensated
  }
  return new Class({ ...props, compensation: report }, true)
}

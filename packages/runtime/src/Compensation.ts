/**
 * What a failed turn did to the world. A turn that fails (or is interrupted) after some of its tools ran
 * takes them back before `send` fails: each executed call's undo runs, newest first, where no interruption
 * can stop the compensation, yet bounded: each undo within its tool's time budget, all of them within a
 * deadline as long as the turn's (`RunLimits.turnDeadlineMillis`); an undo that does not finish in time is
 * `undo_failed` (a `timeout` failure), never a wait without end. What
 * ran, what was taken back and what could not be are data: the `Report` on the turn's error (its
 * `compensation` field), and the session's `OutstandingEffect`s an app reads and reconciles.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { InvalidToolSchema } from "./ArgumentValidator.js"
import * as Errors from "./Errors.js"
import * as Schemas from "./internal/compensationReport.js"
import { ToolsRejected } from "./Provider.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** A call of the turn whose executor ran (or started: `envelope` is absent when it was interrupted mid-run). */
export const ExecutedCall = Schemas.ExecutedCall
export type ExecutedCall = typeof ExecutedCall.Type

/**
 * Why an executed call was not taken back: its tool declares no `undo`, its undo failed or did not finish
 * within its tool's time budget or the compensation's deadline (`undoFailure` says how), or it was
 * interrupted while it ran (its effect is unknown, maybe partial, so no undo is guessed at).
 */
export const Reason = Schemas.Reason
export type Reason = typeof Reason.Type

/** An executed call the compensation could not take back. */
export const NotCompensated = Schemas.NotCompensated
export type NotCompensated = typeof NotCompensated.Type

/**
 * What the compensation of a failed turn did: `executed` (every call whose executor ran, in start order),
 * `compensated` (the calls whose undo ran and succeeded, newest first) and `notCompensated` (those left in
 * effect, also kept on the session as outstanding effects). A call that answered with a failure envelope is
 * taken to have had no effect: it is in `executed` and in neither list. Every turn error carries it as its
 * optional `compensation` field when tools had run (see `AgentSession.SendError`).
 */
export const Report = Schemas.Report
export type Report = typeof Report.Type

/**
 * An effect of a failed or undone turn that is still in the world: the call as it ran and why it was not taken back.
 * The session keeps it (`AgentSession.outstanding`) until the app reconciles it.
 */
export const OutstandingEffect = Schema.Struct({
  ...ExecutedCall.fields,
  turn: Schema.Int,
  reason: Reason,
  undoFailure: Schema.optionalWith(ToolEnvelope.Failure, { exact: true })
}).annotations({ identifier: "OutstandingEffect" })
export type OutstandingEffect = typeof OutstandingEffect.Type

/**
 * What can end a turn after its user message was recorded: each may carry the turn's compensation `Report`
 * as its `compensation` field.
 */
export const TurnError = Schema.Union(
  Errors.SchemaDriftError,
  Errors.UnsupportedCloudToolSchema,
  Errors.RelayProfileContractError,
  Errors.RelayProfileUnreachable,
  Errors.ToolArgumentRepairExhausted,
  Errors.RoundTripLimitExceeded,
  Errors.TurnDeadlineExceeded,
  Errors.ProviderEventContractViolation,
  Errors.ProviderError,
  Errors.ToolChoiceUnsupported,
  Errors.StructuredOutputInvalid,
  ToolsRejected,
  InvalidToolSchema
)
export type TurnError = typeof TurnError.Type

/** An undo step that failed: the call and the failure envelope its undo gave. */
export const UndoFailure = Schema.Struct({
  callId: Schema.String,
  tool: Schema.String,
  envelope: ToolEnvelope.Failure
}).annotations({ identifier: "UndoFailure" })
export type UndoFailure = typeof UndoFailure.Type

/**
 * `undoLastTurn` could not undo every step of the turn: the turn stays in history and in the undo log, the
 * steps that were undone are marked (a retry does not run them again), and `left` are the calls still to undo.
 */
export class UndoIncomplete extends Schema.TaggedError<UndoIncomplete>()("UndoIncomplete", {
  turn: Schema.Int,
  /** The calls this attempt undid, newest first. */
  undone: Schema.Array(Schema.String),
  failed: Schema.Array(UndoFailure),
  /** The calls whose undo is still to run (newest first): `undoLastTurn` again retries exactly these. */
  left: Schema.Array(Schema.String)
}) {
  readonly [Errors.TypeId]: Errors.TypeId = Errors.TypeId
  /** The turn, what failed and what is left. */
  override get message(): string {
    const failed = this.failed.slice(0, 5).map((f) => `${f.tool} ${f.callId}: ${f.envelope.message}`).join("; ")
    return `The undo of turn ${this.turn} is incomplete: ${this.failed.length} step(s) failed (${failed}); ` +
      `${this.left.length} left to undo, ${this.undone.length} undone. The turn stays; undo it again to retry.`
  }
}

/**
 * `undoLastTurn` was called when turn `expected` was the last committed one (or none was), but by the time
 * it could run (after the send or undo in flight) the last committed turn was another: nothing was undone,
 * since the turn the caller meant is no longer the last. Calling `undoLastTurn` again undoes the last one now.
 */
export class UndoSuperseded extends Schema.TaggedError<UndoSuperseded>()("UndoSuperseded", {
  /** The last committed turn when `undoLastTurn` was called; absent when there was none. */
  expected: Schema.optionalWith(Schema.Int, { exact: true }),
  /** The last committed turn when the undo was to run; absent when there was none. */
  last: Schema.optionalWith(Schema.Int, { exact: true })
}) {
  readonly [Errors.TypeId]: Errors.TypeId = Errors.TypeId
  /** Which turn was meant and which is last now. */
  override get message(): string {
    const turn = (n: number | undefined) => n === undefined ? "no turn" : `turn ${n}`
    return `Nothing was undone: the undo was asked for when ${turn(this.expected)} was the last committed, but ` +
      `${turn(this.last)} was when it could run (a send or another undo ran in between). Undo again to take back the last turn now.`
  }
}

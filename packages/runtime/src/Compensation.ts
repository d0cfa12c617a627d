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
import * as Errors from "./Errors.js"
import * as Schemas from "./internal/compensationReport.js"
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
  Errors.ToolsRejected,
  Errors.InvalidToolSchema
)
export type TurnError = typeof TurnError.Type

/** An undo step that failed: the call and the failure envelope its undo gave. */
export const UndoFailure = Schemas.UndoFailure
export type UndoFailure = typeof UndoFailure.Type

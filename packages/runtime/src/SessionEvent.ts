/**
 * What a session reports while it works, published on its `PubSub` for subscribers (a UI feed, an audit
 * log, tests). Observability, not history: a rolled-back turn's events were still published, and an
 * invalid call is reported with the same detail as an executed one.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { NotCompensated } from "./Compensation.js"
import { Issue, Json } from "./internal/schemas.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** A turn began with the user's text (`turn` counts the session's sends from 1). */
export const TurnStarted = Schema.TaggedStruct("TurnStarted", {
  turn: Schema.Int,
  text: Schema.String
})
export type TurnStarted = typeof TurnStarted.Type

/** The drift gate's answer on a cloud-profile send: `proven` (with the tools), or `degraded` (with why). */
export const DriftGateChecked = Schema.TaggedStruct("DriftGateChecked", {
  turn: Schema.Int,
  outcome: Schema.Literal("proven", "degraded"),
  tools: Schema.Array(Schema.String),
  detail: Schema.String
})
export type DriftGateChecked = typeof DriftGateChecked.Type

/** A provider round trip began (`round` counts from 1 within the turn). */
export const RoundStarted = Schema.TaggedStruct("RoundStarted", {
  turn: Schema.Int,
  round: Schema.Int
})
export type RoundStarted = typeof RoundStarted.Type

/**
 * The model made a call, and what the session decided about it: `valid` (it will run), `invalid` (its
 * arguments were rejected, `issues` says why), `unknown_tool`, or `skipped` (valid, but a sibling of the
 * round was invalid, so none of the round ran).
 */
export const ToolCalled = Schema.TaggedStruct("ToolCalled", {
  turn: Schema.Int,
  round: Schema.Int,
  callId: Schema.String,
  tool: Schema.String,
  arguments: Schema.optionalWith(Json, { exact: true }),
  outcome: Schema.Literal("valid", "invalid", "unknown_tool", "skipped"),
  issues: Schema.Array(Issue)
})
export type ToolCalled = typeof ToolCalled.Type

/** The envelope a call was answered with (executed or not). */
export const ToolAnswered = Schema.TaggedStruct("ToolAnswered", {
  turn: Schema.Int,
  round: Schema.Int,
  callId: Schema.String,
  tool: Schema.String,
  envelope: ToolEnvelope.Envelope
})
export type ToolAnswered = typeof ToolAnswered.Type

/** A round with invalid arguments spent a repair (`repairs` so far, of `limit`). */
export const RepairSpent = Schema.TaggedStruct("RepairSpent", {
  turn: Schema.Int,
  round: Schema.Int,
  repairs: Schema.Int,
  limit: Schema.Int,
  issues: Schema.Array(Issue)
})
export type RepairSpent = typeof RepairSpent.Type

/** The turn succeeded and its messages and undo entries were committed. */
export const TurnCommitted = Schema.TaggedStruct("TurnCommitted", {
  turn: Schema.Int,
  rounds: Schema.Int,
  toolCalls: Schema.Int
})
export type TurnCommitted = typeof TurnCommitted.Type

/**
 * A failing (or interrupted) turn took back the calls it had executed, newest first: `compensated` were
 * undone, `notCompensated` are still in effect (and now the session's outstanding effects).
 */
export const TurnCompensated = Schema.TaggedStruct("TurnCompensated", {
  turn: Schema.Int,
  executed: Schema.Array(Schema.String),
  compensated: Schema.Array(Schema.String),
  notCompensated: Schema.Array(NotCompensated)
})
export type TurnCompensated = typeof TurnCompensated.Type

/** The turn failed with a typed error (`error` is its tag, `message` its text); history kept only the user's message. */
export const TurnRolledBack = Schema.TaggedStruct("TurnRolledBack", {
  turn: Schema.Int,
  error: Schema.String,
  message: Schema.String
})
export type TurnRolledBack = typeof TurnRolledBack.Type

/** Every session event, as one Schema. */
export const SessionEvent = Schema.Union(
  TurnStarted,
  DriftGateChecked,
  RoundStarted,
  ToolCalled,
  ToolAnswered,
  RepairSpent,
  TurnCommitted,
  TurnCompensated,
  TurnRolledBack
).annotations({ identifier: "SessionEvent" })
export type SessionEvent = typeof SessionEvent.Type

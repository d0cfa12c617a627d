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
 * The model wrote `text` in round `round`: published as soon as the provider's stream passes it through the
 * contract stage (a provider that answers a round whole gives one per round with its text, when it has any).
 * A round's deltas are the turn's answer unless a `RoundDiscarded` for that round follows.
 */
export const TextDelta = Schema.TaggedStruct("TextDelta", {
  turn: Schema.Int,
  round: Schema.Int,
  text: Schema.String
})
export type TextDelta = typeof TextDelta.Type

/**
 * The text round `round` streamed is not the turn's answer: the round called tools (its text stays in
 * history, but the answer is a later round's), or it failed, or the turn failed after it. Published only for
 * rounds that published at least one `TextDelta`, so a UI takes back exactly what it showed; `reason` says why.
 */
export const RoundDiscarded = Schema.TaggedStruct("RoundDiscarded", {
  turn: Schema.Int,
  round: Schema.Int,
  reason: Schema.String
})
export type RoundDiscarded = typeof RoundDiscarded.Type

/** A provider-driven provider started a call (it runs the tool itself; `ToolCalled` and `ToolAnswered` follow when the round ends). */
export const ToolCallStarted = Schema.TaggedStruct("ToolCallStarted", {
  turn: Schema.Int,
  round: Schema.Int,
  callId: Schema.String,
  tool: Schema.String
})
export type ToolCallStarted = typeof ToolCallStarted.Type

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
  TextDelta,
  RoundDiscarded,
  ToolCallStarted,
  ToolCalled,
  ToolAnswered,
  RepairSpent,
  TurnCommitted,
  TurnCompensated,
  TurnRolledBack
).annotations({ identifier: "SessionEvent" })
export type SessionEvent = typeof SessionEvent.Type

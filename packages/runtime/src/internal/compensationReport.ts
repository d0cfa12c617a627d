/**
 * The Schemas of a compensation report: what a failed turn executed, took back and left in effect. They
 * live apart from `Compensation.ts` so that `Errors.ts` can put the report on every turn error.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { Envelope, Failure, Json } from "./schemas.js"

/** A call of the turn whose executor ran (or started: `envelope` is absent when it was interrupted mid-run). */
export const ExecutedCall = Schema.Struct({
  callId: Schema.String,
  tool: Schema.String,
  /** The round trip it came from (1-based). */
  round: Schema.Int,
  /** The arguments the executor received, as validated JSON. */
  arguments: Json,
  /** What the call answered with; absent when the executor was interrupted before it answered. */
  envelope: Schema.optionalWith(Envelope, { exact: true }),
  /** The key the executor (and its undo) got in its context. */
  idempotencyKey: Schema.String
}).annotations({ identifier: "ExecutedCall" })

/**
 * Why an executed call was not taken back: its tool declares no `undo`, its undo failed or ran past its time
 * (`undoFailure` says how), or it was interrupted while it ran (its effect is unknown, maybe partial, so no
 * undo is guessed at).
 */
export const Reason = Schema.Literal("no_undo", "undo_failed", "interrupted")

/** An executed call the compensation could not take back. */
export const NotCompensated = Schema.Struct({
  callId: Schema.String,
  tool: Schema.String,
  reason: Reason,
  undoFailure: Schema.optionalWith(Failure, { exact: true })
}).annotations({ identifier: "NotCompensated" })

/**
 * What the compensation of a failed turn did: every call whose executor ran, the calls whose undo ran and
 * succeeded (newest first), and those left in effect (kept on the session as outstanding effects). A call
 * that answered with a failure envelope is taken to have had no effect: it is in `executed` and in neither list.
 */
export const Report = Schema.Struct({
  turn: Schema.Int,
  /** Every call whose executor ran, in the order they started. */
  executed: Schema.Array(ExecutedCall),
  /** The calls whose undo ran and succeeded, in the order they were undone (newest first). */
  compensated: Schema.Array(Schema.String),
  notCompensated: Schema.Array(NotCompensated)
}).annotations({ identifier: "CompensationReport" })

/** An undo step that failed: the call and the failure envelope its undo gave. */
export const UndoFailure = Schema.Struct({
  callId: Schema.String,
  tool: Schema.String,
  envelope: Failure
}).annotations({ identifier: "UndoFailure" })

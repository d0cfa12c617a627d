/**
 * The typed errors of a session store: an operation that failed, and a session another owner holds.
 * `Errors` re-exports each.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { TypeId } from "./errorBase.js"

/** An epoch-milliseconds instant in ISO form, or the number itself past the range of a `Date`. */
const instant = (millis: number): string => {
  const date = new Date(millis)
  return Number.isNaN(date.getTime()) ? `${millis} ms after the epoch` : date.toISOString()
}

/** A store operation failed: the database refused it, a value was over its size limit, or a stored row did not decode. */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>()("SessionStoreError", {
  /** The session the operation was for (empty for operations over every session, such as `list`). */
  session: Schema.String,
  /** The store operation (`load`, `callStarted`, `commitTurn`, …). */
  operation: Schema.String,
  detail: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The session, the operation and why. */
  override get message(): string {
    return `Session store ${this.operation} failed${this.session === "" ? "" : ` for session ${JSON.stringify(this.session)}`}: ${this.detail}`
  }
}

/** Another owner holds the session's lease and it has not expired: this one may not write the session now. */
export class SessionBusy extends Schema.TaggedError<SessionBusy>()("SessionBusy", {
  session: Schema.String,
  /** The owner holding the lease. */
  holder: Schema.String,
  /** When its lease expires (epoch milliseconds); it may be renewed before. */
  expiresAt: Schema.NonNegativeInt
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Who holds the session and until when. */
  override get message(): string {
    return `Session ${JSON.stringify(this.session)} is busy: ${JSON.stringify(this.holder)} holds its lease until ${instant(this.expiresAt)}.`
  }
}

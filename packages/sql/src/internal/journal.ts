/**
 * The write-ahead journal of a running turn: each call before its executor runs (with the turn's new
 * messages), its envelope after.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Errors, SessionStore, ToolEnvelope } from "@toolgate/runtime"
import { k } from "./columns.js"
import type { SessionRow } from "./sessionRow.js"
import { type Db, enc, run } from "./transaction.js"

/** Journaling calls over `db`; the session's row is written through `row`. */
export const make = (db: Db, row: SessionRow) => {
  const { limit, sql, tx } = db

  /**
   * The journal row of a call, written only when the session's row exists and, with `owner`, no other owner
   * holds an unexpired lease (the fence folded into the write); answers whether it was written. One
   * statement: atomic and, on SQLite, committed on its own.
   */
  const journalIfOpen = (call: SessionStore.CallStart, body: string, now: number) =>
    Effect.map(
      run(sql<{ seq: unknown }>`INSERT INTO toolgate_journal (session, turn, call_id, seq, call, envelope)
        SELECT ${k(call.session)}, ${call.turn}, ${k(call.callId)}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM toolgate_journal WHERE session = ${k(call.session)}), ${body}, NULL
        WHERE EXISTS (SELECT 1 FROM toolgate_sessions WHERE id = ${k(call.session)})${
        call.owner === undefined ? sql`` : sql` AND NOT EXISTS (SELECT 1 FROM toolgate_leases WHERE session = ${k(call.session)} AND owner <> ${k(call.owner)} AND expires_at > ${now})`
      }
        RETURNING seq`),
      (rows) => rows.length > 0
    )

  /** The journal row of a call after the session's row is written (and the lease fenced) in the same transaction. */
  const journalOpening = (call: SessionStore.CallStart, body: string) =>
    Effect.gen(function*() {
      yield* row.reserveFenced(call.session, call.owner, call.turn, 0)
      yield* run(sql`INSERT INTO toolgate_journal (session, turn, call_id, seq, call, envelope)
        SELECT ${k(call.session)}, ${call.turn}, ${k(call.callId)}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM toolgate_journal WHERE session = ${k(call.session)}), ${body}, NULL`)
    })

  /**
   * On SQLite a call whose session has a row is journaled in one statement (the turn's new messages ride
   * in its row; the session's next turn is read past pending turns); the first call of a new session, a
   * busy lease, and every call on Postgres (whose fence reads the lease row `FOR SHARE`) take the
   * transaction that writes the session's row first.
   */
  const callStarted = (call: SessionStore.CallStart) => {
    const site = { session: call.session, operation: "callStarted" }
    return Effect.gen(function*() {
      const { messages = [], owner: __, session: _, ...record } = call
      const body = yield* SessionStore.encodeJournalCall(record as SessionStore.JournalCall, messages, limit, call.session)
      const now = yield* Clock.currentTimeMillis
      const done = yield* sql.onDialectOrElse({ pg: () => Effect.succeed(false), orElse: () => tx(site, journalIfOpen(call, body, now), false) })
      if (!done) yield* tx(site, journalOpening(call, body))
    })
  }

  const callFinished = (call: SessionStore.CallEnd) => {
    const site = { session: call.session, operation: "callFinished" }
    return Effect.gen(function*() {
      const envelope = yield* enc(db, ToolEnvelope.Envelope, call.envelope, site)
      const updated = yield* tx(
        site,
        run(sql`UPDATE toolgate_journal SET envelope = ${envelope} WHERE session = ${k(call.session)} AND turn = ${call.turn} AND call_id = ${k(call.callId)} RETURNING call_id`),
        false // one statement: atomic on its own
      )
      if (updated.length === 0) return yield* new Errors.SessionStoreError({ ...site, detail: `call ${call.callId} of turn ${call.turn} was not journaled` })
    })
  }

  return { callStarted, callFinished }
}

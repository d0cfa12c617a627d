/**
 * Closing a turn: its commit (messages into history, the undo entry, session-scope results, usage) or its
 * rollback (the messages history keeps, outstanding effects), each one transaction that drops its journal.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { Compensation, Message, SessionStore } from "@toolgate/runtime"
import { insertAll, k } from "./columns.js"
import type { SessionRow } from "./sessionRow.js"
import { type Db, enc, encAll, run } from "./transaction.js"

/** Committing and rolling back turns over `db`; the session's row is written through `row`. */
export const make = (db: Db, row: SessionRow) => {
  const { sql, tx } = db

  /**
   * Drops a turn's journal (and, with `pendingRows`, its pending message rows: turns journaled by a version
   * that kept them apart from the journal, closed by a rollback when a session is resumed) and appends its
   * closing messages from `seq`.
   */
  const close = (session: string, turn: number, seq: number, bodies: ReadonlyArray<string>, pendingRows: boolean) =>
    Effect.gen(function*() {
      if (pendingRows) yield* run(sql`DELETE FROM toolgate_messages WHERE session = ${k(session)} AND turn = ${turn} AND pending = 1`)
      yield* run(sql`DELETE FROM toolgate_journal WHERE session = ${k(session)} AND turn = ${turn}`)
      yield* insertAll(sql, "toolgate_messages", bodies.map((b, i) => ({ session: k(session), seq: seq + i, turn, pending: 0, body: b })))
    })

  const commitTurn = (commit: SessionStore.Commit) => {
    const site = { session: commit.session, operation: "commitTurn" }
    return Effect.gen(function*() {
      const bodies = yield* encAll(db, Message.Message, commit.messages, site)
      const undo = commit.undo === undefined ? undefined : yield* enc(db, SessionStore.UndoRecord, commit.undo, site)
      const results = yield* encAll(db, SessionStore.SessionResult, commit.results, site)
      const usage = commit.usage === undefined ? undefined : yield* enc(db, SessionStore.Usage, commit.usage, site)
      yield* tx(site, Effect.gen(function*() {
        const seq = yield* row.reserveFenced(commit.session, commit.owner, commit.turn, bodies.length + results.length, usage)
        yield* close(commit.session, commit.turn, seq, bodies, false)
        if (undo !== undefined) {
          yield* run(sql`INSERT INTO toolgate_undo ${sql.insert({ session: k(commit.session), turn: commit.turn, body: undo })}
            ON CONFLICT (session, turn) DO UPDATE SET body = excluded.body`)
        }
        if (results.length > 0) {
          const rows = results.map((body, i) => ({ session: k(commit.session), call_id: k(commit.results[i]!.callId), turn: commit.turn, seq: seq + bodies.length + i, body }))
          yield* run(sql`INSERT INTO toolgate_results ${sql.insert(rows)}
            ON CONFLICT (session, call_id) DO UPDATE SET turn = excluded.turn, seq = excluded.seq, body = excluded.body`)
        }
      }))
    })
  }

  const rollbackTurn = (rollback: SessionStore.Rollback) => {
    const site = { session: rollback.session, operation: "rollbackTurn" }
    return Effect.gen(function*() {
      const bodies = yield* encAll(db, Message.Message, rollback.messages, site)
      const outstanding = yield* encAll(db, Compensation.OutstandingEffect, rollback.outstanding, site)
      const usage = rollback.usage === undefined ? undefined : yield* enc(db, SessionStore.Usage, rollback.usage, site)
      yield* tx(site, Effect.gen(function*() {
        const seq = yield* row.reserveFenced(rollback.session, rollback.owner, rollback.turn, bodies.length + outstanding.length, usage)
        yield* close(rollback.session, rollback.turn, seq, bodies, true)
        yield* insertAll(sql, "toolgate_outstanding", outstanding.map((body, i) => ({
          session: k(rollback.session),
          seq: seq + bodies.length + i,
          idempotency_key: k(rollback.outstanding[i]!.idempotencyKey),
          body
        })))
      }))
    })
  }

  return { commitTurn, rollbackTurn }
}

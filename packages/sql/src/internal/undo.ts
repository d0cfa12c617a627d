/**
 * After a turn: its undo steps marked as they start, fail and finish, an undone turn taken out, and
 * outstanding effects reconciled. Each change is one transaction that locks the session's row first.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { Compensation, Errors, SessionStore } from "@toolgate/runtime"
import { insertAll, k } from "./columns.js"
import type { SessionRow } from "./sessionRow.js"
import { type Db, enc, encAll, run, type Site } from "./transaction.js"

/** The undo log and outstanding effects over `db`; the session's row is written through `row`. */
export const make = (db: Db, row: SessionRow) => {
  const { sql, tx } = db

  /** The stored undo entry of a turn (read after the session's row is locked). */
  const entryOf = (site: Site, turn: number) =>
    Effect.gen(function*() {
      const rows = yield* run(sql<{ body: unknown }>`SELECT body FROM toolgate_undo WHERE session = ${k(site.session)} AND turn = ${turn}`)
      if (rows.length === 0) return yield* new Errors.SessionStoreError({ ...site, detail: `turn ${turn} is not in the undo log` })
      return yield* SessionStore.decodeValue(SessionStore.UndoRecord, rows[0]!.body, site.session, site.operation)
    })

  const undoStepDone = (session: string, turn: number, callId: string) => {
    const site = { session, operation: "undoStepDone" }
    return tx(site, Effect.gen(function*() {
      yield* row.touch(session)
      const record = yield* entryOf(site, turn)
      const body = yield* enc(db, SessionStore.UndoRecord, { ...record, steps: record.steps.filter((s) => s.callId !== callId) }, site)
      yield* run(sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`)
    }))
  }

  const undoStepStarted = (session: string, turn: number, callId: string, started: boolean) => {
    const site = { session, operation: "undoStepStarted" }
    return tx(site, Effect.gen(function*() {
      yield* row.touch(session)
      const record = yield* entryOf(site, turn)
      const steps = record.steps.map((s) => s.callId !== callId ? s : SessionStore.mark(s, started))
      const body = yield* enc(db, SessionStore.UndoRecord, { ...record, steps }, site)
      yield* run(sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`)
    }))
  }

  const undoStepInterrupted = (session: string, turn: number, callId: string, effect: Compensation.OutstandingEffect) => {
    const site = { session, operation: "undoStepInterrupted" }
    return tx(site, Effect.gen(function*() {
      yield* row.touch(session)
      const record = yield* entryOf(site, turn)
      const body = yield* enc(db, SessionStore.UndoRecord, { ...record, steps: record.steps.filter((s) => s.callId !== callId) }, site)
      const outstanding = yield* enc(db, Compensation.OutstandingEffect, effect, site)
      const seq = yield* row.reserve(session, 0, 1)
      yield* run(sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`)
      yield* insertAll(sql, "toolgate_outstanding", [{ session: k(session), seq, idempotency_key: k(effect.idempotencyKey), body: outstanding }])
    }))
  }

  const undoTurn = (session: string, turn: number) => {
    const site = { session, operation: "undoTurn" }
    return tx(site, Effect.gen(function*() {
      yield* row.touch(session)
      const record = yield* entryOf(site, turn)
      const kept = yield* encAll(db, Compensation.OutstandingEffect, record.kept, site)
      // the row is locked already: it is written again only to reserve sequence numbers for kept effects
      const seq = kept.length === 0 ? 0 : yield* row.reserve(session, 0, kept.length)
      yield* run(sql`DELETE FROM toolgate_undo WHERE session = ${k(session)} AND turn = ${turn}`)
      yield* run(sql`DELETE FROM toolgate_messages WHERE session = ${k(session)} AND turn = ${turn} AND pending = 0`)
      yield* run(sql`DELETE FROM toolgate_results WHERE session = ${k(session)} AND turn = ${turn}`)
      yield* insertAll(sql, "toolgate_outstanding", kept.map((body, i) => ({ session: k(session), seq: seq + i, idempotency_key: k(record.kept[i]!.idempotencyKey), body })))
    }))
  }

  const reconcile = (session: string, keys: ReadonlyArray<string>) => {
    const site = { session, operation: "reconcile" }
    if (keys.length === 0) return Effect.succeed([])
    return tx(site, Effect.gen(function*() {
      yield* row.touch(session)
      const rows = yield* run(sql<{ body: unknown }>`SELECT body FROM toolgate_outstanding WHERE session = ${k(session)} AND idempotency_key IN ${sql.in(keys.map(k))} ORDER BY seq`)
      const removed = yield* Effect.forEach(rows, (r) => SessionStore.decodeValue(Compensation.OutstandingEffect, r.body, session, "reconcile"))
      yield* run(sql`DELETE FROM toolgate_outstanding WHERE session = ${k(session)} AND idempotency_key IN ${sql.in(keys.map(k))}`)
      return removed
    }))
  }

  return { undoStepStarted, undoStepInterrupted, undoStepDone, undoTurn, reconcile }
}

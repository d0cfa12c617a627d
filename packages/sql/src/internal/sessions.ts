/**
 * Whole sessions: every row of one read in one transaction (`load`, `export`), a snapshot written as rows
 * (`import`), every session listed, one deleted.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Errors, SessionStore } from "@toolgate/runtime"
import { insertAll, k, num } from "./columns.js"
import * as Lease from "./lease.js"
import { type Db, run, type Site } from "./transaction.js"

/** Reading, importing, listing and deleting sessions over `db`. */
export const make = ({ limit, sql, tx }: Db) => {
  /** The session's rows in order, read in one transaction; `None` when it has no row. */
  const rowsOf = (site: Site) =>
    tx(site, Effect.gen(function*() {
      const s = yield* run(sql<{ next_turn: unknown; usage: string | null }>`SELECT next_turn, usage FROM toolgate_sessions WHERE id = ${k(site.session)}`)
      if (s.length === 0) return Option.none<SessionStore.SessionRows>()
      const messages = yield* run(sql<{ turn: unknown; pending: unknown; body: string }>`SELECT turn, pending, body FROM toolgate_messages WHERE session = ${k(site.session)} ORDER BY seq`)
      const undo = yield* run(sql<{ turn: unknown; body: string }>`SELECT turn, body FROM toolgate_undo WHERE session = ${k(site.session)} ORDER BY turn`)
      const results = yield* run(sql<{ body: string }>`SELECT body FROM toolgate_results WHERE session = ${k(site.session)} ORDER BY seq`)
      const outstanding = yield* run(sql<{ body: string }>`SELECT body FROM toolgate_outstanding WHERE session = ${k(site.session)} ORDER BY seq`)
      const journal = yield* run(sql<{ turn: unknown; call: string; envelope: string | null }>`SELECT turn, call, envelope FROM toolgate_journal WHERE session = ${k(site.session)} ORDER BY seq`)
      return Option.some<SessionStore.SessionRows>({
        id: site.session,
        nextTurn: num(s[0]!.next_turn),
        usage: s[0]!.usage,
        messages: messages.map((m) => ({ turn: num(m.turn), pending: num(m.pending) === 1, body: m.body })),
        undo: undo.map((u) => ({ turn: num(u.turn), body: u.body })),
        results: results.map((r) => r.body),
        outstanding: outstanding.map((o) => o.body),
        journal: journal.map((j) => ({ turn: num(j.turn), call: j.call, envelope: j.envelope }))
      })
    }))

  const load = (session: string, operation: string) =>
    Effect.flatMap(rowsOf({ session, operation }), Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (rows) => Effect.asSome(SessionStore.fromRows(rows, operation))
    }))

  const importSnapshot = (snapshot: SessionStore.SessionSnapshot) => {
    const site = { session: snapshot.id, operation: "import" }
    return Effect.gen(function*() {
      const rows = yield* SessionStore.toRows(snapshot, limit)
      const n = rows.messages.length + rows.results.length + rows.outstanding.length
      yield* tx(site, Effect.gen(function*() {
        const existing = yield* run(sql`SELECT id FROM toolgate_sessions WHERE id = ${k(snapshot.id)}`)
        if (existing.length > 0) return yield* new Errors.SessionStoreError({ ...site, detail: "the session already exists" })
        yield* insertAll(sql, "toolgate_sessions", [{ id: k(snapshot.id), next_turn: rows.nextTurn, next_seq: n, usage: rows.usage ?? null }])
        yield* insertAll(sql, "toolgate_messages", rows.messages.map((m, i) => ({ session: k(snapshot.id), seq: i, turn: m.turn, pending: 0, body: m.body })))
        yield* insertAll(sql, "toolgate_undo", rows.undo.map((u) => ({ session: k(snapshot.id), turn: u.turn, body: u.body })))
        const base = rows.messages.length
        yield* insertAll(sql, "toolgate_results", rows.results.map((body, i) => ({
          session: k(snapshot.id),
          call_id: k(snapshot.results[i]!.callId),
          turn: snapshot.results[i]!.turn,
          seq: base + i,
          body
        })))
        yield* insertAll(sql, "toolgate_outstanding", rows.outstanding.map((body, i) => ({
          session: k(snapshot.id),
          seq: base + rows.results.length + i,
          idempotency_key: k(snapshot.outstanding[i]!.idempotencyKey),
          body
        })))
      }))
    })
  }

  const list = tx({ session: "", operation: "list" }, Effect.gen(function*() {
    const rows = yield* run(sql<{ id: string; next_turn: unknown; messages: unknown; outstanding: unknown; pending: unknown; last_pending: unknown }>`SELECT s.id, s.next_turn,
      (SELECT COUNT(*) FROM toolgate_messages m WHERE m.session = s.id AND m.pending = 0) AS messages,
      (SELECT COUNT(*) FROM toolgate_outstanding o WHERE o.session = s.id) AS outstanding,
      (SELECT COUNT(DISTINCT j.turn) FROM toolgate_journal j WHERE j.session = s.id) AS pending,
      (SELECT MAX(j.turn) FROM toolgate_journal j WHERE j.session = s.id) AS last_pending
      FROM toolgate_sessions s`)
    const leases = yield* Lease.all(sql)
    const ids = yield* Effect.forEach(rows, (r) => Lease.decodeKey(r.id, "", "list"))
    return rows
      .map((r, i): SessionStore.SessionInfo => ({
        id: ids[i]!,
        // a call journaled in one statement leaves the session's next turn behind its turn
        turns: Math.max(num(r.next_turn) - 1, r.last_pending == null ? 0 : num(r.last_pending)),
        messages: num(r.messages),
        outstanding: num(r.outstanding),
        pending: num(r.pending),
        lease: leases.get(ids[i]!)
      }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }))

  const remove = (session: string) =>
    tx({ session, operation: "delete" }, Effect.forEach(
      ["toolgate_messages", "toolgate_undo", "toolgate_results", "toolgate_outstanding", "toolgate_journal", "toolgate_leases"],
      (table) => run(sql`DELETE FROM ${sql(table)} WHERE session = ${k(session)}`),
      { discard: true }
    ).pipe(Effect.zipRight(run(sql`DELETE FROM toolgate_sessions WHERE id = ${k(session)}`))))

  return { load, importSnapshot, list, remove }
}

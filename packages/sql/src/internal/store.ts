/**
 * The session store over any `SqlClient`: every change is one transaction whose first statement writes the
 * session's row (so SQLite takes its write lock before reading, and Postgres serializes writers of one
 * session on that row), and every row read is decoded through its Schema.
 *
 * @internal
 */
import { SqlError } from "@effect/sql/SqlError"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Compensation, Errors, Message, SessionStore, ToolEnvelope } from "@toolgate/runtime"
import * as Lease from "./lease.js"

type Site = { readonly session: string; readonly operation: string }

/**
 * A key column's text: the key as a JSON string. Keys (session ids, call ids, idempotency keys) come from
 * outside and may hold NUL (Postgres refuses it in text) or lone surrogates (UTF-8 cannot carry them, so two
 * such ids would become one); their JSON form is plain text, and equal exactly when the keys are.
 */
export const k = (key: string): string => JSON.stringify(key)

/** A row's number (Postgres answers `BIGINT` as text). */
const num = (u: unknown): number => typeof u === "number" ? u : Number(u)

/** Inserts rows in chunks (both dialects cap the parameters of one statement). */
const insertAll = (sql: SqlClient.SqlClient, table: string, rows: ReadonlyArray<Record<string, string | number | null>>) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(rows.length / 500) }, (_, i) => rows.slice(i * 500, i * 500 + 500)),
    (chunk) => sql`INSERT INTO ${sql(table)} ${sql.insert(chunk as Array<Record<string, string | number | null>>)}`,
    { discard: true }
  )

/** The store over the `SqlClient` in context; `limit` bounds every stored value. */
export const make = (limit: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const enc = <A, I>(schema: import("effect/Schema").Schema<A, I>, value: A, site: Site) => SessionStore.encodeValue(schema, value, limit, site.session, site.operation)
    const encAll = <A, I>(schema: import("effect/Schema").Schema<A, I>, values: ReadonlyArray<A>, site: Site) => Effect.forEach(values, (v) => enc(schema, v, site))

    /** Maps the database's failures to `SessionStoreError` and runs `effect` in one transaction (unless it is a single statement). */
    const tx = <A, E>(site: Site, effect: Effect.Effect<A, E>, transaction = true): Effect.Effect<A, Exclude<E, SqlError> | Errors.SessionStoreError> =>
      (transaction ? sql.withTransaction(effect) : effect).pipe(
        Effect.mapError((e): Exclude<E, SqlError> | Errors.SessionStoreError =>
          e instanceof SqlError
            ? new Errors.SessionStoreError({ ...site, detail: `the database failed: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}` })
            : e as Exclude<E, SqlError>
        )
      )

    const lease = Lease.make(sql, tx)

    /**
     * Creates the session's row or touches it: reserves `count` sequence numbers and moves its next turn past
     * `turn`; answers the row's `next_seq` after the reservation, and with `withLease` the session's lease row
     * too (read in the same statement, once the transaction holds the write lock). The write that opens every
     * changing transaction.
     */
    const upsert = (session: string, turn: number, count: number, usage: string | undefined, withLease: boolean) =>
      sql<{ next_seq: unknown; owner?: string | null; expires_at?: unknown }>`INSERT INTO toolgate_sessions (id, next_turn, next_seq, usage) VALUES (${k(session)}, ${turn + 1}, ${count}, ${usage ?? null})
        ON CONFLICT (id) DO UPDATE SET
          next_turn = CASE WHEN toolgate_sessions.next_turn > excluded.next_turn THEN toolgate_sessions.next_turn ELSE excluded.next_turn END,
          next_seq = toolgate_sessions.next_seq + excluded.next_seq,
          usage = COALESCE(excluded.usage, toolgate_sessions.usage)
        RETURNING next_seq${withLease ? sql`, (SELECT owner FROM toolgate_leases WHERE session = ${k(session)}) AS owner, (SELECT expires_at FROM toolgate_leases WHERE session = ${k(session)}) AS expires_at` : sql``}`

    /** Reserves `count` sequence numbers (answers the first); see `upsert`. */
    const reserve = (session: string, turn: number, count: number, usage?: string) =>
      Effect.map(upsert(session, turn, count, usage, false), (rows) => num(rows[0]!.next_seq) - count)

    /**
     * `reserve`, then fencing when `owner` is given (`SessionBusy` when another owner holds an unexpired lease):
     * on SQLite the reserving statement answers the lease row; on Postgres a second statement reads it `FOR SHARE`.
     */
    const reserveFenced = (session: string, owner: string | undefined, turn: number, count: number, usage?: string) =>
      owner === undefined ? reserve(session, turn, count, usage) : sql.onDialectOrElse({
        pg: () => Effect.zipLeft(reserve(session, turn, count, usage), lease.fence(session, owner)),
        orElse: () =>
          Effect.flatMap(upsert(session, turn, count, usage, true), ([row]) =>
            Effect.as(
              lease.check(session, owner, row!.owner == null ? undefined : { owner: row!.owner, expires_at: row!.expires_at }),
              num(row!.next_seq) - count
            ))
      })

    /** Locks the session's row (the first write of a read-then-write transaction). */
    const touch = (session: string) => sql`UPDATE toolgate_sessions SET next_seq = next_seq WHERE id = ${k(session)}`

    /**
     * The journal row of a call, written only when the session's row exists and, with `owner`, no other owner
     * holds an unexpired lease (the fence folded into the write); answers whether it was written. One
     * statement: atomic and, on SQLite, committed on its own.
     */
    const journalIfOpen = (call: SessionStore.CallStart, body: string, now: number) =>
      Effect.map(
        sql<{ seq: unknown }>`INSERT INTO toolgate_journal (session, turn, call_id, seq, call, envelope)
          SELECT ${k(call.session)}, ${call.turn}, ${k(call.callId)}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM toolgate_journal WHERE session = ${k(call.session)}), ${body}, NULL
          WHERE EXISTS (SELECT 1 FROM toolgate_sessions WHERE id = ${k(call.session)})${
          call.owner === undefined ? sql`` : sql` AND NOT EXISTS (SELECT 1 FROM toolgate_leases WHERE session = ${k(call.session)} AND owner <> ${k(call.owner)} AND expires_at > ${now})`
        }
          RETURNING seq`,
        (rows) => rows.length > 0
      )

    /** The journal row of a call after the session's row is written (and the lease fenced) in the same transaction. */
    const journalOpening = (call: SessionStore.CallStart, body: string) =>
      Effect.gen(function*() {
        yield* reserveFenced(call.session, call.owner, call.turn, 0)
        yield* sql`INSERT INTO toolgate_journal (session, turn, call_id, seq, call, envelope)
          SELECT ${k(call.session)}, ${call.turn}, ${k(call.callId)}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM toolgate_journal WHERE session = ${k(call.session)}), ${body}, NULL`
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
        const envelope = yield* enc(ToolEnvelope.Envelope, call.envelope, site)
        const updated = yield* tx(
          site,
          sql`UPDATE toolgate_journal SET envelope = ${envelope} WHERE session = ${k(call.session)} AND turn = ${call.turn} AND call_id = ${k(call.callId)} RETURNING call_id`,
          false // one statement: atomic on its own
        )
        if (updated.length === 0) return yield* new Errors.SessionStoreError({ ...site, detail: `call ${call.callId} of turn ${call.turn} was not journaled` })
      })
    }

    /**
     * Drops a turn's journal (and, with `pendingRows`, its pending message rows: turns journaled by a version
     * that kept them apart from the journal, closed by a rollback when a session is resumed) and appends its
     * closing messages from `seq`.
     */
    const close = (session: string, turn: number, seq: number, bodies: ReadonlyArray<string>, pendingRows: boolean) =>
      Effect.gen(function*() {
        if (pendingRows) yield* sql`DELETE FROM toolgate_messages WHERE session = ${k(session)} AND turn = ${turn} AND pending = 1`
        yield* sql`DELETE FROM toolgate_journal WHERE session = ${k(session)} AND turn = ${turn}`
        yield* insertAll(sql, "toolgate_messages", bodies.map((b, i) => ({ session: k(session), seq: seq + i, turn, pending: 0, body: b })))
      })

    const commitTurn = (commit: SessionStore.Commit) => {
      const site = { session: commit.session, operation: "commitTurn" }
      return Effect.gen(function*() {
        const bodies = yield* encAll(Message.Message, commit.messages, site)
        const undo = commit.undo === undefined ? undefined : yield* enc(SessionStore.UndoRecord, commit.undo, site)
        const results = yield* encAll(SessionStore.SessionResult, commit.results, site)
        const usage = commit.usage === undefined ? undefined : yield* enc(SessionStore.Usage, commit.usage, site)
        yield* tx(site, Effect.gen(function*() {
          const seq = yield* reserveFenced(commit.session, commit.owner, commit.turn, bodies.length + results.length, usage)
          yield* close(commit.session, commit.turn, seq, bodies, false)
          if (undo !== undefined) {
            yield* sql`INSERT INTO toolgate_undo ${sql.insert({ session: k(commit.session), turn: commit.turn, body: undo })}
              ON CONFLICT (session, turn) DO UPDATE SET body = excluded.body`
          }
          if (results.length > 0) {
            const rows = results.map((body, i) => ({ session: k(commit.session), call_id: k(commit.results[i]!.callId), turn: commit.turn, seq: seq + bodies.length + i, body }))
            yield* sql`INSERT INTO toolgate_results ${sql.insert(rows)}
              ON CONFLICT (session, call_id) DO UPDATE SET turn = excluded.turn, seq = excluded.seq, body = excluded.body`
          }
        }))
      })
    }

    const rollbackTurn = (rollback: SessionStore.Rollback) => {
      const site = { session: rollback.session, operation: "rollbackTurn" }
      return Effect.gen(function*() {
        const bodies = yield* encAll(Message.Message, rollback.messages, site)
        const outstanding = yield* encAll(Compensation.OutstandingEffect, rollback.outstanding, site)
        const usage = rollback.usage === undefined ? undefined : yield* enc(SessionStore.Usage, rollback.usage, site)
        yield* tx(site, Effect.gen(function*() {
          const seq = yield* reserveFenced(rollback.session, rollback.owner, rollback.turn, bodies.length + outstanding.length, usage)
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

    /** The stored undo entry of a turn (read after the session's row is locked). */
    const entryOf = (site: Site, turn: number) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ body: unknown }>`SELECT body FROM toolgate_undo WHERE session = ${k(site.session)} AND turn = ${turn}`
        if (rows.length === 0) return yield* new Errors.SessionStoreError({ ...site, detail: `turn ${turn} is not in the undo log` })
        return yield* SessionStore.decodeValue(SessionStore.UndoRecord, rows[0]!.body, site.session, site.operation)
      })

    const undoStepDone = (session: string, turn: number, callId: string) => {
      const site = { session, operation: "undoStepDone" }
      return tx(site, Effect.gen(function*() {
        yield* touch(session)
        const record = yield* entryOf(site, turn)
        const body = yield* enc(SessionStore.UndoRecord, { ...record, steps: record.steps.filter((s) => s.callId !== callId) }, site)
        yield* sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`
      }))
    }

    const undoStepStarted = (session: string, turn: number, callId: string, started: boolean) => {
      const site = { session, operation: "undoStepStarted" }
      return tx(site, Effect.gen(function*() {
        yield* touch(session)
        const record = yield* entryOf(site, turn)
        const steps = record.steps.map((s) => s.callId !== callId ? s : SessionStore.mark(s, started))
        const body = yield* enc(SessionStore.UndoRecord, { ...record, steps }, site)
        yield* sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`
      }))
    }

    const undoStepInterrupted = (session: string, turn: number, callId: string, effect: Compensation.OutstandingEffect) => {
      const site = { session, operation: "undoStepInterrupted" }
      return tx(site, Effect.gen(function*() {
        yield* touch(session)
        const record = yield* entryOf(site, turn)
        const body = yield* enc(SessionStore.UndoRecord, { ...record, steps: record.steps.filter((s) => s.callId !== callId) }, site)
        const outstanding = yield* enc(Compensation.OutstandingEffect, effect, site)
        const seq = yield* reserve(session, 0, 1)
        yield* sql`UPDATE toolgate_undo SET body = ${body} WHERE session = ${k(session)} AND turn = ${turn}`
        yield* insertAll(sql, "toolgate_outstanding", [{ session: k(session), seq, idempotency_key: k(effect.idempotencyKey), body: outstanding }])
      }))
    }

    const undoTurn = (session: string, turn: number) => {
      const site = { session, operation: "undoTurn" }
      return tx(site, Effect.gen(function*() {
        yield* touch(session)
        const record = yield* entryOf(site, turn)
        const kept = yield* encAll(Compensation.OutstandingEffect, record.kept, site)
        // the row is locked already: it is written again only to reserve sequence numbers for kept effects
        const seq = kept.length === 0 ? 0 : yield* reserve(session, 0, kept.length)
        yield* sql`DELETE FROM toolgate_undo WHERE session = ${k(session)} AND turn = ${turn}`
        yield* sql`DELETE FROM toolgate_messages WHERE session = ${k(session)} AND turn = ${turn} AND pending = 0`
        yield* sql`DELETE FROM toolgate_results WHERE session = ${k(session)} AND turn = ${turn}`
        yield* insertAll(sql, "toolgate_outstanding", kept.map((body, i) => ({ session: k(session), seq: seq + i, idempotency_key: k(record.kept[i]!.idempotencyKey), body })))
      }))
    }

    const reconcile = (session: string, keys: ReadonlyArray<string>) => {
      const site = { session, operation: "reconcile" }
      if (keys.length === 0) return Effect.succeed([])
      return tx(site, Effect.gen(function*() {
        yield* touch(session)
        const rows = yield* sql<{ body: unknown }>`SELECT body FROM toolgate_outstanding WHERE session = ${k(session)} AND idempotency_key IN ${sql.in(keys.map(k))} ORDER BY seq`
        const removed = yield* Effect.forEach(rows, (r) => SessionStore.decodeValue(Compensation.OutstandingEffect, r.body, session, "reconcile"))
        yield* sql`DELETE FROM toolgate_outstanding WHERE session = ${k(session)} AND idempotency_key IN ${sql.in(keys.map(k))}`
        return removed
      }))
    }

    /** The session's rows in order, read in one transaction; `None` when it has no row. */
    const rowsOf = (site: Site) =>
      tx(site, Effect.gen(function*() {
        const s = yield* sql<{ next_turn: unknown; usage: string | null }>`SELECT next_turn, usage FROM toolgate_sessions WHERE id = ${k(site.session)}`
        if (s.length === 0) return Option.none<SessionStore.SessionRows>()
        const messages = yield* sql<{ turn: unknown; pending: unknown; body: string }>`SELECT turn, pending, body FROM toolgate_messages WHERE session = ${k(site.session)} ORDER BY seq`
        const undo = yield* sql<{ turn: unknown; body: string }>`SELECT turn, body FROM toolgate_undo WHERE session = ${k(site.session)} ORDER BY turn`
        const results = yield* sql<{ body: string }>`SELECT body FROM toolgate_results WHERE session = ${k(site.session)} ORDER BY seq`
        const outstanding = yield* sql<{ body: string }>`SELECT body FROM toolgate_outstanding WHERE session = ${k(site.session)} ORDER BY seq`
        const journal = yield* sql<{ turn: unknown; call: string; envelope: string | null }>`SELECT turn, call, envelope FROM toolgate_journal WHERE session = ${k(site.session)} ORDER BY seq`
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
          const existing = yield* sql`SELECT id FROM toolgate_sessions WHERE id = ${k(snapshot.id)}`
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
      const rows = yield* sql<{ id: string; next_turn: unknown; messages: unknown; outstanding: unknown; pending: unknown; last_pending: unknown }>`SELECT s.id, s.next_turn,
        (SELECT COUNT(*) FROM toolgate_messages m WHERE m.session = s.id AND m.pending = 0) AS messages,
        (SELECT COUNT(*) FROM toolgate_outstanding o WHERE o.session = s.id) AS outstanding,
        (SELECT COUNT(DISTINCT j.turn) FROM toolgate_journal j WHERE j.session = s.id) AS pending,
        (SELECT MAX(j.turn) FROM toolgate_journal j WHERE j.session = s.id) AS last_pending
        FROM toolgate_sessions s`
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
        (table) => sql`DELETE FROM ${sql(table)} WHERE session = ${k(session)}`,
        { discard: true }
      ).pipe(Effect.zipRight(sql`DELETE FROM toolgate_sessions WHERE id = ${k(session)}`)))

    // every operation in its span, in the one place the runtime traces a store's operations
    return SessionStore.traced({
      load: (session) => load(session, "load"),
      list,
      callStarted,
      callFinished,
      commitTurn,
      rollbackTurn,
      undoStepStarted,
      undoStepInterrupted,
      undoStepDone,
      undoTurn,
      reconcile,
      acquire: (session, owner, ttl) => lease.take(session, owner, ttl, "acquire"),
      renew: (session, owner, ttl) => lease.take(session, owner, ttl, "renew"),
      release: lease.release,
      export: (session) => Effect.map(load(session, "export"), Option.map((stored) => stored.snapshot)),
      import: importSnapshot,
      delete: remove
    })
  })

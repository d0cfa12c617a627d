/**
 * The session's row, the first write of every changing transaction (so SQLite takes its write lock before
 * reading, and Postgres serializes writers of one session on that row): it reserves sequence numbers, moves
 * the next turn on, and fences writes by the lease.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { k, num } from "./columns.js"
import type * as Lease from "./lease.js"
import { type Db, run } from "./transaction.js"

/** Writing the session's row over `db`, fenced by `lease`. */
export const make = ({ sql }: Db, lease: Lease.Lease) => {
  /**
   * Creates the session's row or touches it: reserves `count` sequence numbers and moves its next turn past
   * `turn`; answers the row's `next_seq` after the reservation, and with `withLease` the session's lease row
   * too (read in the same statement, once the transaction holds the write lock).
   */
  const upsert = (session: string, turn: number, count: number, usage: string | undefined, withLease: boolean) =>
    run(sql<{ next_seq: unknown; owner?: string | null; expires_at?: unknown }>`INSERT INTO toolgate_sessions (id, next_turn, next_seq, usage) VALUES (${k(session)}, ${turn + 1}, ${count}, ${usage ?? null})
      ON CONFLICT (id) DO UPDATE SET
        next_turn = CASE WHEN toolgate_sessions.next_turn > excluded.next_turn THEN toolgate_sessions.next_turn ELSE excluded.next_turn END,
        next_seq = toolgate_sessions.next_seq + excluded.next_seq,
        usage = COALESCE(excluded.usage, toolgate_sessions.usage)
      RETURNING next_seq${withLease ? sql`, (SELECT owner FROM toolgate_leases WHERE session = ${k(session)}) AS owner, (SELECT expires_at FROM toolgate_leases WHERE session = ${k(session)}) AS expires_at` : sql``}`)

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
  const touch = (session: string) => run(sql`UPDATE toolgate_sessions SET next_seq = next_seq WHERE id = ${k(session)}`)

  return { reserve, reserveFenced, touch }
}

/** The session's row writes. */
export type SessionRow = ReturnType<typeof make>

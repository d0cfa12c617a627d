/**
 * One writer per session: a lease row (owner, expiry, version). On Postgres the row is locked with
 * `SELECT … FOR UPDATE` and taken over only by a write naming the version read; on SQLite one conditional
 * upsert takes it when it is ours or free (atomic on its own), and a transaction reads who holds it otherwise.
 * An expired lease is anyone's.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Errors, SessionStore } from "@toolgate/runtime"
import { k } from "./columns.js"
import { run, type Tx } from "./transaction.js"

/** A lease row as read. */
export interface Row {
  readonly owner: string
  readonly expires_at: unknown
  readonly version: unknown
}

/** A key column read back. */
export const decodeKey = (text: unknown, session: string, operation: string) => SessionStore.decodeValue(Schema.String, text, session, operation)

/** Every unexpired lease, by session. */
export const all = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* run(sql<{ session: string; owner: string; expires_at: unknown }>`SELECT session, owner, expires_at FROM toolgate_leases WHERE expires_at > ${now}`)
    const leases = yield* Effect.forEach(rows, (r) =>
      Effect.map(Effect.all([decodeKey(r.session, "", "list"), decodeKey(r.owner, "", "list")]), ([session, owner]) => ({ session, owner, expiresAt: Number(r.expires_at) })))
    return new Map(leases.map((l) => [l.session, l]))
  })

/** How often a take on Postgres starts again when the lease row it inserted against was deleted before it was read. */
const maxTakeAttempts = 5

/** Taking and giving up leases over `sql`, each in a transaction of `tx`. */
export const make = (sql: SqlClient.SqlClient, tx: Tx) => {
  /** Postgres: insert if absent, lock the row, take it when ours or expired (guarded by its version). */
  const takePg = (session: string, owner: string, now: number, expiresAt: number, attempts = 1): Effect.Effect<Row, Errors.SessionStoreError | SqlError> =>
    Effect.gen(function*() {
      yield* run(sql`INSERT INTO toolgate_leases (session, owner, expires_at, version) VALUES (${k(session)}, ${k(owner)}, ${expiresAt}, 0) ON CONFLICT (session) DO NOTHING`)
      const [row] = yield* run(sql<Row>`SELECT owner, expires_at, version FROM toolgate_leases WHERE session = ${k(session)} FOR UPDATE`)
      if (row === undefined) {
        // the holder released the lease between the two statements: it is free, so take it from the top
        if (attempts < maxTakeAttempts) return yield* takePg(session, owner, now, expiresAt, attempts + 1)
        return yield* new Errors.SessionStoreError({ session, operation: "lease", detail: `the lease row kept disappearing (${attempts} attempts)` })
      }
      if (row.owner !== k(owner) && Number(row.expires_at) > now) return row
      yield* run(sql`UPDATE toolgate_leases SET owner = ${k(owner)}, expires_at = ${expiresAt}, version = version + 1 WHERE session = ${k(session)} AND version = ${Number(row.version)}`)
      return { owner: k(owner), expires_at: expiresAt, version: Number(row.version) + 1 }
    })

  /** SQLite (and others): one upsert that changes the row only when it is ours or expired; answers the row it wrote (none when it wrote none). */
  const upsertOther = (session: string, owner: string, now: number, expiresAt: number) =>
    run(sql<Row>`INSERT INTO toolgate_leases (session, owner, expires_at, version) VALUES (${k(session)}, ${k(owner)}, ${expiresAt}, 0)
      ON CONFLICT (session) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, version = toolgate_leases.version + 1
      WHERE toolgate_leases.owner = excluded.owner OR toolgate_leases.expires_at <= ${now}
      RETURNING owner, expires_at, version`)

  /** SQLite (and others), in a transaction: the upsert, then who holds the lease. */
  const takeOther = (session: string, owner: string, now: number, expiresAt: number) =>
    Effect.gen(function*() {
      const [taken] = yield* upsertOther(session, owner, now, expiresAt)
      if (taken !== undefined) return taken
      const [row] = yield* run(sql<Row>`SELECT owner, expires_at, version FROM toolgate_leases WHERE session = ${k(session)}`)
      return row!
    })

  const take = (session: string, owner: string, ttl: Duration.DurationInput, operation: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const expiresAt = now + Duration.toMillis(ttl)
      const site = { session, operation }
      const row = yield* sql.onDialectOrElse({
        pg: () => tx(site, takePg(session, owner, now, expiresAt)),
        // taking a lease that is ours or free is the upsert alone (one statement: atomic on its own); reading
        // who holds it otherwise is a transaction of its own
        orElse: () =>
          Effect.flatMap(tx(site, upsertOther(session, owner, now, expiresAt), false), ([taken]) =>
            taken !== undefined ? Effect.succeed(taken) : tx(site, takeOther(session, owner, now, expiresAt)))
      })
      if (row.owner !== k(owner)) return yield* new Errors.SessionBusy({ session, holder: yield* decodeKey(row.owner, session, operation), expiresAt: Number(row.expires_at) })
      return { session, owner, expiresAt: Number(row.expires_at) }
    })

  const release = (session: string, owner: string) =>
    Effect.asVoid(tx({ session, operation: "release" }, run(sql`DELETE FROM toolgate_leases WHERE session = ${k(session)} AND owner = ${k(owner)}`)))

  /** `SessionBusy` when `row`, the session's lease row read in the writing transaction, is another owner's and unexpired. */
  const check = (session: string, owner: string, row: Pick<Row, "owner" | "expires_at"> | undefined) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (row === undefined || row.owner === k(owner) || Number(row.expires_at) <= now) return
      return yield* new Errors.SessionBusy({ session, holder: yield* decodeKey(row.owner, session, "fence"), expiresAt: Number(row.expires_at) })
    })

  /**
   * Fencing on Postgres, inside a writing transaction: `SessionBusy` when `owner` is given and another owner
   * holds an unexpired lease; the lease row is read `FOR SHARE`, so no takeover commits meanwhile. (On SQLite
   * the write of the session's row returns the lease row, and `check` reads it.)
   */
  const fence = (session: string, owner: string | undefined) =>
    owner === undefined ? Effect.void : Effect.gen(function*() {
      const rows = yield* run(sql<Row>`SELECT owner, expires_at, version FROM toolgate_leases WHERE session = ${k(session)} FOR SHARE`)
      return yield* check(session, owner, rows[0])
    })

  return { take, release, fence, check }
}

/** Taking, giving up and checking leases. */
export type Lease = ReturnType<typeof make>

/**
 * The store's tables, created by `@effect/sql`'s migrator on first use and versioned in
 * `toolgate_migrations`. Every stored value is JSON text (`TEXT`, not `jsonb`: Postgres' `jsonb` refuses
 * `\u0000` and lone surrogate escapes that a tool result may hold); `seq` orders rows within a session.
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** The schema, version 1. */
const v1 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_sessions (
    id TEXT PRIMARY KEY,
    next_turn BIGINT NOT NULL,
    next_seq BIGINT NOT NULL,
    usage TEXT
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_messages (
    session TEXT NOT NULL,
    seq BIGINT NOT NULL,
    turn BIGINT NOT NULL,
    pending INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session, seq)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS toolgate_messages_turn ON toolgate_messages (session, turn)`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_undo (
    session TEXT NOT NULL,
    turn BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session, turn)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_results (
    session TEXT NOT NULL,
    call_id TEXT NOT NULL,
    turn BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session, call_id)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_outstanding (
    session TEXT NOT NULL,
    seq BIGINT NOT NULL,
    idempotency_key TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session, seq)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_journal (
    session TEXT NOT NULL,
    turn BIGINT NOT NULL,
    call_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    call TEXT NOT NULL,
    envelope TEXT,
    PRIMARY KEY (session, turn, call_id)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS toolgate_leases (
    session TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    version BIGINT NOT NULL
  )`
})

/** Every migration, by `<id>_<name>`. */
const migrations = { "1_sessions": v1 }

/** The id of the last migration. */
const latest = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/** Brings the tables up to the current version (a no-op when they are). */
export const run = Migrator.make({})({
  loader: Migrator.fromRecord(migrations),
  table: "toolgate_migrations"
})

/**
 * Fails while the last migration is not committed. On SQLite the migrator answers at once, as if done, when
 * another connection holds the migration's transaction open ("already running"): the tables are there only
 * once that transaction commits.
 */
export const ready = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ id: unknown }>`SELECT MAX(migration_id) AS id FROM toolgate_migrations`
  if (Number(row?.id ?? 0) < latest) return yield* Effect.fail(new Error(`the tables are at version ${Number(row?.id ?? 0)} of ${latest}: another connection is migrating them`))
})

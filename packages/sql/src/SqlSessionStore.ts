/**
 * `SessionStore` on SQL, one implementation over `@effect/sql`'s `SqlClient`: SQLite embedded for one
 * process (`layerSqlite`, better-sqlite3 12 in WAL mode behind `@effect/sql`'s client), Postgres for several
 * replicas (`layer` with the app's `PgClient` layer). Tables are created by `@effect/sql`'s migrator on
 * first use, versioned in `toolgate_migrations`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Decode, Errors, SessionStore } from "@toolgate/runtime"
import * as Migrations from "./internal/migrations.js"
import * as Sqlite from "./internal/sqlite.js"
import * as Store from "./internal/store.js"

/** What a SQL store is made with (see `SessionStore.Options`). */
export const Options = SessionStore.Options
export type Options = SessionStore.Options

/** SQLite's `synchronous` setting: `FULL` syncs the write-ahead log at every commit (a commit survives a power loss); `NORMAL` at checkpoints only (a commit survives a crash of the process, not of the machine). */
export const Synchronous = Schema.Literal("FULL", "NORMAL")
export type Synchronous = typeof Synchronous.Type

/** What `layerSqlite` is made with. */
export const SqliteOptions = Schema.Struct({
  ...SessionStore.Options.fields,
  /** The database file (created when missing). */
  filename: Schema.NonEmptyString,
  /** Default `FULL`: every commit is on disk when it returns. */
  synchronous: Schema.optionalWith(Synchronous, { exact: true })
}).annotations({ identifier: "SqlSessionStore.SqliteOptions" })
export type SqliteOptions = typeof SqliteOptions.Type

const decodeOptions = Decode.options("SqlSessionStore.make", SessionStore.Options)
const decodeSqlite = Decode.options("SqlSessionStore.layerSqlite", SqliteOptions)

/** What went wrong in words: an error's message, followed by its cause's (a `SqlError` keeps the database's reason there). */
const describe = (e: unknown): string => {
  if (!(e instanceof Error)) return String(e)
  const cause = e.cause instanceof Error && e.cause.message !== "" && e.cause.message !== e.message ? `: ${e.cause.message}` : ""
  return `${e.message.trim()}${cause}`
}

const failure = (operation: string, e: unknown) => new Errors.SessionStoreError({ session: "", operation, detail: describe(e) })

/**
 * Brings the tables up to date. Two processes opening a new database together race on the first migration:
 * the loser retries until the winner's migration has committed (about 5 seconds at most).
 */
const migrate = Effect.zipRight(Migrations.run, Migrations.ready).pipe(
  Effect.catchAllDefect((defect) => Effect.fail(defect)),
  Effect.retry(Schedule.intersect(Schedule.recurs(8), Schedule.exponential("20 millis"))),
  Effect.mapError((e) => failure("migrate", e)),
  Effect.asVoid
)

/** A store over the `SqlClient` in context, its tables created or migrated first. */
export const make = (options: Options = {}): Effect.Effect<SessionStore.Service, Errors.SessionStoreError | Errors.InvalidOptions, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const decoded = yield* decodeOptions(options)
    yield* migrate
    return yield* Store.make(decoded.maxValueLength ?? SessionStore.defaultMaxValueLength)
  })

/** `SessionStore` over the app's `SqlClient` (a `PgClient` layer for Postgres), with default options. */
export const layer: Layer.Layer<SessionStore.SessionStore, Errors.SessionStoreError | Errors.InvalidOptions, SqlClient.SqlClient> = Layer.effect(
  SessionStore.SessionStore,
  make()
)

/** `SessionStore` over the app's `SqlClient` with `options`. */
export const layerWith = (options: Options): Layer.Layer<SessionStore.SessionStore, Errors.SessionStoreError | Errors.InvalidOptions, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore, make(options))

/**
 * Pages the write-ahead log takes before it is checkpointed (SQLite's default is 1,000, about 4 MB; this is
 * about 40 MB): a checkpoint syncs the log and the database (with `NORMAL` the only syncs there are), and a
 * one-call turn writes 14 pages, so at the default one turn in seventy paid for two syncs. Ten times fewer
 * checkpoints, each copying a page rewritten meanwhile once, cut the time a turn spends in SQLite by a
 * third to a half on the bench machine. Durability is the same: a commit is in the log either way.
 */
const walCheckpointPages = 10_000

/** `SessionStore` on a SQLite file in WAL mode (one process; `synchronous` `FULL` unless told). */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SessionStore.SessionStore, Errors.SessionStoreError | Errors.InvalidOptions> =>
  Layer.unwrapEffect(Effect.map(decodeSqlite(options), (decoded) => {
    const pragmas = Layer.effectDiscard(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`PRAGMA synchronous = ${decoded.synchronous ?? "FULL"}`)
      yield* sql.unsafe(`PRAGMA wal_autocheckpoint = ${walCheckpointPages}`)
    }).pipe(Effect.mapError((e) => failure("open", e))))
    // a missing folder or a file that is no database fails while the connection opens
    const client = Sqlite.layer(decoded.filename).pipe(Layer.catchAllCause((cause) => Layer.fail(failure("open", Cause.squash(cause)))))
    const { filename: _, synchronous: __, ...storeOptions } = decoded
    return layerWith(storeOptions).pipe(Layer.provideMerge(pragmas), Layer.provide(client))
  }))

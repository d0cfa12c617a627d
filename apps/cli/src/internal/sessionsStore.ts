/**
 * The session store `toolgate sessions` reads, chosen by `--db`: a `postgres://` or `postgresql://` URL is
 * Postgres (`@effect/sql-pg`), anything else the path of a SQLite file. Reading never creates anything: a
 * SQLite file must exist and is opened read-only, and a database without toolgate's tables is refused
 * before the store's migrator could create them.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { BadInput } from "./input.js"

/** Where the sessions are: a Postgres server or a SQLite file, and how messages name it. */
export type Database =
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string>; readonly name: string }
  | { readonly _tag: "Sqlite"; readonly filename: string; readonly name: string }

/** Whether `--db` names a Postgres server. */
export const isPostgres = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/** The first 16 bytes of every SQLite database file. */
const sqliteHeader = "SQLite format 3\u0000"

/** A failure of the database (connecting, reading), as the store's own error. */
const failed = (operation: string, name: string) => (e: { readonly message: string; readonly cause?: unknown }) =>
  new Errors.SessionStoreError({
    session: "",
    operation,
    detail: `${name}: ${e.message}${e.cause instanceof Error && e.cause.message !== "" ? ` (${e.cause.message})` : ""}`
  })

/** A Postgres URL, its password hidden in how it is named. */
const postgres = (db: string) =>
  Effect.gen(function*() {
    const url = yield* Effect.try({
      try: () => new URL(db),
      catch: () => new BadInput({ message: `--db is not a valid Postgres URL: ${JSON.stringify(db.replace(/:[^:@/]*@/, ":***@"))}.` })
    })
    if (url.password !== "") url.password = "***"
    return { _tag: "Postgres", url: Redacted.make(db), name: url.href } satisfies Database
  })

/** A SQLite file that exists, is a regular file and starts with SQLite's header. */
const sqlite = (filename: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const unreadable = (e: { readonly message: string }) => new BadInput({ message: `The database file ${filename} cannot be read: ${e.message}` })
    if (!(yield* Effect.mapError(fs.exists(filename), unreadable))) {
      return yield* new BadInput({ message: `The database file ${filename} does not exist (reading never creates one).` })
    }
    const info = yield* Effect.mapError(fs.stat(filename), unreadable)
    if (info.type !== "File") return yield* new BadInput({ message: `The database ${filename} is not a file.` })
    const head = yield* Effect.scoped(Effect.flatMap(fs.open(filename, { flag: "r" }), (file) => file.readAlloc(16))).pipe(Effect.mapError(unreadable))
    const text = head._tag === "Some" ? new TextDecoder("latin1").decode(head.value) : ""
    if (text !== sqliteHeader) return yield* new BadInput({ message: `The file ${filename} is not a SQLite database.` })
    return { _tag: "Sqlite", filename, name: filename } satisfies Database
  })

/** What `--db` names. */
export const database = (db: string): Effect.Effect<Database, BadInput, FileSystem.FileSystem> =>
  db === "" ? new BadInput({ message: "--db must name a SQLite file or a postgres:// URL." }) : isPostgres(db) ? postgres(db) : sqlite(db)

/** The `SqlClient` on the database: a SQLite file read-only, or Postgres within `timeout` seconds. */
const client = (db: Database, timeout: number): Layer.Layer<SqlClient.SqlClient, Errors.SessionStoreError> =>
  (db._tag === "Postgres"
    ? PgClient.layer({ url: db.url, connectTimeout: Duration.seconds(timeout), maxConnections: 1, applicationName: "toolgate sessions" })
    : SqliteClient.layer({ filename: db.filename, readonly: true, disableWAL: true })).pipe(Layer.mapError(failed("open", db.name)))

/** Whether the database holds toolgate's tables (their migrations table). */
const hasTables = (db: Database) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      pg: () => sql<{ name: string | null }>`SELECT to_regclass('toolgate_migrations')::text AS name`,
      orElse: () => sql<{ name: string | null }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'toolgate_migrations'`
    })
    return rows.some((row) => row.name !== null)
  }).pipe(Effect.mapError(failed("open", db.name)))

/** The store on `db` (for the scope): `BadInput` when the database holds no toolgate sessions. */
export const open = (db: Database, timeout: number): Effect.Effect<SessionStore.Service, BadInput | Errors.SessionStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* Layer.build(client(db, timeout))
    if (!(yield* Effect.provide(hasTables(db), sql))) {
      return yield* new BadInput({ message: `The database ${db.name} holds no toolgate sessions (it has no toolgate_migrations table).` })
    }
    const store = yield* Layer.build(Layer.provide(SqlSessionStore.layer, Layer.succeedContext(sql))).pipe(
      Effect.catchTag("InvalidOptions", Effect.die)
    )
    return Context.get(store, SessionStore.SessionStore)
  })

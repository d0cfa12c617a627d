/**
 * Every store the suite runs against, behind one shape: `open` gives a store instance on the backend's data
 * (a second `open` is a second instance on the same data: a new connection, as another process would have),
 * and the SQL backends can write a row behind the store's back (`corrupt`).
 */
import { PgClient } from "@effect/sql-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { afterAll, beforeAll } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import * as Pg from "./postgres.js"

/** A backend: store instances on shared data. */
export interface Backend {
  readonly name: "memory" | "sqlite" | "postgres"
  /** A store instance (for the scope) on this backend's data. */
  readonly open: (options?: SessionStore.Options) => Effect.Effect<SessionStore.Service, never, Scope.Scope>
  /** Runs SQL on the backend's database (SQL backends only). */
  readonly exec: ((statement: string) => Effect.Effect<void, never, Scope.Scope>) | undefined
}

const build = <E>(layer: Layer.Layer<SessionStore.SessionStore, E>) =>
  Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, SessionStore.SessionStore)).pipe(Effect.orDie)

/** A fresh in-memory store: every `open` is the same instance (memory is one process's). */
export const memory: Effect.Effect<Backend> = Effect.gen(function*() {
  const store = yield* SessionStore.makeMemory({})
  return {
    name: "memory",
    open: (options) => options === undefined ? Effect.succeed(store) : SessionStore.makeMemory(options),
    exec: undefined
  } satisfies Backend
})

/** A store instance on the SQLite file `filename`. */
export const openSqlite = (filename: string, options?: Omit<SqlSessionStore.SqliteOptions, "filename">) =>
  build(SqlSessionStore.layerSqlite({ filename, ...options }))

/** The name of a SQLite file (not yet created) in a fresh temporary directory, removed with the scope. */
export const tempSqliteFile: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sqlite-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  ),
  (dir) => path.join(dir, "sessions.sqlite")
)

/** A fresh SQLite file in a temporary directory (removed with the scope). */
export const sqlite: Effect.Effect<Backend & { readonly filename: string }, never, Scope.Scope> = Effect.gen(function*() {
  const filename = yield* tempSqliteFile
  return {
    name: "sqlite",
    filename,
    open: (options) => openSqlite(filename, options),
    exec: (statement) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.orDie)
  } satisfies Backend & { readonly filename: string }
})

/** Stores on the Postgres cluster at `port` (one database shared by the tests; each uses its own session ids). */
export const postgres = (port: number): Backend => {
  const client = PgClient.layer({ host: "127.0.0.1", port, username: "postgres", database: "postgres", maxConnections: 20 })
  return {
    name: "postgres",
    open: (options) => build(SqlSessionStore.layerWith(options ?? {}).pipe(Layer.provide(client))),
    exec: (statement) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(client), Effect.orDie)
  }
}

/** A session id no other test uses. */
export const sessionId = (label: string): string => `${label}-${crypto.randomUUID()}`

/** A throwaway Postgres cluster for the suite that calls this (started before its tests, stopped after): its port. */
export const clusterForSuite = (): () => number => {
  let scope: Scope.CloseableScope | undefined
  let port = 0
  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    port = (await Effect.runPromise(Scope.extend(Pg.cluster, scope))).port
  }, 180_000)
  afterAll(() => scope === undefined ? undefined : Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)
  return () => port
}

/**
 * The three backends for a test file: memory, SQLite (`sqliteBackend`, a fresh file by default) and Postgres,
 * on a throwaway cluster started before the file's tests and stopped after them (it fails them loudly when
 * none can start).
 */
export const everyStore = (
  sqliteBackend: Effect.Effect<Backend, never, Scope.Scope> = sqlite
): ReadonlyArray<readonly [Backend["name"], Effect.Effect<Backend, never, Scope.Scope>]> => {
  const pgPort = clusterForSuite()
  return [
    ["memory", memory],
    ["sqlite", sqliteBackend],
    ["postgres", Effect.sync(() => postgres(pgPort()))]
  ]
}

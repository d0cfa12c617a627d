/**
 * Two processes opening a new SQLite file together: the second finds the first migrating (its migration row
 * and tables written, not committed). `@effect/sql`'s migrator takes that for "already running" and answers
 * at once; the store waits until the tables are there rather than failing its first statement.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option } from "effect"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import * as Migrations from "../src/internal/migrations.js"
import { tempSqliteFile } from "./support/backends.js"

describe("SqlSessionStore.layerSqlite on a file another process is migrating", () => {
  it.scopedLive("waits for the other's migration to commit, then works", () =>
    Effect.gen(function*() {
      const filename = yield* tempSqliteFile
      const other = yield* Layer.build(SqliteClient.layer({ filename }))
      // the other process: the migrations table made (and committed), then the migration run in a transaction it holds open
      yield* Migrator.make({})({ loader: Migrator.fromRecord({}), table: "toolgate_migrations" }).pipe(Effect.provide(other))
      const migrated = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const migrating = yield* Effect.fork(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.zipRight(Migrations.run, Effect.zipRight(Deferred.succeed(migrated, undefined), Deferred.await(commit))))
      ).pipe(Effect.provide(other)))
      yield* Deferred.await(migrated)
      const opening = yield* Effect.fork(Effect.scoped(Effect.gen(function*() {
        const store = yield* Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename })), (ctx) => Context.get(ctx, SessionStore.SessionStore))
        return yield* store.load("support-42")
      })))
      yield* Effect.sleep("300 millis")
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(migrating)
      assert.isTrue(Option.isNone(yield* Fiber.join(opening)))
    }), 60_000)
})

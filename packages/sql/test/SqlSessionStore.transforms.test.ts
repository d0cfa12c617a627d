/**
 * An app's SQL client may rename columns and identifiers (`transformResultNames: String.snakeToCamel` is common
 * with `PgClient`): the store's SQL and the columns it reads are its own, so a store on such a client, on
 * SQLite and on Postgres, reads back exactly what it wrote.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Context, Effect, Layer, Option, Scope, String } from "effect"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { clusterForSuite, sessionId, tempSqliteFile } from "./support/backends.js"
import * as F from "./support/fixtures.js"

const transforms = { transformResultNames: String.snakeToCamel, transformQueryNames: String.camelToSnake }

const pgPort = clusterForSuite()

const clients: ReadonlyArray<readonly [string, Effect.Effect<Layer.Layer<SqlClient.SqlClient>, never, Scope.Scope>]> = [
  ["sqlite", Effect.map(tempSqliteFile, (filename) => Layer.orDie(SqliteClient.layer({ filename, ...transforms })))],
  ["postgres", Effect.sync(() => Layer.orDie(PgClient.layer({ host: "127.0.0.1", port: pgPort(), username: "postgres", database: "postgres", ...transforms })))]
]

describe.each(clients)("a store on a %s client that renames columns", (_name, makeClient) => {
  it.scopedLive("reads back what it wrote: the lease, the journal, the turns, the list", () =>
    Effect.gen(function*() {
      const client = yield* makeClient
      const store = Context.get(yield* Layer.build(Layer.provide(SqlSessionStore.layer, client).pipe(Layer.orDie)), SessionStore.SessionStore)
      const id = sessionId("renamed")
      const now = yield* Clock.currentTimeMillis
      const lease = yield* store.acquire(id, "worker-a", "30 seconds")
      assert.isTrue(lease.expiresAt >= now + 30_000 && lease.expiresAt < now + 60_000, `expires at ${lease.expiresAt}`)
      yield* store.commitTurn({ ...F.oneCallTurn(id, 1), owner: "worker-a" })
      yield* store.callStarted({ ...F.start(id, 2, "call_2", { n: 2 }, [F.user("write 2")]), owner: "worker-a" })
      yield* store.callFinished({ session: id, turn: 2, callId: "call_2", envelope: F.ok({ written: 2 }) })
      const busy = yield* Effect.flip(store.acquire(id, "worker-b", "30 seconds"))
      assert.deepStrictEqual([busy._tag, busy._tag === "SessionBusy" ? busy.holder : ""], ["SessionBusy", "worker-a"])
      const pending = Option.getOrThrow(yield* store.load(id))
      assert.deepStrictEqual([pending.nextTurn, pending.pending.map((p) => p.calls.map((c) => [c.callId, c.envelope]))], [3, [[["call_2", F.ok({ written: 2 })]]]])
      yield* store.commitTurn({ ...F.oneCallTurn(id, 2), owner: "worker-a" })
      const stored = Option.getOrThrow(yield* store.load(id))
      assert.deepStrictEqual([stored.nextTurn, stored.pending, stored.snapshot.history.length, stored.snapshot.usage?.inputTokens], [3, [], 8, 102])
      assert.deepStrictEqual((yield* store.list).filter((s) => s.id === id).map((s) => [s.turns, s.messages, s.lease?.owner]), [[2, 8, "worker-a"]])
    }))
})

/**
 * `layerSqlite` lets the write-ahead log grow to `wal_autocheckpoint` pages before a checkpoint (whose syncs
 * are the costly part of a commit with `synchronous=NORMAL`), not SQLite's 1,000: read back from another
 * connection, the log still holds every page written since the store opened.
 */
import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { openSqlite, tempSqliteFile } from "./support/backends.js"

describe("SqlSessionStore.layerSqlite's write-ahead log", () => {
  it.scoped("is not checkpointed at SQLite's default of 1,000 pages", () =>
    Effect.gen(function*() {
      const filename = yield* tempSqliteFile
      const store = yield* openSqlite(filename, { synchronous: "NORMAL" })
      // 30 turns of 400 KB each: about 3,000 pages of 4 KB written to the log
      for (let turn = 1; turn <= 30; turn++) {
        yield* store.commitTurn({ session: "s", turn, messages: [{ _tag: "User", text: String(turn).padEnd(400_000, "x") }], results: [] })
      }
      const [frames] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ log: number }>("PRAGMA wal_checkpoint(PASSIVE)")).pipe(
        Effect.provide(SqliteClient.layer({ filename })),
        Effect.orDie
      )
      assert.isAbove(frames!.log, 2_000, `the log holds ${frames!.log} pages`)
    }))
})

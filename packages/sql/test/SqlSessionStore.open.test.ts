/**
 * Opening a SQLite store on a path it cannot use fails typed, naming the operation and the database's own
 * reason, never as a defect: a folder that does not exist, a file that is no database.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlSessionStore } from "@toolgate/sql"

const open = (filename: string) => Effect.exit(Effect.scoped(Layer.build(SqlSessionStore.layerSqlite({ filename }))))

const failureOf = (exit: Exit.Exit<unknown, unknown>) => {
  assert.isTrue(Exit.isFailure(exit))
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
  assert.isTrue(failure !== undefined && failure._tag === "Some", "a typed failure, not a defect")
  return (failure as { value: { _tag: string; operation?: string; detail?: string } }).value
}

describe("SqlSessionStore.layerSqlite on a path it cannot use", () => {
  it.effect("a folder that does not exist: SessionStoreError (open), saying why", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-open-"))
      const e = failureOf(yield* open(path.join(dir, "missing", "sessions.sqlite")))
      assert.strictEqual(e._tag, "SessionStoreError")
      assert.strictEqual(e.operation, "open")
      assert.match(e.detail!, /directory does not exist/)
    }))

  it.effect("a file that is no database: SessionStoreError, the file left as it was", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-open-"))
      const file = path.join(dir, "notes.sqlite")
      const text = "these are notes, not a database\n".repeat(200)
      fs.writeFileSync(file, text)
      const e = failureOf(yield* open(file))
      assert.strictEqual(e._tag, "SessionStoreError")
      assert.match(e.detail!, /not a database/)
      assert.strictEqual(fs.readFileSync(file, "utf8"), text)
    }))
})

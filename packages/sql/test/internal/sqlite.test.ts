/**
 * The SQLite connection of `layerSqlite` and its hot path (`Direct`): a transaction commits or leaves
 * nothing, whatever ends it (a failure, an interruption, a commit the database refuses); a statement on its
 * own never lands inside another fiber's open transaction; the client's own transactions (the migrator's)
 * share the lock; and any interleaving of concurrent transactions and statements ends as the serial model
 * says (a property).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Ref } from "effect"
import fc from "fast-check"
import * as Sqlite from "../../src/internal/sqlite.js"
import { run } from "../../src/internal/transaction.js"
import { tempSqliteFile } from "../support/backends.js"

/** The client and the hot path on a fresh file with a table `t (v TEXT)`, for as long as the scope is open. */
const connection = Effect.gen(function*() {
  const filename = yield* tempSqliteFile
  const context = yield* Layer.build(Sqlite.layer(filename))
  const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  const direct = Effect.runSync(Effect.provide(Sqlite.DirectTag, context))
  yield* sql`CREATE TABLE t (v TEXT NOT NULL)`
  /** One statement on its own through the hot path (what the store's `tx(…, false)` does). */
  const lone = <A extends object>(statement: Statement.Statement<A>) => Effect.provideService(run(statement), Sqlite.LoneConnection, direct.lone)
  const insert = (v: string) => run(sql`INSERT INTO t (v) VALUES (${v})`)
  const values = Effect.map(sql<{ v: string }>`SELECT v FROM t ORDER BY v`, (rows) => rows.map((r) => r.v))
  return { sql, direct, lone, insert, values }
})

const failed = <E>(exit: Exit.Exit<unknown, E>): E | undefined => Exit.isFailure(exit) ? Cause.failureOption(exit.cause).pipe((o) => o._tag === "Some" ? o.value : undefined) : undefined

describe("Sqlite.Direct", () => {
  it.scoped("a transaction commits what its body wrote; one whose body fails leaves nothing, and the next one runs", () =>
    Effect.gen(function*() {
      const { direct, insert, values } = yield* connection
      yield* direct.transaction(Effect.zipRight(insert("a"), insert("b")))
      const exit = yield* Effect.exit(direct.transaction(Effect.zipRight(insert("c"), Effect.fail("refused" as const))))
      assert.strictEqual(failed(exit), "refused")
      yield* direct.transaction(insert("d"))
      assert.deepStrictEqual(yield* values, ["a", "b", "d"])
    }))

  it.scoped("a transaction inside a transaction is a savepoint: its failure takes back its own writes only", () =>
    Effect.gen(function*() {
      const { direct, insert, values } = yield* connection
      yield* direct.transaction(Effect.gen(function*() {
        yield* insert("outer")
        yield* Effect.ignore(direct.transaction(Effect.zipRight(insert("inner, taken back"), Effect.fail("refused" as const))))
        yield* direct.transaction(insert("inner, kept"))
      }))
      assert.deepStrictEqual(yield* values, ["inner, kept", "outer"])
    }))

  it.scoped("an interrupted transaction rolls back and frees the connection", () =>
    Effect.gen(function*() {
      const { direct, insert, values } = yield* connection
      const inside = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(direct.transaction(Effect.zipRight(insert("lost"), Effect.zipRight(Deferred.succeed(inside, undefined), Effect.never))))
      yield* Deferred.await(inside)
      yield* Fiber.interrupt(fiber)
      yield* direct.transaction(insert("kept"))
      assert.deepStrictEqual(yield* values, ["kept"])
    }))

  it.scoped("a statement on its own while another fiber's transaction is open waits for it, and is not rolled back with it", () =>
    Effect.gen(function*() {
      const { direct, insert, lone, sql, values } = yield* connection
      const log = yield* Ref.make<Array<string>>([])
      const inside = yield* Deferred.make<void>()
      const goOn = yield* Deferred.make<void>()
      const transaction = yield* Effect.fork(Effect.exit(direct.transaction(Effect.gen(function*() {
        yield* insert("rolled back")
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(goOn)
        yield* Ref.update(log, (l) => [...l, "transaction ends"])
        return yield* Effect.fail("refused" as const)
      }))))
      yield* Deferred.await(inside)
      const statement = yield* Effect.fork(Effect.zipRight(lone(sql`INSERT INTO t (v) VALUES (${"on its own"})`), Ref.update(log, (l) => [...l, "statement ran"])))
      yield* Effect.repeatN(Effect.yieldNow(), 50)
      assert.deepStrictEqual(yield* Ref.get(log), [], "the statement waits while the transaction is open")
      yield* Deferred.succeed(goOn, undefined)
      assert.strictEqual(failed(yield* Fiber.join(transaction)), "refused")
      yield* Fiber.join(statement)
      assert.deepStrictEqual(yield* Ref.get(log), ["transaction ends", "statement ran"])
      assert.deepStrictEqual(yield* values, ["on its own"])
    }))

  it.scoped("the client's own transactions (the migrator's) hold the same lock", () =>
    Effect.gen(function*() {
      const { direct, insert, lone, sql, values } = yield* connection
      const inside = yield* Deferred.make<void>()
      const goOn = yield* Deferred.make<void>()
      const clientTransaction = yield* Effect.fork(Effect.exit(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (v) VALUES (${"client, rolled back"})`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(goOn)
        return yield* Effect.fail("refused" as const)
      }))))
      yield* Deferred.await(inside)
      const others = yield* Effect.fork(Effect.all([direct.transaction(insert("direct")), lone(sql`INSERT INTO t (v) VALUES (${"lone"})`)], { concurrency: 2 }))
      yield* Effect.repeatN(Effect.yieldNow(), 50) // both reach the connection and wait
      yield* Deferred.succeed(goOn, undefined)
      assert.strictEqual(failed(yield* Fiber.join(clientTransaction)), "refused")
      yield* Fiber.join(others)
      assert.deepStrictEqual(yield* values, ["direct", "lone"])
    }))

  it.scoped("a commit the database refuses fails typed and leaves nothing; the connection goes on", () =>
    Effect.gen(function*() {
      const { direct, sql, values } = yield* connection
      yield* sql`PRAGMA foreign_keys = ON`
      yield* sql`CREATE TABLE parent (id INTEGER PRIMARY KEY)`
      yield* sql`CREATE TABLE child (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`
      const exit = yield* Effect.exit(direct.transaction(Effect.zipRight(run(sql`INSERT INTO t (v) VALUES (${"with an orphan"})`), run(sql`INSERT INTO child (parent) VALUES (${42})`))))
      const error = failed(exit) as SqlError | undefined
      assert.strictEqual(error?._tag, "SqlError")
      assert.match(error!.message, /Failed to commit/)
      assert.match(String((error!.cause as Error).message), /FOREIGN KEY/)
      assert.deepStrictEqual(yield* values, [])
      yield* direct.transaction(run(sql`INSERT INTO t (v) VALUES (${"after"})`))
      assert.deepStrictEqual(yield* values, ["after"])
    }))

  it.scoped("hostile statements fail typed, inside a transaction and on their own; nothing is left behind", () =>
    Effect.gen(function*() {
      const { direct, insert, lone, sql, values } = yield* connection
      const inside = failed(yield* Effect.exit(direct.transaction(Effect.zipRight(insert("x"), run(sql`INSERT INTO nowhere VALUES (1)`)))))
      assert.strictEqual(inside?._tag, "SqlError")
      const alone = failed(yield* Effect.exit(lone(sql`SELEC nothing`)))
      assert.strictEqual(alone?._tag, "SqlError")
      const nul = failed(yield* Effect.exit(lone(sql`INSERT INTO t (v) VALUES (${null as unknown as string})`)))
      assert.match(String((nul as SqlError).cause), /NOT NULL/)
      assert.deepStrictEqual(yield* values, [])
    }))

  it.scoped("more distinct statements than it keeps prepared: each still runs its own text", () =>
    Effect.gen(function*() {
      const { lone, sql, values } = yield* connection
      for (let i = 0; i < 300; i++) yield* lone(sql.unsafe(`INSERT INTO t (v) VALUES ('${String(i).padStart(3, "0")}') -- ${i}`))
      for (let i = 0; i < 3; i++) yield* lone(sql.unsafe(`INSERT INTO t (v) VALUES ('${String(i).padStart(3, "0")}') -- ${i}`))
      const all = yield* values
      assert.strictEqual(all.length, 303)
      assert.deepStrictEqual(all.slice(0, 6), ["000", "000", "001", "001", "002", "002"])
    }))

  it("any interleaving of transactions (some failing) and statements on their own ends as the serial model says", async () => {
    const step = fc.record({
      kind: fc.constantFrom("commit", "fail", "lone"),
      rows: fc.integer({ min: 1, max: 3 }),
      yields: fc.integer({ min: 0, max: 3 })
    })
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const outcome = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const { direct, insert, lone, sql, values } = yield* connection
          yield* Effect.forEach(steps, (s, i) => {
            const rows = Array.from({ length: s.rows }, (_, r) => `${String(i).padStart(2, "0")}.${r}`)
            const writes = Effect.forEach(rows, (v) => Effect.zipRight(insert(v), Effect.repeatN(Effect.yieldNow(), s.yields)), { discard: true })
            if (s.kind === "lone") return lone(sql`INSERT INTO t (v) VALUES (${rows[0]!})`)
            return Effect.ignore(direct.transaction(s.kind === "commit" ? writes : Effect.zipRight(writes, Effect.fail("refused"))))
          }, { concurrency: "unbounded", discard: true })
          return yield* values
        })))
        const expected = steps.flatMap((s, i) => s.kind === "fail" ? [] : Array.from({ length: s.kind === "lone" ? 1 : s.rows }, (_, r) => `${String(i).padStart(2, "0")}.${r}`))
        assert.deepStrictEqual(outcome, expected.sort())
      }),
      { numRuns: 60 }
    )
  })
})

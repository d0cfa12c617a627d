/**
 * The SQLite connection of `layerSqlite`: one better-sqlite3 database in WAL mode behind `@effect/sql`'s
 * `SqlClient` (the migrator and every read go through the client), and `Direct`, the store's hot path on the
 * same connection. better-sqlite3 runs a statement synchronously, so a statement cannot interleave with
 * another; what must not interleave is a transaction left open while its fiber yields. A transaction holds
 * the connection's lock from its `BEGIN` to its `COMMIT` or `ROLLBACK`, and a statement on its own runs at
 * once unless a transaction is open, checked in the same synchronous step that runs it (else it waits for
 * the lock). Statements are prepared once per text (`BEGIN` and `COMMIT` included), kept in a plain map.
 *
 * `Direct` exists for speed: a journaled call, its envelope and a turn's commit are the store's writes on
 * every turn, and `@effect/sql`'s transaction and statement wrappers (a span, a scope, a lock and a cache
 * lookup each) cost about as much Effect work as the in-memory store's whole turn (see the store bench).
 * The store's operations keep their own spans (`SessionStore.traced`); these statements have none.
 *
 * @internal
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { createRequire } from "node:module"

/** The members of better-sqlite3 this module uses (the package ships no types). */
interface Database {
  readonly inTransaction: boolean
  prepare(sql: string): Prepared
  pragma(source: string): unknown
  close(): void
}
interface Prepared {
  readonly reader: boolean
  all(...params: ReadonlyArray<unknown>): Array<any>
  run(...params: ReadonlyArray<unknown>): unknown
  raw(toggle: boolean): Prepared
}
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new(filename: string) => Database

/** The store's hot path on the connection (see the module's comment). */
export interface Direct {
  /** Runs `body` in one transaction (`BEGIN` … `COMMIT`, `ROLLBACK` when it fails), its statements on the connection; inside one, as a savepoint. */
  readonly transaction: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
  /** The connection a statement on its own runs on: at once, or after the open transaction closes. */
  readonly lone: Connection
}

/** `Direct` of the connection in context (only `layer` provides it). */
export class DirectTag extends Context.Tag("@toolgate/sql/Sqlite/Direct")<DirectTag, Direct>() {}

/** The connection `run` uses for a statement on its own, provided by the store's `tx` (see `transaction.ts`). */
export class LoneConnection extends Context.Tag("@toolgate/sql/Sqlite/LoneConnection")<LoneConnection, Connection>() {}

/** How many prepared statements are kept (the store's statements are a few dozen texts). */
const maxStatements = 256

const failed = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/** `f`'s value, or its exception as a `SqlError`. */
const attempt = <A>(f: () => A, message = "Failed to execute statement"): Effect.Effect<A, SqlError> => {
  try {
    return Effect.succeed(f())
  } catch (cause) {
    return Effect.fail(failed(message)(cause))
  }
}

const make = (filename: string) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => new Sqlite(filename), catch: failed(`Failed to open ${filename}`) }),
      (db) => Effect.sync(() => db.close())
    )
    yield* Effect.try({ try: () => db.pragma("journal_mode = WAL"), catch: failed("Failed to enter WAL mode") })

    const statements = new Map<string, Prepared>()
    const prepared = (sql: string): Prepared => {
      let statement = statements.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        if (statements.size >= maxStatements) statements.delete(statements.keys().next().value!)
        statements.set(sql, statement)
      }
      return statement
    }
    const rows = (sql: string, params: ReadonlyArray<unknown>): ReadonlyArray<any> => {
      const statement = prepared(sql)
      if (statement.reader) return statement.all(...params)
      statement.run(...params)
      return []
    }
    const values = (sql: string, params: ReadonlyArray<unknown>): ReadonlyArray<any> => {
      const statement = prepared(sql)
      if (!statement.reader) {
        statement.run(...params)
        return []
      }
      try {
        return statement.raw(true).all(...params)
      } finally {
        statement.raw(false)
      }
    }
    const info = (sql: string, params: ReadonlyArray<unknown>): any => {
      const statement = prepared(sql)
      return statement.reader ? statement.all(...params) : statement.run(...params)
    }

    const lock = yield* Effect.makeSemaphore(1)
    /** A transaction holds the lock (from before its `BEGIN` to after its `COMMIT` or `ROLLBACK`). */
    let open = false

    /** A connection whose every statement runs through `guard`. */
    const connection = (guard: <A>(f: () => A) => Effect.Effect<A, SqlError>): Connection => {
      const execute: Connection["execute"] = (sql, params, transform) =>
        guard(() => transform === undefined ? rows(sql, params) : transform(rows(sql, params)))
      return {
        execute,
        executeRaw: (sql, params) => guard(() => info(sql, params)),
        executeValues: (sql, params) => guard(() => values(sql, params) as ReadonlyArray<ReadonlyArray<unknown>>),
        executeUnprepared: (sql, params, transform) => execute(sql, params ?? [], transform),
        executeStream: () => Effect.dieMessage("a SQLite statement is not read as a stream here")
      }
    }
    /** Inside a transaction (its fiber holds the lock). */
    const held = connection((f) => Effect.suspend(() => attempt(f)))
    /** On its own: at once when no transaction is open, checked in the step that runs it; else after the lock. */
    const lone = connection((f) => Effect.suspend(() => open ? lock.withPermits(1)(Effect.suspend(() => attempt(f))) : attempt(f)))

    const release = Effect.suspend(() => {
      open = false
      return lock.release(1)
    })
    // the client's own transactions (the migrator's) take the lock for as long as their scope is open
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(lock.take(1)),
        Effect.flatMap(Effect.scope, (scope) =>
          Effect.zipRight(
            Scope.addFinalizer(scope, release),
            Effect.sync(() => {
              open = true
              return held
            })
          ))
      )
    )
    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(lone),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    /** Rolls the open transaction back (SQLite may have done so itself after some errors): the failure, if it could not. */
    const rollback = (): SqlError | undefined => {
      if (!db.inTransaction) return undefined
      try {
        rows("ROLLBACK", [])
        return undefined
      } catch (cause) {
        return failed("Failed to roll back")(cause)
      }
    }

    /** Closes the open transaction: `COMMIT` after a success (a refused commit is rolled back), else `ROLLBACK`. */
    const close = <A, E>(exit: Exit.Exit<A, E>): Effect.Effect<A, E | SqlError> => {
      if (Exit.isSuccess(exit)) {
        try {
          rows("COMMIT", [])
          return exit
        } catch (cause) {
          const refused = failed("Failed to commit")(cause)
          const stuck = rollback()
          return Effect.fail(stuck === undefined ? refused : failed(`${refused.message}; ${stuck.message}`)(cause))
        }
      }
      const stuck = rollback()
      return stuck === undefined ? exit : Effect.failCause(Cause.sequential(exit.cause, Cause.fail(stuck)))
    }

    /** One transaction of its own, holding the lock from `BEGIN` to its close. */
    const outermost = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(lock.take(1)),
          Effect.ensuring(
            Effect.suspend(() => {
              open = true
              return Effect.zipRight(
                attempt(() => rows("BEGIN", []), "Failed to begin a transaction"),
                Effect.flatMap(Effect.exit(restore(Effect.provideService(body, SqlClient.TransactionConnection, [held, 0] as const))), close)
              )
            }),
            release
          )
        )
      )

    // inside a transaction (its lock is this fiber's), a transaction is the client's savepoint in it
    const transaction = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
      Effect.contextWithEffect((context: Context.Context<R>) =>
        Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some" ? client.withTransaction(body) : outermost(body)
      )

    return { client, direct: { transaction, lone } satisfies Direct }
  })

/** `SqlClient` and `Direct` over the SQLite file `filename` (created when missing), in WAL mode. */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient | DirectTag, SqlError> =>
  Layer.scopedContext(Effect.map(make(filename), ({ client, direct }) => Context.make(SqlClient.SqlClient, client).pipe(Context.add(DirectTag, direct)))).pipe(
    Layer.provide(Reactivity.layer)
  )

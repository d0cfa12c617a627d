/**
 * What every part of the store is made with: the client, the limit on stored values, `tx`, which runs a
 * change in one transaction with the database's failures as `SessionStoreError`, and `run`, which runs each
 * of the store's statements (on the transaction's connection when there is one).
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import { Errors, SessionStore } from "@toolgate/runtime"
import * as Sqlite from "./sqlite.js"

/** Where a statement runs, for its error. */
export interface Site {
  readonly session: string
  readonly operation: string
}

/** Runs `effect` in one transaction (unless it is a single statement), the database's failures mapped to `SessionStoreError`. */
export type Tx = <A, E>(site: Site, effect: Effect.Effect<A, E>, transaction?: boolean) => Effect.Effect<A, Exclude<E, SqlError> | Errors.SessionStoreError>

/** The client, the value limit and the transaction runner. */
export interface Db {
  readonly sql: SqlClient.SqlClient
  /** Bounds every stored value (characters of JSON). */
  readonly limit: number
  readonly tx: Tx
}

/**
 * The store's context over `sql`; `limit` bounds every stored value. With `direct` (the SQLite connection of
 * `layerSqlite`), transactions and statements on their own take its hot path instead of the client's wrappers.
 */
export const make = (sql: SqlClient.SqlClient, limit: number, direct: Option.Option<Sqlite.Direct>): Db => {
  // decided once: where a transaction, and a statement on its own, run
  const transaction: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError> = Option.isSome(direct)
    ? direct.value.transaction
    : sql.withTransaction
  const alone: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E> = Option.isSome(direct)
    ? (effect) => Effect.provideService(effect, Sqlite.LoneConnection, direct.value.lone)
    : (effect) => effect
  return {
    sql,
    limit,
    tx: <A, E>(site: Site, effect: Effect.Effect<A, E>, inTransaction = true): Effect.Effect<A, Exclude<E, SqlError> | Errors.SessionStoreError> =>
      (inTransaction ? transaction(effect) : alone(effect)).pipe(
        Effect.mapError((e): Exclude<E, SqlError> | Errors.SessionStoreError =>
          e instanceof SqlError
            ? new Errors.SessionStoreError({ ...site, detail: `the database failed: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}` })
            : e as Exclude<E, SqlError>
        )
      )
  }
}

/**
 * Runs `statement` on the connection of the transaction it is in, under the transaction's span; outside one,
 * on the SQLite hot path's connection when `tx` provided it, else as a statement of its own (which opens a
 * scope and a span of its own, about three times what running it costs on SQLite). Either way without the
 * client's name transforms: the store's SQL and the columns it reads are its own, also on an app's `PgClient`
 * configured with `transformResultNames` or `transformQueryNames`.
 */
export const run = <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.contextWithEffect((context: Context.Context<never>) => {
    const connection = Option.orElse(Option.map(Context.getOption(context, SqlClient.TransactionConnection), ([held]) => held), () => Context.getOption(context, Sqlite.LoneConnection))
    if (Option.isNone(connection)) return statement.withoutTransform
    const [text, params] = statement.compile(true)
    return connection.value.execute(text, params, undefined)
  })

/** `value` as JSON text within the store's limit. */
export const enc = <A, I>(db: Db, schema: Schema.Schema<A, I>, value: A, site: Site) => SessionStore.encodeValue(schema, value, db.limit, site.session, site.operation)

/** Every value of `values` as JSON text within the store's limit. */
export const encAll = <A, I>(db: Db, schema: Schema.Schema<A, I>, values: ReadonlyArray<A>, site: Site) => Effect.forEach(values, (v) => enc(db, schema, v, site))

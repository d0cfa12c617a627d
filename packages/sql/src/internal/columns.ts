/**
 * How values sit in the store's columns: keys as JSON text, numbers read back, rows inserted in chunks.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { run } from "./transaction.js"

/**
 * A key column's text: the key as a JSON string. Keys (session ids, call ids, idempotency keys) come from
 * outside and may hold NUL (Postgres refuses it in text) or lone surrogates (UTF-8 cannot carry them, so two
 * such ids would become one); their JSON form is plain text, and equal exactly when the keys are.
 */
export const k = (key: string): string => JSON.stringify(key)

/** A row's number (Postgres answers `BIGINT` as text). */
export const num = (u: unknown): number => typeof u === "number" ? u : Number(u)

/** Inserts rows in chunks (both dialects cap the parameters of one statement). */
export const insertAll = (sql: SqlClient.SqlClient, table: string, rows: ReadonlyArray<Record<string, string | number | null>>) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(rows.length / 500) }, (_, i) => rows.slice(i * 500, i * 500 + 500)),
    (chunk) => run(sql`INSERT INTO ${sql(table)} ${sql.insert(chunk as Array<Record<string, string | number | null>>)}`),
    { discard: true }
  )

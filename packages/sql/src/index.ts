/**
 * @toolgate/sql: toolgate's session store on SQL (SQLite embedded, Postgres across replicas).
 *
 * @since 0.1.0
 */

/** `SessionStore` over `@effect/sql`: `layerSqlite({ filename })` embedded, `layer` over the app's `SqlClient` (Postgres). */
export * as SqlSessionStore from "./SqlSessionStore.js"

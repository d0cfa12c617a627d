import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cluster } from "../../../packages/sql/test/support/postgres.js"
import * as Seed from "./sessionsSeed.js"
import { toolgate, toolgateAsync } from "./toolgate.js"

const storeOf = <E, R>(layer: Layer.Layer<SessionStore.SessionStore, E, R>) =>
  Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, SessionStore.SessionStore)).pipe(Effect.orDie)

/** A SQLite file holding the seeded sessions (the store closed again), in a directory removed with the scope. */
const seeded = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "toolgate-sessions-"))),
    (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
  )
  const filename = join(dir, "sessions.sqlite")
  const { lease, snapshot } = yield* Effect.scoped(Effect.gen(function*() {
    const store = yield* storeOf(SqlSessionStore.layerSqlite({ filename }))
    const lease = yield* Seed.seed(store)
    return { lease, snapshot: Option.getOrThrow(yield* store.export(Seed.id)) }
  }))
  return { filename, lease, snapshot }
})

const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex")

// The real bin on a SQLite file the store API wrote: what an operator sees of the stored sessions.
describe("toolgate sessions on SQLite (the process)", () => {
  it.scopedLive("list prints one line per session: turns, messages, outstanding, pending, lease holder and expiry", () =>
    Effect.gen(function*() {
      const { filename, lease } = yield* seeded
      const before = digest(filename)
      const { code, stdout, stderr } = toolgate("sessions", "list", "--db", filename)
      assert.strictEqual(code, 0, stderr)
      const expires = new Date(lease.expiresAt).toISOString()
      assert.deepStrictEqual(stdout.trimEnd().split("\n"), [
        `"other"  turns 1  messages 2  outstanding 0  pending 0  lease none`,
        `"support-42"  turns 4  messages 7  outstanding 1  pending 1  lease "worker-7" until ${expires}`
      ])
      const json = toolgate("sessions", "list", "--db", filename, "--json")
      assert.strictEqual(json.code, 0, json.stderr)
      assert.deepStrictEqual(JSON.parse(json.stdout), {
        _tag: "Sessions",
        exitCode: 0,
        sessions: [
          { id: "other", turns: 1, messages: 2, outstanding: 0, pending: 0, lease: null },
          { id: Seed.id, turns: 4, messages: 7, outstanding: 1, pending: 1, lease: { owner: Seed.owner, expiresAt: lease.expiresAt, expires } }
        ]
      })
      // read-only: the file is the same bytes after reading
      assert.strictEqual(digest(filename), before)
    }))

  it.scopedLive("show prints the history summarized, the undo log, the outstanding effects, the pending turn and the lease", () =>
    Effect.gen(function*() {
      const { filename, lease } = yield* seeded
      const { code, stdout, stderr } = toolgate("sessions", "show", Seed.id, "--db", filename)
      assert.strictEqual(code, 0, stderr)
      const expires = new Date(lease.expiresAt).toISOString()
      assert.deepStrictEqual(stdout.trimEnd().split("\n"), [
        `session "support-42" in ${filename}: 4 turns started (next 5), 7 messages, 1 outstanding effect, 1 pending turn`,
        `lease: "worker-7" until ${expires}`,
        "history:",
        `  0 user      "write the report"`,
        `  1 assistant "→ write_file (call_1)"`,
        `  2 tool      "write_file (call_1) ok {\\"written\\":120}"`,
        `  3 assistant "Written."`,
        `  4 user      "delete the draft"`,
        `  5 user      "thanks"`,
        `  6 assistant "You are welcome."`,
        "undo log:",
        `  turn 1: messages 0–3, undo write_file (call_1, key "${Seed.key(1, "call_1")}")`,
        "outstanding effects:",
        `  turn 2: delete_file (call_2) key "${Seed.key(2, "call_2")}" reason no_undo`,
        "pending turns: (journaled, never committed nor rolled back)",
        `  turn 4: 2 messages, send_email (call_4) key "${Seed.key(4, "call_4")}" started, no answer`,
        "usage (last turn): 1 round trip, 0 repairs, 0 invalid rounds, 410 input and 6 output tokens"
      ])
      const json = toolgate("sessions", "show", Seed.id, "--db", filename, "--json")
      assert.strictEqual(json.code, 0, json.stderr)
      const shown = JSON.parse(json.stdout)
      assert.deepInclude(shown, { _tag: "Session", exitCode: 0, id: Seed.id, turns: 4, nextTurn: 5 })
      assert.deepStrictEqual(shown.history[2], { role: "tool", text: `write_file (call_1) ok {"written":120}` })
      assert.deepStrictEqual(shown.outstanding, [{ turn: 2, callId: "call_2", tool: "delete_file", idempotencyKey: Seed.key(2, "call_2"), reason: "no_undo" }])
      assert.deepStrictEqual(shown.pending, [{
        turn: 4,
        messages: 2,
        calls: [{ round: 1, callId: "call_4", tool: "send_email", idempotencyKey: Seed.key(4, "call_4"), answered: false }]
      }])
      assert.deepStrictEqual(shown.undoLog[0].steps, [{ callId: "call_1", tool: "write_file", idempotencyKey: Seed.key(1, "call_1") }])
      assert.deepStrictEqual(shown.lease, { owner: Seed.owner, expiresAt: lease.expiresAt, expires })
      assert.deepStrictEqual(shown.usage, { roundTrips: 1, repairs: 0, invalidRounds: 0, inputTokens: 410, outputTokens: 6 })
    }))

  it.scopedLive("export prints the SessionSnapshot the store exports, as JSON that decodes with its Schema", () =>
    Effect.gen(function*() {
      const { filename, snapshot } = yield* seeded
      for (const extra of [[], ["--json"]]) {
        const { code, stdout, stderr } = toolgate("sessions", "export", Seed.id, "--db", filename, ...extra)
        assert.strictEqual(code, 0, stderr)
        const exported = yield* Schema.decodeUnknown(SessionStore.SessionSnapshot)(JSON.parse(stdout))
        assert.deepStrictEqual(exported, snapshot)
        assert.strictEqual(exported.outstanding[0]?.idempotencyKey, Seed.key(2, "call_2"))
      }
    }))

  it.scopedLive("an unknown session: show and export exit 1 with SessionNotFound, nothing on stdout without --json", () =>
    Effect.gen(function*() {
      const { filename } = yield* seeded
      const shown = toolgate("sessions", "show", "nobody", "--db", filename, "--json")
      assert.strictEqual(shown.code, 1)
      assert.deepStrictEqual(JSON.parse(shown.stdout), {
        _tag: "SessionNotFound",
        exitCode: 1,
        message: `No session "nobody" in ${filename}.`,
        session: "nobody",
        database: filename
      })
      const exported = toolgate("sessions", "export", "nobody", "--db", filename)
      assert.strictEqual(exported.code, 1)
      assert.strictEqual(exported.stdout, "")
      assert.include(exported.stderr, `No session "nobody"`)
    }))
})

// One case on a real Postgres (a throwaway cluster: initdb, pg_ctl on a free loopback port).
describe("toolgate sessions on Postgres (the process)", () => {
  it.scopedLive("a database without toolgate's tables is refused (exit 4) and left without them; then list, show and export read the store", () =>
    Effect.gen(function*() {
      const { port } = yield* cluster
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`
      const client = PgClient.layer({ host: "127.0.0.1", port, username: "postgres", database: "postgres" })
      const empty = yield* Effect.promise(() => toolgateAsync("sessions", "list", "--db", url, "--json"))
      assert.strictEqual(empty.code, 4, empty.stderr)
      assert.include(JSON.parse(empty.stdout).message, "holds no toolgate sessions")
      const tables = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ name: string | null }>`SELECT to_regclass('toolgate_migrations')::text AS name`
      }).pipe(Effect.provide(client), Effect.orDie)
      assert.deepStrictEqual(tables, [{ name: null }])

      const { lease, snapshot } = yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* storeOf(SqlSessionStore.layer.pipe(Layer.provide(client)))
        const lease = yield* Seed.seed(store)
        return { lease, snapshot: Option.getOrThrow(yield* store.export(Seed.id)) }
      }))
      const listed = yield* Effect.promise(() => toolgateAsync("sessions", "list", "--db", url, "--json"))
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.deepInclude(JSON.parse(listed.stdout).sessions[1], { id: Seed.id, turns: 4, messages: 7, outstanding: 1, pending: 1 })
      assert.strictEqual(JSON.parse(listed.stdout).sessions[1].lease.expiresAt, lease.expiresAt)
      const shown = yield* Effect.promise(() => toolgateAsync("sessions", "show", Seed.id, "--db", url))
      assert.strictEqual(shown.code, 0, shown.stderr)
      assert.include(shown.stdout, `  turn 2: delete_file (call_2) key "${Seed.key(2, "call_2")}" reason no_undo`)
      assert.include(shown.stdout, `lease: "worker-7" until ${new Date(lease.expiresAt).toISOString()}`)
      const exported = yield* Effect.promise(() => toolgateAsync("sessions", "export", Seed.id, "--db", url.replace("postgres://", "postgresql://")))
      assert.strictEqual(exported.code, 0, exported.stderr)
      assert.deepStrictEqual(yield* Schema.decodeUnknown(SessionStore.SessionSnapshot)(JSON.parse(exported.stdout)), snapshot)
    }))
})

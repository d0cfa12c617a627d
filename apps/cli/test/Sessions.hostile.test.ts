import { assert, describe, it } from "@effect/vitest"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Seed from "./sessionsSeed.js"
import { toolgate, toolgateAsync } from "./toolgate.js"

const directory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "toolgate-sessions-hostile-"))),
  (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
)

/** A SQLite file with the seeded sessions, written through the store and closed. */
const seededFile = (dir: string) =>
  Effect.scoped(Effect.gen(function*() {
    const filename = join(dir, "sessions.sqlite")
    const store = yield* Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename })), (ctx) => Context.get(ctx, SessionStore.SessionStore))
    yield* Seed.seed(store)
    return filename
  })).pipe(Effect.orDie)

/** Runs SQL on a SQLite file behind the store's back; answers its rows. */
const exec = (filename: string, statement: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.unsafe(statement)
  }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.orDie)

/** A failure the command chose (its code and a typed line), never a defect (exit 70, a stack trace). */
const typed = (run: { code: number | null; stderr: string }, code: number) => {
  assert.strictEqual(run.code, code, run.stderr)
  assert.match(run.stderr, /^toolgate: /)
  assert.notInclude(run.stderr, "    at ")
}

describe("toolgate sessions: hostile input (the process)", () => {
  it.scopedLive("a file that does not exist is bad input (exit 4) and is not created; nor is a directory a database", () =>
    Effect.gen(function*() {
      const dir = yield* directory
      const missing = join(dir, "nope.sqlite")
      for (const command of [["list"], ["show", "x"], ["export", "x"]]) {
        const run = toolgate("sessions", ...command, "--db", missing, "--json")
        typed(run, 4)
        assert.deepInclude(JSON.parse(run.stdout), { _tag: "BadInput", exitCode: 4 })
        assert.include(run.stderr, "does not exist")
      }
      assert.deepStrictEqual(readdirSync(dir), [])
      mkdirSync(join(dir, "folder.sqlite"))
      typed(toolgate("sessions", "list", "--db", join(dir, "folder.sqlite")), 4)
      typed(toolgate("sessions", "list", "--db", ""), 4)
    }))

  it.scopedLive("a file that is not a SQLite database is bad input (exit 4); one with SQLite's header and garbage after it is a SessionStoreError (exit 3)", () =>
    Effect.gen(function*() {
      const dir = yield* directory
      const text = join(dir, "notes.txt")
      writeFileSync(text, "these are not the sessions you are looking for\n".repeat(100))
      const run = toolgate("sessions", "list", "--db", text)
      typed(run, 4)
      assert.include(run.stderr, "is not a SQLite database")
      typed(toolgate("sessions", "list", "--db", join(dir, "empty.sqlite")), 4)
      writeFileSync(join(dir, "empty.sqlite"), "")
      typed(toolgate("sessions", "list", "--db", join(dir, "empty.sqlite")), 4)
      const forged = join(dir, "forged.sqlite")
      writeFileSync(forged, Buffer.concat([Buffer.from("SQLite format 3\u0000", "latin1"), Buffer.alloc(8192, 0xa5)]))
      const broken = toolgate("sessions", "list", "--db", forged, "--json")
      typed(broken, 3)
      assert.deepInclude(JSON.parse(broken.stdout), { _tag: "SessionStoreError", exitCode: 3, operation: "open" })
    }))

  it.scopedLive("a SQLite database of another app is refused (exit 4), and reading it adds no table", () =>
    Effect.gen(function*() {
      const dir = yield* directory
      const other = join(dir, "app.sqlite")
      yield* exec(other, "CREATE TABLE users (id INTEGER PRIMARY KEY)")
      const run = toolgate("sessions", "list", "--db", other)
      typed(run, 4)
      assert.include(run.stderr, "holds no toolgate sessions")
      assert.deepStrictEqual(yield* exec(other, "SELECT name FROM sqlite_master WHERE type = 'table'"), [{ name: "users" }])
    }))

  it.scopedLive("a corrupted row: show is a SessionStoreError naming the session (exit 3), list still reads the others", () =>
    Effect.gen(function*() {
      const filename = yield* seededFile(yield* directory)
      yield* exec(filename, `UPDATE toolgate_outstanding SET body = '{"callId": 12' WHERE session = '${JSON.stringify(Seed.id)}'`)
      const shown = toolgate("sessions", "show", Seed.id, "--db", filename, "--json")
      typed(shown, 3)
      const error = JSON.parse(shown.stdout)
      assert.deepInclude(error, { _tag: "SessionStoreError", exitCode: 3, session: Seed.id })
      assert.include(shown.stderr, `for session "${Seed.id}"`)
      typed(toolgate("sessions", "export", Seed.id, "--db", filename), 3)
      const listed = toolgate("sessions", "list", "--db", filename)
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.include(listed.stdout, `"other"  turns 1`)
      const other = toolgate("sessions", "show", "other", "--db", filename)
      assert.strictEqual(other.code, 0, other.stderr)
    }))

  it.scopedLive("ids and texts that would break a line or reach the terminal as escapes are printed quoted", () =>
    Effect.gen(function*() {
      const filename = join(yield* directory, "sessions.sqlite")
      const hostile = "\u001b[31mred\nsecond line"
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename })), (ctx) => Context.get(ctx, SessionStore.SessionStore))
        yield* store.commitTurn({ session: hostile, turn: 1, messages: [{ _tag: "User", text: hostile }], results: [] })
      })).pipe(Effect.orDie)
      const listed = toolgate("sessions", "list", "--db", filename)
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.deepStrictEqual(listed.stdout.trimEnd().split("\n"), [`${JSON.stringify(hostile)}  turns 1  messages 1  outstanding 0  pending 0  lease none`])
      const shown = toolgate("sessions", "show", hostile, "--db", filename)
      assert.strictEqual(shown.code, 0, shown.stderr)
      assert.notInclude(shown.stdout, "\u001b")
      assert.include(shown.stdout, `  0 user      ${JSON.stringify(hostile)}`)
    }))

  it.scopedLive("an unreachable Postgres: refused, or a server that never answers, is a SessionStoreError within --timeout (exit 3); the password is not printed", () =>
    Effect.gen(function*() {
      // a port nothing listens on: take a free one and close it
      const closed = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const server = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = server.address() as net.AddressInfo
            server.close(() => resolve(port))
          })
        })
      )
      const refused = yield* Effect.promise(() => toolgateAsync("sessions", "list", "--db", `postgres://app:s3cret@127.0.0.1:${closed}/app`, "--json"))
      typed(refused, 3)
      assert.deepInclude(JSON.parse(refused.stdout), { _tag: "SessionStoreError", exitCode: 3, operation: "open" })
      assert.notInclude(refused.stdout + refused.stderr, "s3cret")
      // a server that accepts the connection and never says a word
      const sockets: Array<net.Socket> = []
      const silent = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<net.Server>((resolve) => {
            const server = net.createServer((socket) => void sockets.push(socket)).listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.sync(() => {
          for (const socket of sockets) socket.destroy()
          server.close()
        })
      )
      const port = (silent.address() as net.AddressInfo).port
      const hung = yield* Effect.promise(() => toolgateAsync("sessions", "show", "x", "--db", `postgresql://app:s3cret@127.0.0.1:${port}/app`, "--timeout", "1"))
      typed(hung, 3)
      assert.notInclude(hung.stderr, "s3cret")
      assert.isAbove(sockets.length, 0)
    }))

  it("--timeout out of range and a command-line mistake are bad input (exit 4)", () => {
    const run = toolgate("sessions", "list", "--db", "postgres://127.0.0.1:1/x", "--timeout", "0", "--json")
    typed(run, 4)
    assert.include(JSON.parse(run.stdout).message, "--timeout")
    assert.strictEqual(toolgate("sessions", "show", "--db", "x.sqlite").code, 4)
    assert.strictEqual(toolgate("sessions", "list", "--db", "x.sqlite", "--bogus").code, 4)
    assert.strictEqual(toolgate("sessions", "--db", "x.sqlite").code, 4)
    assert.isFalse(existsSync("x.sqlite"))
  })
})

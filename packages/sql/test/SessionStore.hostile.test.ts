/**
 * The store under load and across processes (slow): a 10,000-turn session on every store, and two real
 * processes on one SQLite file, contending for a session's lease (the holder killed with SIGKILL, its lease
 * expiring) and writing their own sessions at the same time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { type Backend, everyStore, openSqlite, sessionId, sqlite } from "./support/backends.js"
import * as F from "./support/fixtures.js"

const backends = everyStore(
  // commits synced at checkpoints: the long session measures the store, not the disk's fsync
  Effect.map(sqlite, (b): Backend => ({ ...b, open: (o) => openSqlite(b.filename, { ...o, synchronous: "NORMAL" }) }))
)

describe.each(backends)("%s", (_name, makeBackend) => {
  it.scopedLive("a 10,000-turn session: stored, read back, its last turn undone", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const store = yield* backend.open()
      const id = sessionId("long")
      for (let turn = 1; turn <= 10_000; turn++) yield* store.commitTurn(F.oneCallTurn(id, turn))
      const stored = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.strictEqual(stored.nextTurn, 10_001)
      assert.strictEqual(stored.snapshot.history.length, 40_000)
      assert.strictEqual(stored.snapshot.undoLog.length, 10_000)
      assert.deepStrictEqual(stored.snapshot.undoLog.at(-1)!, { turn: 10_000, start: 39_996, count: 4, ...F.oneCallTurn(id, 10_000).undo! })
      assert.deepStrictEqual(stored.snapshot.history.at(-1), F.assistant("done 10000"))
      yield* store.undoTurn(id, 10_000)
      const after = Option.getOrThrow(yield* store.export(id))
      assert.strictEqual(after.history.length, 39_996)
      assert.strictEqual(after.undoLog.at(-1)!.turn, 9_999)
      assert.strictEqual(after.results.length, 9_999)
    }), 600_000)
})

/** Starts `worker.ts` with `args`; answers its first line of output and the process. */
const worker = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly line: string; readonly child: ChildProcess }, Error>((resume) => {
      // node itself (tsx as its loader), so SIGKILL reaches the process that holds the store, not a wrapper
      const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@toolgate/source", path.join(import.meta.dirname, "support/worker.ts"), ...args], {
        cwd: import.meta.dirname,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      child.stdout.on("data", (d) => {
        out += String(d)
        const line = out.split("\n")[0]
        if (out.includes("\n")) resume(Effect.succeed({ line: line!, child }))
      })
      child.stderr.on("data", (d) => (err += String(d)))
      child.on("exit", (code) => resume(Effect.fail(new Error(`worker exited with ${code}: ${err}`))))
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  )

describe("sqlite, two processes", () => {
  it.scopedLive("one holds the lease, the other is busy; killed, its lease expires and the other takes it", () =>
    Effect.gen(function*() {
      const { filename } = yield* sqlite
      const id = sessionId("lease")
      const holder = yield* worker([filename, "lease", id, "process-a", "10000"])
      assert.match(holder.line, /^held \d+$/)
      const busy = yield* worker([filename, "lease", id, "process-b", "60000"])
      assert.isBelow(Date.now(), Number(holder.line.slice(5)), "the second process started after the first one's lease expired: inconclusive")
      assert.strictEqual(busy.line, "busy process-a")
      holder.child.kill("SIGKILL")
      const store = yield* openSqlite(filename)
      // the crashed holder's lease lasts until it expires, then another takes it
      const expiresAt = Number(holder.line.slice(5))
      yield* Effect.sleep(Math.max(0, expiresAt - Date.now()) + 50)
      assert.strictEqual((yield* store.acquire(id, "process-c", "1 minute")).owner, "process-c")
    }), 120_000)

  it.scopedLive("two processes write their own sessions on one file at the same time", () =>
    Effect.gen(function*() {
      const { filename } = yield* sqlite
      const [a, b] = [sessionId("a"), sessionId("b")]
      const done = yield* Effect.all([worker([filename, "write", a, "150"]), worker([filename, "write", b, "150"])], { concurrency: 2 })
      assert.deepStrictEqual(done.map((d) => d.line), ["wrote 150", "wrote 150"])
      const store = yield* openSqlite(filename)
      for (const id of [a, b]) {
        const stored = Option.getOrThrow(yield* store.load(id))
        assert.strictEqual(stored.snapshot.undoLog.length, 150)
        assert.deepStrictEqual(stored.pending, [])
      }
    }), 120_000)
})


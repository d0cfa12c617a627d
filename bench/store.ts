/**
 * The session store: what journaling and committing a one-call turn costs on SQLite (WAL, on a file in a
 * temporary directory) against the same writes in memory, with commits synced at every commit
 * (`synchronous=FULL`, what `layerSqlite` does unless told) and at checkpoints (`NORMAL`: a commit survives
 * a crash of the process, not of the machine); then throughput, 100 sessions × 100 turns written
 * concurrently, on SQLite and on Postgres (a throwaway cluster; skipped, and said so, when none starts).
 *
 * A turn's writes: `callStarted` (with the user and assistant messages), `callFinished`, `commitTurn` (four
 * messages, the undo entry, the session-scope result, usage). Then whole turns: one `AgentSession` sending
 * one-call turns with no store, with the in-memory store and with SQLite, and the bytes a turn adds to the file.
 * The target compares a whole turn on SQLite (`NORMAL`) with the same turn on the in-memory store; the in-memory
 * store's own cost over no store is printed beside it. The writes alone are reported without a target.
 */
import { PgClient } from "@effect/sql-pg"
import { AgentSession, ArgumentValidator, Provider, type SessionStore as Store, SessionStore, Tool, Toolkit } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { Effect, Either, Exit, Layer, ManagedRuntime, Schema, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Pg from "../packages/sql/test/support/postgres.js"
import { report, type Result } from "./harness.js"

const ok = (result: unknown) => ({ ok: true as const, result: result as never })

/** The writes of turn `turn` of `session`. */
const oneCallTurn = (store: Store.Service, session: string, turn: number) =>
  Effect.gen(function*() {
    const callId = `call_${turn}`
    const key = `${session}:${turn}-0123456789abcdef:${callId}`
    const asked = { _tag: "User" as const, text: `Write report ${turn} to disk.` }
    const calling = { _tag: "Assistant" as const, text: "", toolCalls: [{ id: callId, name: "write_file", arguments: { path: `/tmp/report-${turn}.txt`, content: "quarterly figures" } }] }
    yield* store.callStarted({ session, turn, round: 1, callId, tool: "write_file", arguments: { path: `/tmp/report-${turn}.txt`, content: "quarterly figures" }, idempotencyKey: key, messages: [asked, calling] })
    const envelope = ok({ written: 17, path: `/tmp/report-${turn}.txt` })
    yield* store.callFinished({ session, turn, callId, envelope })
    yield* store.commitTurn({
      session,
      turn,
      messages: [asked, calling, { _tag: "ToolResult", callId, name: "write_file", envelope }, { _tag: "Assistant", text: "Done: 17 bytes written.", toolCalls: [] }],
      undo: { calls: [callId], steps: [{ callId, tool: "write_file", arguments: { path: `/tmp/report-${turn}.txt` }, result: envelope.result, idempotencyKey: key }], kept: [] },
      results: [{ callId, turn, envelope, artifacts: [] }],
      usage: { roundTrips: 2, repairs: 0, invalidRounds: 0, inputTokens: 420, outputTokens: 31 }
    })
  })

/**
 * Wall time per turn, each candidate run turn after turn (after a warm-up), five rounds round-robin, the
 * fastest round kept: a store's cost is mostly I/O and waiting, which CPU-time sampling would not see.
 */
const sequential = async (candidates: ReadonlyArray<{ readonly name: string; readonly run: () => Promise<unknown> }>) => {
  const fastest = new Map(candidates.map((c) => [c.name, Infinity]))
  for (const c of candidates) for (let i = 0; i < 200; i++) await c.run()
  for (let round = 0; round < 5; round++) {
    for (const c of candidates) {
      const n = c.name.includes("FULL") ? 50 : 400
      const started = process.hrtime.bigint()
      for (let i = 0; i < n; i++) await c.run()
      fastest.set(c.name, Math.min(fastest.get(c.name)!, Number(process.hrtime.bigint() - started) / n))
    }
  }
  return fastest
}

const storeOf = async <E>(layer: Layer.Layer<SessionStore.SessionStore, E>) => {
  const runtime = ManagedRuntime.make(layer)
  const store = await runtime.runPromise(SessionStore.SessionStore)
  return { runtime, store }
}

/** A candidate that writes the next turn of its own session on each run. */
const turns = (name: string, runtime: ManagedRuntime.ManagedRuntime<any, any>, store: Store.Service) => {
  let turn = 0
  const session = `bench-${name}`
  return { name, ops: 1, run: () => runtime.runPromise(oneCallTurn(store, session, ++turn)) }
}

/** 100 sessions × 100 turns, every session's turns in order, sessions concurrent: turns/s and p99 per turn. */
const throughput = async (name: string, runtime: ManagedRuntime.ManagedRuntime<any, any>, store: Store.Service) => {
  const durations: Array<number> = []
  const started = performance.now()
  await runtime.runPromise(Effect.forEach(Array.from({ length: 100 }, (_, i) => `${name}-${i}-${Date.now()}`), (session) =>
    Effect.forEach(Array.from({ length: 100 }, (_, t) => t + 1), (turn) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        yield* oneCallTurn(store, session, turn)
        durations.push(performance.now() - t0)
      }), { discard: true }), { concurrency: "unbounded", discard: true }))
  const seconds = (performance.now() - started) / 1000
  durations.sort((a, b) => a - b)
  const p99 = durations[Math.floor(durations.length * 0.99)]!
  console.log(`  ${name.padEnd(44)} ${(10_000 / seconds).toFixed(0).padStart(9)} turns/s  p99 ${p99.toFixed(1)} ms per turn`)
  return { suite: "store: 100 sessions × 100 turns", name, nsPerOp: (seconds * 1e9) / 10_000, baseline: name, ratio: 1 } satisfies Result
}

/** The tool of the whole turns: one call, then text. */
const writeFile = Tool.make("write_file", {
  description: "Writes a file",
  parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
  execute: ({ content }) => Effect.succeed({ written: content.length })
})
const toolkit = Either.getOrThrow(Toolkit.make(writeFile))

/** A model that calls `write_file` when the last message is the user's, and answers in text after the result. */
const model: Provider.AgentProvider = {
  capabilities: Provider.capabilities({ name: "bench", requiresNetworking: false }),
  stream: () => { throw new Error("answered whole") },
  complete: (request) =>
    Effect.succeed(request.messages.at(-1)?._tag === "User"
      ? [{ _tag: "ToolCallComplete", id: `call_${request.messages.length}`, name: "write_file", arguments: { path: "/tmp/report.txt", content: "quarterly figures" } }, { _tag: "Done" }]
      : [{ _tag: "TextDelta", text: "Done." }, { _tag: "Usage", inputTokens: 420, outputTokens: 31 }, { _tag: "Done" }])
}

/** A session on `layer`'s store (none: no store) whose every run sends its next one-call turn. */
const sessionTurns = async (name: string, layer: Layer.Layer<never> | Layer.Layer<SessionStore.SessionStore, unknown>) => {
  const runtime = ManagedRuntime.make(Layer.merge(ArgumentValidator.layer, layer as Layer.Layer<never>))
  const scope = Effect.runSync(Scope.make())
  const session = await runtime.runPromise(Scope.extend(AgentSession.make({ id: `bench-${name}`, provider: model, toolkit, mode: "local" }), scope))
  return { name, ops: 1, run: () => runtime.runPromise(session.send("Write the report.")), close: () => Effect.runPromise(Scope.close(scope, Exit.void)).then(() => runtime.dispose()) }
}

export const run = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-store-"))
  const scope = Effect.runSync(Scope.make())
  try {
    const memory = await storeOf(SessionStore.layerMemory)
    const full = await storeOf(SqlSessionStore.layerSqlite({ filename: path.join(dir, "full.sqlite") }))
    const normal = await storeOf(SqlSessionStore.layerSqlite({ filename: path.join(dir, "normal.sqlite"), synchronous: "NORMAL" }))
    const measured = await sequential([
      turns("memory", memory.runtime, memory.store),
      turns("sqlite WAL, synchronous=NORMAL", normal.runtime, normal.store),
      turns("sqlite WAL, synchronous=FULL", full.runtime, full.store)
    ])
    // no target here: SQLite's own statements for these writes take about as long as the in-memory store's
    // whole writes (bench/README.md), so this ratio sits near 2× whatever runs them; the target is the whole turn
    const outcome = report("store: a one-call turn's writes (journal, envelope, commit), wall time", measured, "memory", [])
    console.log(`  (FULL syncs the log at every commit: ${(measured.get("sqlite WAL, synchronous=FULL")! / 1000).toFixed(0)} µs per turn, three commits, on this disk)`)

    const whole = [
      await sessionTurns("session, no store", Layer.empty),
      await sessionTurns("session, in-memory store", SessionStore.layerMemory),
      await sessionTurns("session, sqlite WAL, NORMAL", SqlSessionStore.layerSqlite({ filename: path.join(dir, "turns-normal.sqlite"), synchronous: "NORMAL" })),
      await sessionTurns("session, sqlite WAL, FULL", SqlSessionStore.layerSqlite({ filename: path.join(dir, "turns-full.sqlite") }))
    ]
    const turned = await sequential(whole)
    const wholeOutcome = report("store: a whole one-call turn (AgentSession.send), wall time", turned, "session, in-memory store", [
      { name: "a turn on SQLite (WAL, NORMAL) / the same turn on the in-memory store", candidate: "session, sqlite WAL, NORMAL", baseline: "session, in-memory store", max: 2 }
    ])
    console.log(`  (the journal's own cost: the in-memory store's turn is ${(turned.get("session, in-memory store")! / turned.get("session, no store")!).toFixed(2)}× the turn with no store)`)
    await Promise.all(whole.map((w) => w.close()))
    const bytes = fs.statSync(path.join(dir, "turns-normal.sqlite")).size + (fs.existsSync(path.join(dir, "turns-normal.sqlite-wal")) ? fs.statSync(path.join(dir, "turns-normal.sqlite-wal")).size : 0)
    const sent = 200 + 5 * 400
    console.log(`  store size: ${(bytes / sent).toFixed(0)} bytes per one-call turn (the SQLite file and its log after ${sent} turns)`)

    console.log("\nstore: 100 sessions × 100 turns, concurrent")
    const results: Array<Result> = [...outcome.results, ...wholeOutcome.results]
    results.push(await throughput("sqlite WAL, synchronous=NORMAL", normal.runtime, normal.store))
    results.push(await throughput("sqlite WAL, synchronous=FULL", full.runtime, full.store))
    const pg = await Effect.runPromise(Effect.either(Scope.extend(Effect.exit(Pg.cluster), scope)))
    if (pg._tag === "Right" && Exit.isSuccess(pg.right)) {
      const client = PgClient.layer({ host: "127.0.0.1", port: pg.right.value.port, username: "postgres", database: "postgres", maxConnections: 20 })
      const postgres = await storeOf(SqlSessionStore.layer.pipe(Layer.provide(client)))
      results.push(await throughput("postgres (fsync off: a throwaway cluster)", postgres.runtime, postgres.store))
      await postgres.runtime.dispose()
    } else {
      console.log("  postgres: skipped, no cluster could be started (initdb not found?)")
    }
    await Promise.all([memory.runtime.dispose(), full.runtime.dispose(), normal.runtime.dispose()])
    return { results, met: outcome.met && wholeOutcome.met }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}


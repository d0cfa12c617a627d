/**
 * A real crash: a process runs a session on a SQLite file and is killed with SIGKILL, while an executor runs
 * or after it answered and before the turn committed; this process resumes the session from the file.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { AgentSession, ArgumentValidator, type Message, Provider, SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { sqlite } from "./support/backends.js"
import { crashKit, runs } from "./support/crashKit.js"

/** Runs `crashSession.ts` until it prints `line`, then kills it with SIGKILL and waits for it to be gone. */
const crashAt = (args: ReadonlyArray<string>, line: string) =>
  Effect.async<void, Error>((resume) => {
    // node itself (tsx as its loader), so SIGKILL reaches the process that holds the file, not a wrapper
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@toolgate/source", path.join(import.meta.dirname, "support/crashSession.ts"), ...args], {
      cwd: import.meta.dirname,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    let killed = false
    child.stdout.on("data", (d) => {
      out += String(d)
      if (!killed && out.split("\n").includes(line)) {
        killed = true
        child.kill("SIGKILL")
      }
    })
    child.stderr.on("data", (d) => (err += String(d)))
    child.on("exit", (_code, signal) =>
      resume(signal === "SIGKILL" && killed ? Effect.void : Effect.fail(new Error(`the session process ended before it was killed (${signal}): ${out} ${err}`))))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The tool calls in `messages` no later ToolResult answers. */
const unanswered = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<string> => {
  const open = new Set<string>()
  for (const m of messages) {
    if (m._tag === "Assistant") for (const c of m.toolCalls) open.add(c.id)
    if (m._tag === "ToolResult") open.delete(m.callId)
  }
  return [...open]
}

/** A provider that answers each request with text and keeps the requests. */
const answering = () => {
  const requests: Array<Provider.CompletionRequest> = []
  const provider: Provider.AgentProvider = {
    capabilities: Provider.capabilities({ name: "resumed", requiresNetworking: false }),
    stream: (request) => Stream.suspend(() => (requests.push(request), Stream.fromIterable([{ _tag: "TextDelta", text: "ok" }, { _tag: "Done" }] as const)))
  }
  return { provider, requests }
}

const scenarios = [
  { mode: "executor", line: "running", tool: "block", reason: "interrupted" },
  { mode: "answered", line: "answered", tool: "charge", reason: "no_undo" }
] as const

describe("AgentSession on SQLite, killed with SIGKILL", () => {
  for (const scenario of scenarios) {
    it.scopedLive(`killed ${scenario.mode === "executor" ? "while an executor runs" : "after the executor answered, before the commit"}: resumed from the file`, () =>
      Effect.gen(function*() {
        const { filename } = yield* sqlite
        const runsFile = path.join(path.dirname(filename), "runs.txt")
        yield* crashAt([filename, scenario.mode, runsFile], scenario.line)
        const before = runs(runsFile)
        assert.strictEqual(before.length, 2)
        assert.match(before[0]!, /^run book crash:1-[0-9a-f]{16}:c1$/)
        assert.match(before[1]!, new RegExp(`^run ${scenario.tool} crash:2-[0-9a-f]{16}:c1$`))
        const key = before[1]!.split(" ")[2]!

        const { provider, requests } = answering()
        const layer = Layer.merge(ArgumentValidator.layer, SqlSessionStore.layerSqlite({ filename }))
        yield* Effect.gen(function*() {
          // the killed process's lease lasts until it expires
          const s = yield* AgentSession.make({ id: "crash", provider, toolkit: crashKit(runsFile), mode: "local", onBusy: "wait" })
          const outstanding = yield* s.outstanding
          assert.deepStrictEqual(outstanding.map((o) => [o.turn, o.callId, o.tool, o.reason, o.idempotencyKey]), [[2, "c1", scenario.tool, scenario.reason, key]])
          const history = yield* s.history
          assert.deepStrictEqual(history.slice(0, 4).map((m) => m._tag), ["User", "Assistant", "ToolResult", "Assistant"])
          assert.deepStrictEqual(history[4], { _tag: "User", text: "and then" })
          assert.deepStrictEqual(unanswered(history), [])
          const repaired = history.at(-1)!
          assert.strictEqual(repaired._tag, "ToolResult")
          if (scenario.mode === "executor" && repaired._tag === "ToolResult") {
            assert.isFalse(repaired.envelope.ok)
            assert.match(JSON.stringify(repaired.envelope), /interrupted/)
          }
          // the next request carries every call answered
          yield* s.send("go on")
          assert.deepStrictEqual(unanswered(requests[0]!.messages), [])
          assert.isAbove(requests[0]!.messages.length, 6)
          // the last committed turns undo, turn 1 through its tool rebuilt from the file
          assert.strictEqual(Option.getOrThrow(yield* s.undoLastTurn).turn, 3)
          assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 1, undone: ["c1"], notUndone: [] })
        }).pipe(Effect.scoped, Effect.provide(layer))

        const after = runs(runsFile)
        assert.deepStrictEqual(after.slice(0, 2), before)
        assert.strictEqual(after.length, 3, after.join("\n"))
        assert.strictEqual(after[2], `undo book ${before[0]!.split(" ")[2]}`)
        // a second resume finds the turns closed and nothing left pending
        const store = yield* Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename })), Context.get(SessionStore.SessionStore))
        const stored = Option.getOrThrow(yield* store.load("crash"))
        assert.deepStrictEqual(stored.pending, [])
        assert.deepStrictEqual(stored.snapshot.outstanding.map((o) => o.idempotencyKey), [key])
      }), 120_000)
  }
})

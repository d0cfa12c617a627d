/**
 * A process running a session on a SQLite file until it is killed:
 *   crashSession.ts <file> executor <runs file>   commits turn 1 (`book`), then turn 2 calls `block`, whose executor prints `running` and never answers
 *   crashSession.ts <file> answered <runs file>   commits turn 1 (`book`), then turn 2 calls `charge`, which answers; the next request prints `answered` and never answers
 * Every executor and undo appends a line to the runs file (`run <tool> <idempotency key>`, `undo <tool> <key>`).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Stream } from "effect"
import * as fs from "node:fs"
import { AgentSession, ArgumentValidator, Provider, type StreamEvent } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import { crashKit } from "./crashKit.js"

const [filename, mode, runsFile] = process.argv.slice(2) as [string, "executor" | "answered", string]

const say = (line: string) => Effect.sync(() => void fs.writeSync(1, `${line}\n`))

/** The rounds the model answers, in order; the last one hangs (after saying so, in `answered` mode). */
const rounds: ReadonlyArray<ReadonlyArray<StreamEvent.StreamEvent> | "hang"> = [
  [{ _tag: "ToolCallComplete", id: "c1", name: "book", arguments: { v: "a" } }, { _tag: "Done" }],
  [{ _tag: "TextDelta", text: "booked" }, { _tag: "Done" }],
  [{ _tag: "ToolCallComplete", id: "c1", name: mode === "executor" ? "block" : "charge", arguments: { v: "b" } }, { _tag: "Done" }],
  "hang"
]

let request = 0
const provider: Provider.AgentProvider = {
  capabilities: Provider.capabilities({ name: "crash", supportsParallelToolCalls: false, requiresNetworking: false }),
  stream: () =>
    Stream.suspend(() => {
      const round = rounds[request++]
      return round === "hang" || round === undefined
        ? Stream.fromEffect(Effect.zipRight(say("answered"), Effect.never))
        : Stream.fromIterable(round)
    })
}

const program = Effect.gen(function*() {
  const session = yield* AgentSession.make({ id: "crash", provider, toolkit: crashKit(runsFile, say("running")), mode: "local", leaseMillis: 1500 })
  yield* session.send("book a")
  yield* session.send("and then")
})

program.pipe(
  Effect.scoped,
  Effect.provide(Layer.merge(ArgumentValidator.layer, SqlSessionStore.layerSqlite({ filename }))),
  NodeRuntime.runMain
)

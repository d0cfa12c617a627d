/**
 * A process on a SQLite session file, for the tests that need two real processes:
 *   worker.ts <file> lease <session> <owner> <ttl ms>   takes the lease, prints `held <expiresAt>` or `busy <holder>`, then stays until killed
 *   worker.ts <file> write <session> <turns>            commits that many one-call turns (journal and commit), prints `wrote <n>`
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { SessionStore } from "@toolgate/runtime"
import { SqlSessionStore } from "@toolgate/sql"
import * as F from "./fixtures.js"

const [filename, mode, session, a, b] = process.argv.slice(2) as [string, string, string, string, string]

const program = Effect.gen(function*() {
  const store = yield* SessionStore.SessionStore
  if (mode === "lease") {
    const outcome = yield* Effect.either(store.acquire(session, a, Number(b)))
    if (outcome._tag === "Right") console.log(`held ${outcome.right.expiresAt}`)
    else if (outcome.left._tag === "SessionBusy") console.log(`busy ${outcome.left.holder}`)
    else return yield* outcome.left
    return yield* Effect.never
  }
  for (let turn = 1; turn <= Number(a); turn++) {
    yield* store.callStarted(F.start(session, turn, `call_${turn}`))
    yield* store.callFinished({ session, turn, callId: `call_${turn}`, envelope: F.ok({ written: turn }) })
    yield* store.commitTurn(F.oneCallTurn(session, turn))
  }
  console.log(`wrote ${a}`)
})

program.pipe(Effect.provide(SqlSessionStore.layerSqlite({ filename, synchronous: "NORMAL" })), NodeRuntime.runMain)

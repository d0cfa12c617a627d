/**
 * Issue 6's property: sessions driven by random scripted rounds (valid, near-miss, invalid and unknown
 * calls, refs valid and broken, contract violations, provider failures) under random limits keep the
 * invariants after every send, and do what the model of a turn (support/sessionModel.ts) predicts.
 * Real parts: the `Scripted` provider, `AgentSession`, `ArgumentValidator`; the executors check their
 * arguments with a validator instance of their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck as fc, Option, Queue } from "effect"
import { Arguments } from "@toolgate/json-schema"
import * as AgentSession from "../../runtime/src/AgentSession.js"
import * as ArgumentValidator from "../../runtime/src/ArgumentValidator.js"
import * as Script from "../src/Script.js"
import * as Scripted from "../src/Scripted.js"
import { invalidArgs, nearMissArgs, session, type SessionPlan, validArgs } from "./support/sessionArbitraries.js"
import { simulate } from "./support/sessionModel.js"
import { checkSend, type Observed } from "./support/sessionOracle.js"
import { problemsOf, recorded, resultOf, schemas, toolNames } from "./support/sessionTools.js"

/** The undo log at the end: only committed turns, newest first, each undoing exactly its executed calls. */
const checkUndo = (
  session: AgentSession.AgentSession,
  committed: ReadonlyMap<number, ReadonlySet<string>>,
  executedOk: ReadonlyMap<number, ReadonlySet<string>>,
  undone: Array<string>
) =>
  Effect.gen(function*() {
    const seen: Array<number> = []
    for (let i = 0; i <= committed.size; i++) {
      const report = yield* session.undoLastTurn
      if (Option.isNone(report)) break
      const { turn } = report.value
      assert.isTrue(committed.has(turn), `undo reported turn ${turn}, which did not commit`)
      assert.isTrue(seen.every((t) => t > turn), `undo went back to turn ${turn} after ${seen}`)
      seen.push(turn)
      const reported = new Set([...report.value.undone, ...report.value.failed.map((f) => f.callId)])
      for (const id of executedOk.get(turn) ?? []) assert.isTrue(reported.has(id), `undo of turn ${turn} misses ${id}`)
      for (const id of reported) assert.isTrue(committed.get(turn)!.has(id), `undo of turn ${turn} names ${id}, not run in it`)
      assert.deepStrictEqual(undone.splice(0).sort(), [...report.value.undone].sort(), `undo of turn ${turn}: undos run`)
      const history = yield* session.history
      const left = history.filter((m) => m._tag === "ToolResult" && committed.get(turn)!.has(m.callId))
      assert.deepStrictEqual(left, [], `undo of turn ${turn} left its results in history`)
    }
    for (const [turn, ids] of executedOk) if (ids.size > 0) assert.include(seen, turn, `turn ${turn} was never undone`)
    assert.isTrue(Option.isNone(yield* session.undoLastTurn), "undo after the last committed turn")
  })

/** Runs every send of `plan` on one local session and checks each. */
const runSession = (plan: SessionPlan) =>
  Effect.gen(function*() {
    const sim = simulate(plan)
    const script = yield* Script.decode(sim.script)
    const provider = yield* Scripted.make(script, { supportsParallelToolCalls: plan.parallel })
    const tools = recorded()
    const session = yield* AgentSession.make({
      provider,
      toolkit: tools.toolkit,
      mode: "local",
      limits: { maxToolArgumentRepairs: plan.repairs, maxProviderRoundTrips: plan.roundTrips },
      chainScope: plan.scope
    }).pipe(Effect.provide(ArgumentValidator.layerWith({ toolChaining: plan.chaining })))
    const events = yield* session.subscribe
    const committed = new Map<number, Set<string>>()
    const executedOk = new Map<number, Set<string>>()
    for (const [i, expected] of sim.expected.entries()) {
      const before = yield* session.history
      const requestsBefore = (yield* provider.requests).length
      const receivedBefore = tools.received.length
      const text = `send ${i + 1}`
      const exit = yield* session.send(text).pipe(Effect.timeout("10 seconds"), Effect.exit)
      const observed: Observed = {
        index: i + 1,
        text,
        exit,
        before,
        after: yield* session.history,
        requests: (yield* provider.requests).slice(requestsBefore),
        received: tools.received.slice(receivedBefore),
        events: Chunk.toReadonlyArray(yield* Queue.takeAll(events))
      }
      checkSend(plan, expected, observed)
      if (exit._tag === "Success") {
        committed.set(i + 1, new Set(observed.received.map((r) => r.callId)))
        executedOk.set(i + 1, new Set(observed.received.filter((r) => resultOf(r.tool, r.args as never) !== undefined).map((r) => r.callId)))
      }
    }
    yield* checkUndo(session, committed, executedOk, tools.undone)
  }).pipe(Effect.scoped)

describe("AgentSession over scripted rounds", () => {
  it("the catalogue is what it claims: valid and near-miss arguments prepare to their canonical value, invalid ones never", () => {
    for (const tool of toolNames) {
      for (const args of [...fc.sample(validArgs[tool], 40), ...fc.sample(nearMissArgs[tool], 40)]) {
        const prepared = Arguments.prepare(schemas[tool], args.raw, { policy: "lenient" })
        assert.strictEqual(prepared._tag, "Valid", `${tool} ${JSON.stringify(args.raw)}`)
        if (prepared._tag === "Valid") assert.deepStrictEqual(prepared.value, args.canonical)
        assert.deepStrictEqual(problemsOf(tool, args.canonical), [])
      }
      for (const raw of invalidArgs[tool]) {
        assert.strictEqual(Arguments.prepare(schemas[tool], raw, { policy: "lenient" })._tag, "Invalid", `${tool} ${JSON.stringify(raw)}`)
      }
    }
  })

  it("the model's scripts are valid Scripts", () => {
    for (const plan of fc.sample(session, 50)) assert.isTrue(Either.isRight(Script.decode(simulate(plan).script)))
  })

  it.live.prop(
    "every send keeps the invariants and does what the model of a turn predicts",
    [session],
    ([plan]) => runSession(plan),
    { timeout: 120_000, fastCheck: { numRuns: 100 } }
  )
})

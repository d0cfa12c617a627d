/**
 * The session property: sessions driven by random scripted rounds (valid, near-miss, invalid and unknown
 * calls, refs valid and broken, contract violations, provider failures) under random limits keep the
 * invariants after every send, and do what the model of a turn (packages/test-support/src/sessionModel.ts) predicts.
 * Provider-driven sessions get their own property (lifecycle events, the terminal rules of the contract).
 * Real parts: the `Scripted` provider, `AgentSession`, `ArgumentValidator`, and in cloud-profile mode the
 * `DriftGate` over a capabilities endpoint on loopback; the executors check their arguments with a
 * validator instance of their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck as fc, Layer, Option, Queue } from "effect"
import { Arguments } from "@toolgate/json-schema"
import { AgentSession, ArgumentValidator, Tool, Toolkit } from "@toolgate/runtime"
import * as Script from "../src/Script.js"
import * as Scripted from "../src/Scripted.js"
import { envelope, gate, start } from "./support/profileServer.js"
import { round as providerRound, simulate as simulateProviderDriven } from "./support/providerDriven.js"
import { invalidArgs, nearMissArgs, session, type SessionPlan, strictNullArgs, validArgs } from "@toolgate/test-support/sessionArbitraries"
import { simulate } from "@toolgate/test-support/sessionModel"
import { replay, runSession } from "@toolgate/test-support/sessionRun"
import { exported, problemsOf, recorded, schemas, type ToolName, toolNames } from "@toolgate/test-support/sessionTools"

describe("AgentSession over scripted rounds", () => {
  it.effect("the catalogue is what it claims: valid and near-miss arguments prepare to their canonical value, invalid ones never", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const { toolkit } = recorded()
      const prepare = (tool: ToolName, raw: unknown, fromStrictProvider = false) =>
        Effect.either(validator.prepare(toolkit.tools.get(tool)!, raw, { callId: "c", fromStrictProvider }))
      for (const tool of toolNames) {
        for (const args of [...fc.sample(validArgs[tool], 40), ...fc.sample(nearMissArgs[tool], 40)]) {
          const prepared = yield* prepare(tool, args.raw)
          assert.deepStrictEqual(Either.isRight(prepared) ? prepared.right.value : prepared.left, args.canonical, `${tool} ${JSON.stringify(args.raw)}`)
          assert.deepStrictEqual(problemsOf(tool, args.canonical), [])
        }
        for (const args of tool === "lookup" ? fc.sample(strictNullArgs, 10) : []) {
          assert.isTrue(Either.isLeft(yield* prepare(tool, args.raw)))
          const strict = yield* prepare(tool, args.raw, true)
          assert.deepStrictEqual(Either.isRight(strict) ? strict.right.value : strict.left, args.canonical)
        }
        for (const raw of invalidArgs[tool]) {
          const prepared = yield* prepare(tool, raw)
          assert.strictEqual(Either.isLeft(prepared) && prepared.left._tag, "InvalidToolArguments", `${tool} ${typeof raw === "string" ? raw.slice(0, 40) : JSON.stringify(raw)}`)
        }
      }
      assert.strictEqual(Arguments.prepare(toolkit.tools.get("pick_even")!.jsonSchema, { n: 3 })._tag, "Valid", "odd passes the JSON Schema")
    }))

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

describe("AgentSession serializes sends", () => {
  it.live.prop(
    "all sends started at once do exactly what the same sends do one after the other",
    [session],
    ([plan]) =>
      Effect.gen(function*() {
        const [one, all] = [yield* replay(plan, false), yield* replay(plan, true)]
        assert.deepStrictEqual(all, one)
      }),
    { timeout: 120_000, fastCheck: { numRuns: 50 } }
  )
})

const oneCall: SessionPlan["turns"][number] = [
  { _tag: "Calls", text: "", calls: [{ _tag: "Valid", tool: "set_volume", args: { raw: { level: 3 }, canonical: { level: 3 } }, nearMiss: false }], partials: false, usage: undefined, violation: undefined },
  { _tag: "Answer", chunks: ["Set."], usage: undefined, violation: undefined }
]
const twoSends: SessionPlan = { repairs: 1, roundTrips: 4, chaining: false, scope: "turn", parallel: true, ids: "unique", dialect: "none", network: undefined, supportsToolChoice: true, choices: [], undoAfter: [], turns: [oneCall, oneCall] }

/** A cloud-profile session over the gate at `url` playing `plan`, with its provider and recorded executors. */
const cloudSession = (url: string, plan: SessionPlan) =>
  Effect.gen(function*() {
    const provider = yield* Scripted.make(yield* Script.decode(simulate(plan).script))
    const tools = recorded()
    const session = yield* AgentSession.make({ provider, toolkit: tools.toolkit, mode: "cloudProfile" })
      .pipe(Effect.provide(yield* Layer.build(Layer.merge(ArgumentValidator.layer, gate(url)))))
    return { provider, session, tools, events: yield* session.subscribe }
  })

describe("AgentSession in cloud-profile mode, gated over a loopback capabilities endpoint", () => {
  it.live.prop(
    "a relay exporting the local schemas: the gate proves them on the first send only, and the turns keep every invariant",
    [session],
    ([plan]) =>
      Effect.gen(function*() {
        const relay = yield* start(200, envelope(exported()))
        yield* runSession(plan, { mode: "cloudProfile", gate: gate(relay.url) })
        // one probe: the first send that records its message runs the gate, and Proven is remembered
        assert.strictEqual(relay.requests(), simulate(plan).expected.some((e) => e.turn > 0) ? 1 : 0)
      }).pipe(Effect.scoped),
    { timeout: 120_000, fastCheck: { numRuns: 25 } }
  )

  it.scopedLive("a relay whose schema is broader fails every send with SchemaDriftError before any provider request or executor", () =>
    Effect.gen(function*() {
      const relay = yield* start(200, envelope({ ...exported(), set_volume: { ...schemas.set_volume, properties: { level: { type: "integer", minimum: 0, maximum: 20 } } } }))
      const { events, provider, session, tools } = yield* cloudSession(relay.url, twoSends)
      for (const text of ["first", "second"]) {
        const error = yield* Effect.flip(session.send(text).pipe(Effect.timeout("10 seconds")))
        assert.strictEqual(error._tag, "SchemaDriftError")
        if (error._tag === "SchemaDriftError") assert.strictEqual(error.tool, "set_volume")
        const published = Chunk.toReadonlyArray(yield* Queue.takeAll(events))
        assert.deepStrictEqual([published[0]?._tag, published.at(-1)?._tag], ["TurnStarted", "TurnRolledBack"])
        assert.isFalse(published.some((e) => e._tag === "RoundStarted"))
      }
      assert.deepStrictEqual(yield* session.history, [{ _tag: "User", text: "first" }, { _tag: "User", text: "second" }])
      assert.deepStrictEqual(yield* provider.requests, [])
      assert.deepStrictEqual(tools.received, [])
      // the capabilities answer is cached for its time to live, but a drift is never remembered as proven: both sends were refused
      assert.strictEqual(relay.requests(), 1)
      assert.isTrue(Option.isNone(yield* session.undoLastTurn))
    }))

  it.scopedLive("an unreachable relay (503) degrades: the turns run and commit, and the gate is tried again on the next send", () =>
    Effect.gen(function*() {
      const relay = yield* start(503, { error: "down" })
      const { events, session, tools } = yield* cloudSession(relay.url, twoSends)
      for (const [i, text] of ["first", "second"].entries()) {
        const turn = yield* session.send(text).pipe(Effect.timeout("10 seconds"))
        assert.strictEqual(turn.gate?._tag, "Degraded")
        if (turn.gate?._tag === "Degraded") assert.strictEqual(turn.gate.reason, "unreachable")
        assert.strictEqual(turn.text, "Set.")
        const published = Chunk.toReadonlyArray(yield* Queue.takeAll(events))
        assert.deepStrictEqual(published.filter((e) => e._tag === "DriftGateChecked").map((e) => e._tag === "DriftGateChecked" && e.outcome), ["degraded"])
        assert.strictEqual(relay.requests(), i + 1)
      }
      assert.deepStrictEqual(tools.received.map((r) => r.args), [{ level: 3 }, { level: 3 }])
    }))
})

describe("AgentSession under interruption", () => {
  it.scopedLive("a send interrupted while a tool runs leaves history as before plus the user message and the interrupted call (outstanding), and the next send works", () =>
    Effect.gen(function*() {
      const hang = Tool.make("hang", { description: "Never returns.", parameters: { type: "object" }, execute: () => Effect.never })
      const script = yield* Script.decode({
        turns: [
          [[{ _tag: "ToolCallComplete", id: "h1", name: "hang", arguments: {} }, { _tag: "Done" }]],
          [[{ _tag: "TextDelta", text: "Back." }, { _tag: "Done" }]]
        ]
      })
      const provider = yield* Scripted.make(script)
      const session = yield* AgentSession.make({ provider, toolkit: yield* Toolkit.make(hang), mode: "local" })
        .pipe(Effect.provide(ArgumentValidator.layer))
      const timedOut = yield* Effect.flip(session.send("wait").pipe(Effect.timeout("200 millis")))
      assert.strictEqual(timedOut._tag, "TimeoutException")
      const told = [
        { _tag: "Assistant", text: "", toolCalls: [{ id: "h1", name: "hang", arguments: {} }] },
        { _tag: "ToolResult", callId: "h1", name: "hang", envelope: { ok: false, kind: "execution_error", message: (yield* session.outstanding)[0]?.reason === "interrupted" ? "This call ran in turn 1, which then failed; its effect could not be taken back (it was interrupted or ran past its time budget, so its effect may be partial) and is still in place. Do not repeat it unless the user asks to." : "", tool: "hang", retryable: false } }
      ] as const
      assert.deepStrictEqual(yield* session.history, [{ _tag: "User", text: "wait" }, ...told])
      assert.isTrue(Option.isNone(yield* session.undoLastTurn))
      const turn = yield* session.send("again").pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(turn.text, "Back.")
      assert.deepStrictEqual(yield* session.history, [
        { _tag: "User", text: "wait" },
        ...told,
        { _tag: "User", text: "again" },
        { _tag: "Assistant", text: "Back.", toolCalls: [] }
      ])
    }))
})

describe("AgentSession over a provider-driven scripted provider", () => {
  it.live.prop(
    "history comes from the lifecycle events, a broken contract rolls back, and no local executor runs",
    [fc.array(providerRound, { minLength: 1, maxLength: 4 })],
    ([rounds]) =>
      Effect.gen(function*() {
        const sim = simulateProviderDriven(rounds)
        const provider = yield* Scripted.make(yield* Script.decode(sim.script), { executionModel: "providerDriven" })
        const tools = recorded()
        const session = yield* AgentSession.make({ provider, toolkit: tools.toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
        for (const [i, expected] of sim.expected.entries()) {
          const before = yield* session.history
          const text = `send ${i + 1}`
          const user = { _tag: "User", text } as const
          const result = yield* Effect.either(session.send(text).pipe(Effect.timeout("10 seconds")))
          const after = yield* session.history
          if (expected._tag === "Violation") {
            assert.strictEqual(Either.isLeft(result) && result.left._tag, "ProviderEventContractViolation", `send ${i + 1}`)
            assert.deepStrictEqual(after, [...before, user], `send ${i + 1}: rolled back to the user message`)
            continue
          }
          assert.isTrue(Either.isRight(result), `send ${i + 1}: ${Either.isLeft(result) ? result.left.message : ""}`)
          if (Either.isLeft(result)) continue
          assert.strictEqual(result.right.text, expected.text)
          assert.deepStrictEqual([result.right.usage.roundTrips, result.right.usage.repairs], [1, 0])
          const added = after.slice(before.length)
          assert.deepStrictEqual(after.slice(0, before.length), before)
          assert.deepStrictEqual(added.slice(0, 2), [user, { _tag: "Assistant", text: expected.text, toolCalls: expected.toolCalls }])
          assert.deepStrictEqual<unknown>(
            added.slice(2).map((m): unknown => m._tag === "ToolResult" ? { callId: m.callId, name: m.name, kind: m.envelope.ok ? "success" : m.envelope.kind } : m),
            expected.results,
            `send ${i + 1}: a ToolResult per terminal, in terminal order`
          )
          assert.deepStrictEqual(result.right.calls.map((c) => c.callId).sort(), expected.results.map((r) => r.callId).sort())
        }
        assert.deepStrictEqual(tools.received, [])
      }),
    { timeout: 120_000, fastCheck: { numRuns: 100 } }
  )
})

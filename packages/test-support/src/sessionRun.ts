/**
 * Runs a `SessionPlan` on one real session over the `Scripted` provider (or another model of the script, e.g.
 * Gemini's wire over loopback) and checks every send
 * (sessionOracle.ts) and every undo the plan asks for between sends, then unwinds the undo log. Local mode, or cloud-profile mode over a drift gate
 * the caller provides (the gate's verdict must not change what the turns do).
 */
import { assert } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Option, Queue, type Scope, Stream } from "effect"
import { AgentSession, ArgumentValidator, type DriftGate, Errors, type Message, type Provider } from "@toolgate/runtime"
import * as Script from "@toolgate/providers/Script"
import * as Scripted from "@toolgate/providers/Scripted"
import type { SessionPlan } from "./sessionArbitraries.js"
import * as RecordingTracer from "./recordingTracer.js"
import { simulate } from "./sessionModel.js"
import { checkSend, type Observed } from "./sessionOracle.js"
import { recorded, resultOf } from "./sessionTools.js"

/** What the run knows about each committed turn still in the undo log, by turn number. */
interface Log {
  /** The calls whose executors ran. */
  readonly ran: Map<number, ReadonlySet<string>>
  /** The calls whose executors answered with a result (their undo must run). */
  readonly succeeded: Map<number, ReadonlySet<string>>
  /** How many messages the turn added to history. */
  readonly sizes: Map<number, number>
  /** The idempotency keys of the turn's calls that answered with a success (its effects in the world). */
  readonly effects: Map<number, ReadonlyArray<string>>
}

/**
 * The effect accounting: what the executors applied minus what undos took back (the tools' ledger) is what
 * history says the committed turns did, plus what the session reports as outstanding.
 */
const checkLedger = (session: AgentSession.AgentSession, log: Log, ledger: ReadonlyMap<string, number>, when: string) =>
  Effect.gen(function*() {
    const expected = new Map<string, number>()
    const outstanding = (yield* session.outstanding).map((o) => keyShape(o.idempotencyKey))
    for (const key of [...[...log.effects.values()].flat(), ...outstanding]) expected.set(key, (expected.get(key) ?? 0) + 1)
    const applied = new Map<string, number>()
    for (const [key, n] of ledger) applied.set(keyShape(key), (applied.get(keyShape(key)) ?? 0) + n)
    const sorted = (m: ReadonlyMap<string, number>) => [...m].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    assert.deepStrictEqual(sorted(applied), sorted(expected), `${when}: applied minus undone = committed + outstanding`)
  })

/** An idempotency key without its random per-turn part: `<session>:<turn>-<random>:<call>` as `<session>:<turn>:<call>`. */
const keyShape = (key: string): string => key.replace(/:(\d+)-[0-9a-f]{16}:/, ":$1:")

/** The keys of the effects a committed turn's messages record (its calls that answered with a success). */
const effectsOf = (session: AgentSession.AgentSession, turn: number, added: ReadonlyArray<Message.Message>): ReadonlyArray<string> =>
  added.flatMap((m) => m._tag === "ToolResult" && m.envelope.ok ? [`${session.id}:${turn}:${m.callId}`] : [])

/**
 * One `undoLastTurn`, checked: `expected` (the model's last committed turn, or `undefined` for none left) is
 * the turn undone; its undos ran for exactly the calls reported, every call that succeeded is among them and
 * none that did not run; exactly its messages left history.
 */
const undoOnce = (session: AgentSession.AgentSession, expected: number | undefined, log: Log, undone: Array<string>) =>
  Effect.gen(function*() {
    const history = yield* session.history
    const length = history.length
    // a stubborn undo refuses once: the undo fails with UndoIncomplete, the turn stays, and the next attempt runs what is left
    const undoneBefore: Array<string> = []
    let report = yield* Effect.either(session.undoLastTurn)
    for (let attempt = 0; attempt < 3 && Either.isLeft(report); attempt++) {
      const incomplete = report.left
      if (incomplete._tag !== "UndoIncomplete") return assert.fail(`an undo between sends is never superseded: ${incomplete.message}`)
      assert.strictEqual(incomplete.turn, expected, "an incomplete undo names the last committed turn")
      assert.isTrue(incomplete.failed.length > 0 && incomplete.failed.every((f) => f.tool === "set_volume"), "only a stubborn undo fails")
      assert.deepStrictEqual(incomplete.failed.map((f) => f.callId).sort(), [...incomplete.left].sort(), "what failed is what is left")
      assert.deepStrictEqual(yield* session.history, history, "an incomplete undo leaves the turn in history")
      undoneBefore.push(...incomplete.undone)
      report = yield* Effect.either(session.undoLastTurn)
    }
    assert.isTrue(Either.isRight(report), "the undo completes once the stubborn steps are retried")
    if (Either.isLeft(report)) return
    if (expected === undefined) return assert.isTrue(Option.isNone(report.right), "undo with no committed turn left")
    assert.isTrue(Option.isSome(report.right), `undo of turn ${expected} reported nothing`)
    if (Option.isNone(report.right)) return
    const value = { ...report.right.value, undone: [...undoneBefore, ...report.right.value.undone] }
    const { turn } = value
    assert.strictEqual(turn, expected, "undo takes back the last committed turn")
    const reported = new Set(value.undone)
    for (const id of log.succeeded.get(turn) ?? []) assert.isTrue(reported.has(id), `undo of turn ${turn} misses ${id}`)
    for (const id of reported) assert.isTrue(log.ran.get(turn)!.has(id), `undo of turn ${turn} names ${id}, not run in it`)
    assert.deepStrictEqual(undone.splice(0).sort(), [...value.undone].sort(), `undo of turn ${turn}: undos run`)
    assert.strictEqual((yield* session.history).length, length - log.sizes.get(turn)!, `undo of turn ${turn} must take out exactly its messages`)
    for (const map of [log.ran, log.succeeded, log.sizes, log.effects]) map.delete(turn)
  })

/** The undo log at the end: the committed turns left, newest first, then nothing. */
const unwind = (session: AgentSession.AgentSession, log: Log, undone: Array<string>) =>
  Effect.gen(function*() {
    while (log.sizes.size > 0) yield* undoOnce(session, Math.max(...log.sizes.keys()), log, undone)
    yield* undoOnce(session, undefined, log, undone)
  })

/** The pre-transmit filter of a networked plan: upper-cases user text, blocks the `failAt`-th request of the session and interrupts the send at the `interruptAt`-th. */
const preTransmit = (plan: SessionPlan) => {
  let attempt = 0
  return (request: Provider.CompletionRequest): Effect.Effect<Provider.CompletionRequest, Errors.ProviderError> =>
    Effect.suspend(() => {
      const at = attempt++
      if (plan.network?.failAt === at) return new Errors.ProviderError({ provider: "filter", reason: "blocked by the pre-transmit filter", retryable: false })
      if (plan.network?.interruptAt === at) return Effect.interrupt
      return Effect.succeed({ ...request, messages: request.messages.map((m) => m._tag === "User" ? { ...m, text: m.text.toUpperCase() } : m) })
    })
}

/** How the session is made: local, or cloud-profile over `gate` (checked: the gate runs on the first send only, as it proves). */
export type Mode = { readonly mode: "local" } | { readonly mode: "cloudProfile"; readonly gate: Layer.Layer<DriftGate.DriftGate> }

/** A provider playing `script` (whose turns the run sets before each send), and the requests it received. */
export type Model = (
  script: Script.Script,
  capabilities: Provider.CapabilityOverrides
) => Effect.Effect<{ readonly provider: Provider.AgentProvider; readonly requests: Effect.Effect<ReadonlyArray<Provider.CompletionRequest>> }, never, Scope.Scope>

/** The `Scripted` provider as a `Model`. */
export const scripted: Model = (script, capabilities) =>
  Effect.map(Scripted.make(script, capabilities), (provider) => ({ provider, requests: provider.requests }))

/** Runs every send of `plan` on one session over `model` and checks each. */
export const runSession = (plan: SessionPlan, how: Mode = { mode: "local" }, model: Model = scripted) =>
  Effect.gen(function*() {
    const sim = simulate(plan)
    // The script's turns are set just before each send: an undo takes a User message out of history, so a later
    // send plays a turn index an earlier one played (the model's `scriptIndex`).
    const turns: Array<Script.Round[]> = []
    const { provider, requests } = yield* model({ turns }, {
      supportsParallelToolCalls: plan.parallel,
      supportsToolChoice: plan.supportsToolChoice,
      schemaDialect: plan.dialect,
      requiresNetworking: plan.network !== undefined
    })
    const tools = recorded()
    const options = {
      provider,
      toolkit: tools.toolkit,
      limits: { maxToolArgumentRepairs: plan.repairs, maxProviderRoundTrips: plan.roundTrips },
      chainScope: plan.scope,
      preTransmit: preTransmit(plan)
    }
    const validator = ArgumentValidator.layerWith({ toolChaining: plan.chaining })
    // The layers are built in the run's scope: the gate's probe lives there, and must outlive `make`.
    const session = yield* (how.mode === "local" ?
      AgentSession.make({ ...options, mode: "local" }).pipe(Effect.provide(validator)) :
      AgentSession.make({ ...options, mode: "cloudProfile" }).pipe(Effect.provide(yield* Layer.build(Layer.merge(validator, how.gate)))))
    const events = yield* session.subscribe
    const log: Log = { ran: new Map(), succeeded: new Map(), sizes: new Map(), effects: new Map() }
    for (const [i, expected] of sim.expected.entries()) {
      if (expected.scriptIndex >= 0) {
        turns.length = expected.scriptIndex
        turns.push(yield* Script.decode({ turns: [sim.rounds[i]] }).pipe(Effect.map((s) => [...s.turns[0]!])))
      }
      const before = yield* session.history
      const requestsBefore = (yield* requests).length
      const receivedBefore = tools.received.length
      const text = `send ${i + 1}`
      const traced = RecordingTracer.make()
      const exit = yield* session.send(text, { toolChoice: expected.choice }).pipe(Effect.timeout("20 seconds"), Effect.withTracer(traced.tracer), Effect.exit)
      const observed: Observed = {
        index: i + 1,
        text,
        exit,
        before,
        after: yield* session.history,
        requests: (yield* requests).slice(requestsBefore),
        received: tools.received.slice(receivedBefore),
        events: Chunk.toReadonlyArray(yield* Queue.takeAll(events)),
        spans: traced.spans.filter((s) => s.attributes.get("gen_ai.operation.name") === "execute_tool").map((s) => s.attributes)
      }
      checkSend(plan, expected, observed)
      const gated = observed.events.filter((e) => e._tag === "DriftGateChecked")
      assert.deepStrictEqual(gated.map((e) => e._tag === "DriftGateChecked" && e.outcome), how.mode === "cloudProfile" && expected.turn === 1 ? ["proven"] : [], `send ${i + 1}: drift gate events`)
      if (exit._tag === "Success") assert.strictEqual(exit.value.gate?._tag, how.mode === "cloudProfile" && expected.turn === 1 ? "Proven" : undefined, `send ${i + 1}: turn.gate`)
      if (exit._tag === "Failure") {
        // the compensation's undos: exactly the calls it reports compensated
        const compensated = observed.events.flatMap((e) => e._tag === "TurnCompensated" ? e.compensated : [])
        assert.deepStrictEqual(tools.undone.splice(0).sort(), [...compensated].sort(), `send ${i + 1}: compensation undos`)
      }
      if (exit._tag === "Success") {
        log.effects.set(expected.turn, effectsOf(session, expected.turn, observed.after.slice(observed.before.length)))
        log.ran.set(expected.turn, new Set(observed.received.map((r) => r.callId)))
        log.sizes.set(expected.turn, observed.after.length - observed.before.length)
        log.succeeded.set(expected.turn, new Set(observed.received.filter((r) => resultOf(r.tool, r.args as never) !== undefined).map((r) => r.callId)))
      }
      yield* checkLedger(session, log, tools.ledger, `send ${i + 1}`)
      if (expected.undo !== undefined) yield* undoOnce(session, expected.undo.turn, log, tools.undone)
      yield* checkLedger(session, log, tools.ledger, `after send ${i + 1} and its undo`)
    }
    yield* unwind(session, log, tools.undone)
    yield* checkLedger(session, log, tools.ledger, "after the undo log was unwound")
  }).pipe(Effect.scoped)

/** What a whole session did: each send's outcome (the tag, or the answer), the final history and the provider's requests. */
export interface Replay {
  readonly outcomes: ReadonlyArray<string>
  readonly history: ReadonlyArray<unknown>
  readonly requests: number
}

/** Plays every send of `plan` on a fresh local session, one after the other or all started at once. */
export const replay = (plan: SessionPlan, concurrently: boolean): Effect.Effect<Replay> =>
  Effect.gen(function*() {
    const provider = yield* Scripted.make(yield* Effect.orDie(Script.decode(simulate(plan).script)), { schemaDialect: plan.dialect, supportsToolChoice: plan.supportsToolChoice })
    // Every round trip yields first, so sends started together would interleave unless the session serializes them.
    const yielding = {
      ...provider,
      stream: (request: Provider.CompletionRequest) => Stream.concat(Stream.drain(Stream.fromEffect(Effect.yieldNow())), provider.stream(request)),
      complete: (request: Provider.CompletionRequest) => Effect.zipRight(Effect.yieldNow(), provider.complete(request))
    }
    const session = yield* AgentSession.make({
      provider: yielding,
      toolkit: recorded().toolkit,
      mode: "local",
      limits: { maxToolArgumentRepairs: plan.repairs, maxProviderRoundTrips: plan.roundTrips },
      chainScope: plan.scope
    }).pipe(Effect.provide(ArgumentValidator.layerWith({ toolChaining: plan.chaining })), Effect.orDie)
    const outcomes = yield* Effect.forEach(
      plan.turns,
      (_, i) => session.send(`send ${i + 1}`, { toolChoice: plan.choices[i] ?? "auto" }).pipe(
        Effect.match({ onFailure: (e) => e._tag, onSuccess: (turn) => `${turn.turn}: ${turn.text}` }),
        Effect.timeout("10 seconds"),
        Effect.orDie
      ),
      { concurrency: concurrently ? "unbounded" : 1 }
    )
    return { outcomes, history: yield* session.history, requests: (yield* provider.requests).length }
  })

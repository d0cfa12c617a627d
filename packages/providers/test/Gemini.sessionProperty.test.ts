/**
 * The session property test (Session.property.test.ts) with Gemini as the provider: the same random plans
 * (made to fit Gemini's wire, support/geminiScripted.ts), the same model of a turn and the same oracle after
 * every send, but each round reaches the session as a Gemini SSE body over loopback, read by the real
 * `Gemini` provider. Undos the plan asks for run between sends, so history stays what the model predicts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, Queue } from "effect"
import { AgentSession, ArgumentValidator, Errors, type Provider } from "@toolgate/runtime"
import * as Script from "../src/Script.js"
import * as GeminiScripted from "./support/geminiScripted.js"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"
import { session as sessionPlan, type SessionPlan } from "@toolgate/test-support/sessionArbitraries"
import { simulate } from "@toolgate/test-support/sessionModel"
import { checkSend, type Observed } from "@toolgate/test-support/sessionOracle"
import { recorded } from "@toolgate/test-support/sessionTools"

/** The pre-transmit filter of a networked plan, as test-support's sessionRun.ts has it. */
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

const run = (plan: SessionPlan) =>
  Effect.gen(function*() {
    const sim = simulate(plan)
    const turns: Array<Script.Round[]> = []
    const model = yield* GeminiScripted.make({ turns }, {
      supportsParallelToolCalls: plan.parallel,
      supportsToolChoice: plan.supportsToolChoice,
      schemaDialect: plan.dialect,
      requiresNetworking: plan.network !== undefined
    })
    const tools = recorded()
    const session = yield* AgentSession.make({
      provider: model.provider,
      toolkit: tools.toolkit,
      mode: "local",
      limits: { maxToolArgumentRepairs: plan.repairs, maxProviderRoundTrips: plan.roundTrips },
      chainScope: plan.scope,
      preTransmit: preTransmit(plan)
    }).pipe(Effect.provide(ArgumentValidator.layerWith({ toolChaining: plan.chaining })))
    const events = yield* session.subscribe
    for (const [i, expected] of sim.expected.entries()) {
      if (expected.scriptIndex >= 0) {
        turns.length = expected.scriptIndex
        turns.push(yield* Script.decode({ turns: [sim.rounds[i]] }).pipe(Effect.map((s) => [...s.turns[0]!])))
      }
      const before = yield* session.history
      const requestsBefore = (yield* model.requests).length
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
        requests: (yield* model.requests).slice(requestsBefore),
        received: tools.received.slice(receivedBefore),
        events: Chunk.toReadonlyArray(yield* Queue.takeAll(events)),
        spans: traced.spans.filter((s) => s.name === "AgentSession.toolCall").map((s) => s.attributes)
      }
      checkSend(plan, expected, observed)
      if (expected.undo === undefined) continue
      // a stubborn undo refuses once; the next attempt runs what is left
      let undone = yield* Effect.either(session.undoLastTurn)
      for (let attempt = 0; attempt < 3 && Either.isLeft(undone); attempt++) undone = yield* Effect.either(session.undoLastTurn)
      assert.isTrue(Either.isRight(undone), `send ${i + 1}: the undo completes`)
    }
  }).pipe(Effect.scoped)

describe("AgentSession over Gemini's wire, driven by the session property's plans", () => {
  it.live.prop(
    "every send keeps the invariants and does what the model of a turn predicts",
    [sessionPlan.map(GeminiScripted.representable)],
    ([plan]) => run(plan),
    { timeout: 180_000, fastCheck: { numRuns: 40 } }
  )
})

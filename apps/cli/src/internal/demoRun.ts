/**
 * Runs one demo scenario: a real `AgentSession` over `CloudRelay` at the scenario's base URL (cloud-profile
 * scenarios with `DriftGate` over the relay's profile, `RelayProfileClient`), or over `Gemini` at its `/v1beta` for a
 * scenario on Gemini's wire, one send of the scenario's prompt, and the trace of what happened, with the
 * checks that make the demo a self-test.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { CloudRelay, Gemini } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, DriftGate, type Message, Provider, type SessionEvent } from "@toolgate/runtime"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Demo } from "@toolgate/relay"
import { checks, type Check, type Outcome } from "./demoChecks.js"
import * as DemoRequests from "./demoRequests.js"
import * as DemoTools from "./demoTools.js"
import * as DemoTrace from "./demoTrace.js"

/** How a scenario ended and what it showed. */
export interface Result {
  readonly index: number
  readonly scenario: string
  readonly title: string
  readonly expected: Demo.Expect
  readonly got: string
  readonly passed: boolean
  readonly steps: ReadonlyArray<DemoTrace.Step>
  readonly checks: ReadonlyArray<Check>
  readonly ms: number
}

/** Where warnings logged during a turn go (the demo's logger writes into the current scenario's list). */
export interface WarningSink {
  current: Array<string>
}

/** The error's key fields (its tag and message aside), for the trace. */
const fieldsOf = (error: unknown): Record<string, unknown> => {
  if (typeof error !== "object" || error === null) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(error)) if (key !== "_tag" && key !== "message" && key !== "cause") out[key] = value
  return out
}

/** The outcome of the send: the turn, a typed error, or a defect described in one line. */
const outcomeOf = (exit: Exit.Exit<AgentSession.Turn, unknown>): Outcome => {
  if (Exit.isSuccess(exit)) return { _tag: "Committed", turn: exit.value }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value as { readonly _tag?: unknown; readonly message?: unknown }
    return {
      _tag: "Failed",
      error: typeof error._tag === "string" ? error._tag : "UnknownError",
      message: typeof error.message === "string" ? error.message : String(error),
      fields: fieldsOf(error)
    }
  }
  return { _tag: "Failed", error: "Defect", message: Cause.pretty(exit.cause).split("\n")[0] ?? "a defect", fields: {} }
}

/** The errors the drift gate fails a send with. */
const gateErrors: ReadonlySet<string> = new Set(["SchemaDriftError", "UnsupportedCloudToolSchema", "RelayProfileContractError"])

/** The gate's failure in a few words: the error and the tool it names. */
const gateDetail = (outcome: Extract<Outcome, { _tag: "Failed" }>): string => {
  const tool = outcome.fields["tool"]
  return typeof tool === "string" ? `${outcome.error} on ${tool}` : outcome.error
}

/**
 * The relay client of a scenario: its timeouts fail a hung relay within seconds (never hanging the demo), and
 * it declares the scenario's execution model (a relay whose model runs tools itself is provider-driven).
 */
const relayOptions = (baseUrl: string, scenario: Demo.Scenario): CloudRelay.Options => ({
  baseUrl,
  timeout: Duration.seconds(10),
  idleTimeout: Duration.seconds(10),
  capabilities: { executionModel: scenario.executionModel, ...clientCapabilities(scenario.client ?? {}) }
})

/** What a scenario's client declares beyond the relay's defaults: no native tool calling; a `maxTools` with dynamic discovery. */
const clientCapabilities = (client: Demo.Client): Provider.CapabilityOverrides => ({
  ...(client.textTools === true ? { supportsToolCalling: false } : {}),
  ...(client.maxTools === undefined ? {} : { maxTools: client.maxTools, toolDiscovery: Provider.dynamicPerRequest })
})

/** What a session's turn left: how it ended, its trace, the runs, the history and what each request offered. */
interface Turned {
  readonly outcome: Outcome
  readonly trace: ReadonlyArray<DemoTrace.Step>
  readonly ran: ReadonlyArray<DemoTools.Ran>
  readonly history: ReadonlyArray<Message.Message>
  readonly offered: ReadonlyArray<DemoRequests.Offered>
  readonly declared: ReadonlyArray<DemoRequests.Declaration>
}

/** What a session of the scenario is made of: its toolkit (and run log), the provider in context (recorded), the sampling. */
const prepare = (scenario: Demo.Scenario) =>
  Effect.gen(function*() {
    const client = scenario.client ?? {}
    const { ran, toolkit } = yield* DemoTools.make({ domains: client.maxTools !== undefined, ...(client.tools === undefined ? {} : { tools: client.tools }) })
    const recorded = DemoRequests.recorded(yield* Provider.Provider)
    const options = { provider: recorded.provider, toolkit, ...(client.sampling === undefined ? {} : { sampling: client.sampling }) }
    return { ran, offered: recorded.offered, options }
  })

/** What a run reports as it goes: each event of the turn as it happens (the demo's live output). */
export type OnEvent = (event: AgentSession.TurnEvent) => Effect.Effect<void>

const ignore: OnEvent = () => Effect.void

/** Streams the scenario's prompt on the session (each event to `onEvent` as it happens) and collects everything the trace shows. */
const converse = (scenario: Demo.Scenario, sink: WarningSink, made: AgentSession.AgentSession, prepared: Effect.Effect.Success<ReturnType<typeof prepare>>, onEvent: OnEvent) =>
  Effect.gen(function*() {
    const { offered, ran } = prepared
    const events: Array<SessionEvent.SessionEvent> = []
    let turn: AgentSession.Turn | undefined
    const warnings: Array<string> = []
    sink.current = warnings
    const streamed = yield* Effect.exit(Stream.runForEach(made.stream(scenario.prompt), (event) => {
      if (event._tag === "TurnFinished") turn = event.turn
      else events.push(event)
      return onEvent(event)
    }))
    sink.current = []
    const outcome = outcomeOf(Exit.flatMap(streamed, () => turn === undefined ? Exit.die("the turn's stream ended without TurnFinished") : Exit.succeed(turn)))
    const gateError = outcome._tag === "Failed" && gateErrors.has(outcome.error) ? gateDetail(outcome) : undefined
    const built = DemoTrace.build(scenario.prompt, events, ran, warnings, gateError)
    // Only the scenarios whose point is what a request offers show it (the others' traces stay as documented).
    const history = yield* made.history
    const declared = scenario.client?.gemini === undefined ? [] : DemoRequests.declared(history)
    const trace = scenario.client === undefined ? built : DemoRequests.annotateDeclared(DemoRequests.annotate(built, offered), declared)
    return { outcome, trace, ran, history, offered, declared } satisfies Turned
  })

/** A session over `CloudRelay` at the scenario's base URL (cloud-profile ones behind `DriftGate` over the relay's profile, `RelayProfileClient`). */
const relaySession = (scenario: Demo.Scenario, baseUrl: string, sink: WarningSink, onEvent: OnEvent) =>
  Effect.gen(function*() {
    const prepared = yield* prepare(scenario)
    const made = scenario.mode === "cloudProfile"
      ? yield* AgentSession.make({ ...prepared.options, mode: "cloudProfile" })
      : yield* AgentSession.make({ ...prepared.options, mode: "local" })
    return yield* converse(scenario, sink, made, prepared, onEvent)
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(
      DriftGate.layer.pipe(Layer.provideMerge(CloudRelay.layerWith(relayOptions(baseUrl, scenario)))),
      ArgumentValidator.layerWith({ toolChaining: scenario.toolChaining })
    ))
  )

/** The Gemini client of a scenario, at the scenario's `/v1beta` (the relay needs no key), failing a hung relay within seconds. */
const geminiOptions = (baseUrl: string, model: string): Gemini.Options => ({
  baseUrl: `${baseUrl}/v1beta`,
  model,
  timeout: Duration.seconds(10),
  idleTimeout: Duration.seconds(10)
})

/** A local-mode session over toolgate's `Gemini` provider, speaking Gemini's wire to the scenario's relay (Gemini serves no capabilities profile: no gate). */
const geminiSession = (scenario: Demo.Scenario, model: string, baseUrl: string, sink: WarningSink, onEvent: OnEvent) =>
  Effect.gen(function*() {
    const prepared = yield* prepare(scenario)
    const made = yield* AgentSession.make({ ...prepared.options, mode: "local" })
    return yield* converse(scenario, sink, made, prepared, onEvent)
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(
      Gemini.layerWith(geminiOptions(baseUrl, model)),
      ArgumentValidator.layerWith({ toolChaining: scenario.toolChaining })
    ))
  )

/** Makes the session the scenario asks for, sends its prompt, and collects everything the trace shows. */
const session = (scenario: Demo.Scenario, baseUrl: string, sink: WarningSink, onEvent: OnEvent) =>
  scenario.client?.gemini === undefined
    ? relaySession(scenario, baseUrl, sink, onEvent)
    : geminiSession(scenario, scenario.client.gemini.model, baseUrl, sink, onEvent)

/** Runs scenario number `index` (1-based) against the relay at `baseUrl` (the scenario's own base URL), each event of its turn to `onEvent` as it happens. */
export const run = (
  scenario: Demo.Scenario,
  index: number,
  baseUrl: string,
  sink: WarningSink,
  onEvent: OnEvent = ignore
): Effect.Effect<Result, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const attempt = yield* Effect.exit(session(scenario, baseUrl, sink, onEvent))
    const ms = (yield* Clock.currentTimeMillis) - started
    const base = { index, scenario: scenario.name, title: scenario.title, expected: scenario.expect, ms }
    if (Exit.isFailure(attempt)) {
      const message = Cause.pretty(attempt.cause).split("\n")[0] ?? "the session could not be built"
      return { ...base, got: "Defect", passed: false, steps: [{ step: "note", text: message }], checks: [] } satisfies Result
    }
    const { declared, history, offered, outcome, ran, trace } = attempt.value
    const requests = offered.length
    const got = outcome._tag === "Committed" ? "committed" : outcome.error
    const verdicts = checks(scenario, { outcome, ran, history, requests, offered, trace, declared })
    const notes: Array<DemoTrace.Step> = scenario.executionModel === "providerDriven"
      ? [{ step: "note", text: "this relay's model runs the tools itself: the client is declared provider-driven, so layers 1–3 are skipped and the event contract is checked" }]
      : []
    const ending: DemoTrace.Step = outcome._tag === "Committed"
      ? { step: "answer", text: outcome.turn.text }
      : { step: "error", error: outcome.error, message: outcome.message, fields: outcome.fields }
    return {
      ...base,
      got,
      passed: got === scenario.expect && verdicts.every((c) => c.ok),
      steps: [...notes, ...trace, ending, {
        step: "after",
        streamRequests: requests,
        toolsRan: ran.map((r) => `${r.tool} (${r.callId})`),
        historyMessages: history.length
      }],
      checks: verdicts
    } satisfies Result
  })

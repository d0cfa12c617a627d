/**
 * A turn's round trips: the request built, the provider's events read through the contract stage (their text
 * published as it passes), then acted on: app-driven rounds until one has no tool calls (each round's calls
 * validated as a whole before any runs), or the one round of a provider that ran the tools itself.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as EventContract from "../EventContract.js"
import type * as Message from "../Message.js"
import * as Telemetry from "../Telemetry.js"
import * as RoundEvents from "./roundEvents.js"
import { answerRound, reportCall } from "./sessionCalls.js"
import { advance, artifactsOf, type Current, discard, type TurnOptions } from "./sessionCurrent.js"
import * as SessionJournal from "./sessionJournal.js"
import * as SessionRequest from "./sessionRequest.js"
import * as SessionRound from "./sessionRound.js"
import { type Env, publish } from "./sessionState.js"
import * as TextTools from "./textTools.js"

/** One round trip: the request (cut, filtered), the provider's events through the contract stage, collected. */
const roundTrip = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  yield* current.budget.roundTrip()
  const round = ++current.rounds
  const mark: RoundEvents.Mark = { turn: current.number, round, texted: false }
  current.mark = mark
  yield* publish(env, { _tag: "RoundStarted", turn: current.number, round })
  const capabilities = env.provider.capabilities
  const all = [...(yield* Ref.get(env.history)), ...current.progress.messages]
  const active = (yield* Ref.get(env.discovery)).request.names
  const maxToolCalls = capabilities.executionModel === "providerDriven" ? env.limits.maxToolCallsPerTurn : undefined
  let request = SessionRequest.build({
    capabilities,
    all,
    turnStart: current.start,
    seen: yield* Ref.get(env.seen),
    definitions: current.definitions,
    active,
    textRouted: current.textRouted,
    persona: env.persona,
    directives: options.directives,
    toolChoice: options.toolChoice,
    structuredOutput: options.structuredOutput,
    sampling: current.sampling,
    maxToolCallsPerTurn: maxToolCalls,
    model: options.model
  })
  if (capabilities.requiresNetworking && env.preTransmit !== undefined) request = yield* env.preTransmit(request)
  const contract: EventContract.Options = {
    toolCalling: capabilities.supportsToolCalling,
    ...(maxToolCalls === undefined ? {} : { maxToolCalls })
  }
  const events = yield* RoundEvents.tracked(env, `${env.id}:${current.number}:${round}`, () => RoundEvents.read(env, request, contract, mark))
    .pipe(Telemetry.chatSpan(capabilities, request))
  return { events, sent: all.length, active }
})

/** A managed conversation's backend has seen what was sent and the `answered` messages it wrote itself. */
const saw = (env: Env, sent: number, answered: number) => Ref.set(env.seen, sent + answered)

/** App-driven rounds until one has no tool calls; the last round's text. */
export const appRounds = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  while (true) {
    const { active, events, sent } = yield* roundTrip(env, current, options)
    const collected = SessionRound.collectApp(events)
    const round = current.textRouted ? { ...collected, ...TextTools.parse(collected.text, current.rounds) } : collected
    const calls = SessionRound.distinctIds(round.calls, current.ids, current.rounds)
    if (calls.length > 0) yield* discard(env, current, "the round called tools: the answer is a later round's text")
    const assistant: Message.Assistant = { _tag: "Assistant", text: round.text, toolCalls: calls }
    yield* saw(env, sent, 1)
    if (env.durable !== undefined) SessionJournal.queue(env.durable, [assistant])
    const answered = calls.length === 0 ? [] : (yield* answerRound(env, {
      turn: current.number,
      round: current.rounds,
      calls,
      strict: current.definitions.strict,
      active,
      budget: current.budget,
      results: env.chainScope === "session"
        ? new Map([...(yield* Ref.get(env.results)), ...current.progress.results])
        : current.progress.results,
      artifacts: env.chainScope === "session" ? new Map([...(yield* Ref.get(env.artifacts)), ...artifactsOf(current)]) : artifactsOf(current),
      executions: current.executions
    })).answered
    const results = answered.map((a): Message.Message => ({ _tag: "ToolResult", callId: a.callId, name: a.tool, envelope: a.envelope }))
    if (env.durable !== undefined) SessionJournal.queue(env.durable, results)
    advance(current, { messages: [assistant, ...results], answered, inputTokens: round.inputTokens, outputTokens: round.outputTokens })
    if (calls.length === 0) return round.text
  }
})

/** The provider ran the tools: one round, its history built from the lifecycle events, each call reported. */
export const providerRound = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  const { events, sent } = yield* roundTrip(env, current, options)
  const round = SessionRound.collectProvider(events)
  yield* saw(env, sent, round.messages.length)
  const calls = new Map(round.calls.map((c) => [c.id, c] as const))
  const at = { turn: current.number, round: current.rounds }
  const answered = yield* Effect.forEach(
    round.messages.filter((m): m is Message.ToolResult => m._tag === "ToolResult"),
    (m) => reportCall(env, at, calls.get(m.callId)!, "provider", [], Effect.succeed(m.envelope))
  )
  // history gets each result as the model may be sent it (cut to maxToolResultBytes), as app-driven rounds do
  const cut = new Map(answered.map((a) => [a.callId, a.envelope] as const))
  const messages = round.messages.map((m) => m._tag === "ToolResult" ? { ...m, envelope: cut.get(m.callId) ?? m.envelope } : m)
  advance(current, { messages, answered, inputTokens: round.inputTokens, outputTokens: round.outputTokens })
  return round.text
})

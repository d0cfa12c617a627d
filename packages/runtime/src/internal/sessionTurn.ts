/**
 * One turn of a session, as DESIGN.md draws it: the checks that may refuse a send before the user's
 * message is recorded, then the message, the drift gate, the round trips (app-driven: until a round has
 * no tool calls; provider-driven: one) and the commit. A typed failure (or an interruption) after the
 * user's message rolls the turn back: history keeps only that message and no undo entry is written.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type { JsonSchema } from "@toolgate/json-schema"
import type * as AgentSession from "../AgentSession.js"
import type * as DriftGate from "../DriftGate.js"
import { ProviderError, ToolChoiceUnsupported, TurnDeadlineExceeded } from "../Errors.js"
import * as EventContract from "../EventContract.js"
import type * as Message from "../Message.js"
import type * as Provider from "../Provider.js"
import * as RepairBudget from "../RepairBudget.js"
import * as RunLimits from "../RunLimits.js"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import { safeString } from "./json.js"
import { answerRound } from "./sessionCalls.js"
import { type Compensated, failedAfterTools, rollBack } from "./sessionCompensate.js"
import * as SessionRequest from "./sessionRequest.js"
import * as SessionRound from "./sessionRound.js"
import { type Env, type Execution, publish } from "./sessionState.js"

/** What a send asks for besides the text. */
export interface TurnOptions<A, X> {
  readonly toolChoice: Provider.ToolChoice
  /** Sent as the request's `structuredOutput` (generate). */
  readonly structuredOutput?: JsonSchema.JsonSchema
  /** Reads the final text before the commit (generate's decoding); a failure rolls the turn back. */
  readonly accept: (text: string) => Effect.Effect<A, X>
}

/** A turn in progress: everything here is dropped on rollback. */
interface Current {
  readonly number: number
  /** The index of the turn's User message in history. */
  readonly start: number
  readonly budget: RepairBudget.RepairBudget
  readonly definitions: SessionRequest.Definitions
  /** The turn's messages after the User message. */
  readonly messages: Array<Message.Message>
  readonly answered: Array<AgentSession.Answered>
  /** The call ids used in the turn so far (a repeated or empty one is renamed). */
  readonly ids: Set<string>
  /** Every call whose executor started, in start order (compensated on rollback, undo entries on commit). */
  readonly executions: Array<Execution>
  /** The envelopes of this turn's answered calls, by call id. */
  readonly results: Map<string, ToolEnvelope.Envelope>
  readonly tokens: { input: number; output: number }
  rounds: number
  /** Set by the commit: an interruption that arrives after it does not roll anything back. */
  committed: boolean
  /** What the send answers, set with the commit (a deadline that strikes after the commit still answers it). */
  done: unknown
}

const toolChoices: ReadonlySet<unknown> = new Set(["auto", "required", "none"])

/** The checks before the user's message is recorded: tool choice, definitions, the provider's `validateTools`. */
const admit = Effect.fnUntraced(function*(env: Env, toolChoice: Provider.ToolChoice) {
  const capabilities = env.provider.capabilities
  if (!toolChoices.has(toolChoice) || (toolChoice !== "auto" && !capabilities.supportsToolChoice)) {
    return yield* new ToolChoiceUnsupported({ choice: safeString(toolChoice), provider: safeString(capabilities.name) })
  }
  const definitions = yield* SessionRequest.definitions(env.toolkit, capabilities, {
    toolChaining: env.validator.toolChaining,
    strictDisabled: env.strictDisabled
  })
  const warnings = yield* env.provider.validateTools(definitions.tools)
  return { definitions, warnings }
})

/** Cloud-profile, app-driven: the drift gate, unless an earlier send proved the toolkit. */
const gate = Effect.fnUntraced(function*(env: Env, turn: number) {
  if (env.gate === undefined || env.provider.capabilities.executionModel !== "appDriven") return undefined
  if (yield* Ref.get(env.proven)) return undefined
  const verdict: DriftGate.Verdict = yield* env.gate.check(env.toolkit)
  if (verdict._tag === "Proven") yield* Ref.set(env.proven, true)
  yield* publish(env, {
    _tag: "DriftGateChecked",
    turn,
    outcome: verdict._tag === "Proven" ? "proven" : "degraded",
    tools: verdict._tag === "Proven" ? verdict.tools : [],
    detail: verdict._tag === "Proven" ? `${verdict.tools.length} exported tool(s) proven` : verdict.detail
  })
  return verdict
})

/** One round trip: the request (cut, filtered), the provider's events through the contract stage, collected. */
const roundTrip = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  yield* current.budget.roundTrip()
  current.rounds++
  yield* publish(env, { _tag: "RoundStarted", turn: current.number, round: current.rounds })
  const capabilities = env.provider.capabilities
  const all = [...(yield* Ref.get(env.history)), ...current.messages]
  const messages = SessionRequest.messages(capabilities, all, current.start, yield* Ref.get(env.seen))
  let request: Provider.CompletionRequest = {
    messages,
    tools: current.definitions.tools,
    toolChoice: options.toolChoice,
    ...(options.structuredOutput === undefined ? {} : { structuredOutput: options.structuredOutput })
  }
  if (capabilities.requiresNetworking && env.preTransmit !== undefined) request = yield* env.preTransmit(request)
  const limit = env.maxEventsPerRound
  const events = yield* env.provider.stream(request).pipe(
    EventContract.check(capabilities.executionModel),
    Stream.take(limit + 1),
    Stream.runCollect
  )
  if (events.length > limit) {
    return yield* new ProviderError({
      provider: safeString(capabilities.name),
      reason: `the round trip streamed more than ${limit} events (the session's maxEventsPerRound)`,
      retryable: false
    })
  }
  return { events: Chunk.toReadonlyArray(events), sent: all.length }
})

/** A managed conversation's backend has seen what was sent and the `answered` messages it wrote itself. */
const saw = (env: Env, sent: number, answered: number) => Ref.set(env.seen, sent + answered)

const count = (current: Current, round: SessionRound.AppRound) => {
  current.tokens.input += round.inputTokens
  current.tokens.output += round.outputTokens
}

/** Records answered calls: history messages, results for chaining, the turn's list. */
const record = (current: Current, answered: ReadonlyArray<AgentSession.Answered>) => {
  for (const a of answered) {
    current.messages.push({ _tag: "ToolResult", callId: a.callId, name: a.tool, envelope: a.envelope })
    current.results.set(a.callId, a.envelope)
    current.answered.push(a)
  }
}

/** App-driven rounds until one has no tool calls; the last round's text. */
const appRounds = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  while (true) {
    const { events, sent } = yield* roundTrip(env, current, options)
    const round = SessionRound.collectApp(events)
    count(current, round)
    const calls = SessionRound.distinctIds(round.calls, current.ids, current.rounds)
    current.messages.push({ _tag: "Assistant", text: round.text, toolCalls: calls })
    yield* saw(env, sent, 1)
    if (calls.length === 0) return round.text
    const results = env.chainScope === "session"
      ? new Map([...(yield* Ref.get(env.results)), ...current.results])
      : current.results
    const out = yield* answerRound(env, {
      turn: current.number,
      round: current.rounds,
      calls,
      strict: current.definitions.strict,
      budget: current.budget,
      results,
      executions: current.executions
    })
    record(current, out.answered)
  }
})

/** The provider ran the tools: one round, its history built from the lifecycle events. */
const providerRound = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
  const { events, sent } = yield* roundTrip(env, current, options)
  const round = SessionRound.collectProvider(events)
  count(current, round)
  current.messages.push(...round.messages)
  yield* saw(env, sent, round.messages.length)
  const calls = new Map(round.messages.flatMap((m) => m._tag === "Assistant" ? m.toolCalls.map((c) => [c.id, c] as const) : []))
  const answered = round.messages.flatMap((m): ReadonlyArray<AgentSession.Answered> => {
    if (m._tag !== "ToolResult") return []
    const args = calls.get(m.callId)?.arguments
    return [{ callId: m.callId, tool: m.name, ...(args === undefined ? {} : { arguments: args }), envelope: m.envelope }]
  })
  for (const a of answered) {
    current.results.set(a.callId, a.envelope)
    current.answered.push(a)
    const at = { turn: current.number, round: current.rounds, callId: a.callId, tool: a.tool }
    yield* publish(env, { _tag: "ToolCalled", ...at, ...(a.arguments === undefined ? {} : { arguments: a.arguments }), outcome: "valid", issues: [] })
      .pipe(
        Effect.zipRight(publish(env, { _tag: "ToolAnswered", ...at, envelope: a.envelope })),
        // The provider ran the call: its span says so and carries what it ended with (no arguments were checked here).
        Effect.withSpan("AgentSession.toolCall", {
          attributes: {
            "tool.name": a.tool,
            "tool.call_id": a.callId,
            "tool.outcome": "provider",
            "tool.result": a.envelope.ok ? "success" : a.envelope.kind,
            "tool.issue_count": 0
          }
        })
      )
  }
  return round.text
})

/** Appends the turn's messages, its undo entry and its results; one step no interruption can split. */
const commit = (env: Env, current: Current) =>
  Effect.uninterruptible(Effect.gen(function*() {
    yield* Ref.update(env.history, (h) => [...h, ...current.messages])
    yield* Ref.update(env.undoLog, (log) => [
      ...log,
      { turn: current.number, start: current.start, count: current.messages.length + 1, calls: [...current.results.keys()], steps: current.executions.flatMap((e) => e.undo === undefined ? [] : [e.undo]) }
    ])
    if (env.chainScope === "session" && current.results.size > 0) yield* Ref.update(env.results, (r) => new Map([...r, ...current.results]))
    current.committed = true
    yield* publish(env, { _tag: "TurnCommitted", turn: current.number, rounds: current.rounds, toolCalls: current.answered.length })
  }))

/** Records the user's message and starts the turn's state. */
const begin = Effect.fnUntraced(function*(env: Env, text: string, definitions: SessionRequest.Definitions) {
  const number = yield* Ref.updateAndGet(env.turns, (n) => n + 1)
  const start = yield* Ref.modify(env.history, (h) => [h.length, [...h, { _tag: "User", text } as const]])
  yield* publish(env, { _tag: "TurnStarted", turn: number, text })
  const current: Current = {
    number,
    start,
    budget: yield* RepairBudget.make(env.limits),
    definitions,
    messages: [],
    answered: [],
    ids: new Set(),
    executions: [],
    results: new Map(),
    tokens: { input: 0, output: 0 },
    rounds: 0,
    committed: false,
    done: undefined
  }
  return current
})

/** The turn after the user's message: gate, rounds, acceptance of the final text, commit. */
const body = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>, warnings: ReadonlyArray<Provider.ToolSchemaWarning>) {
  const verdict = yield* gate(env, current.number)
  const text = env.provider.capabilities.executionModel === "providerDriven"
    ? yield* providerRound(env, current, options)
    : yield* appRounds(env, current, options)
  const value = yield* options.accept(text)
  const usage = yield* current.budget.usage()
  const turn: AgentSession.Turn = {
    turn: current.number,
    text,
    calls: current.answered,
    usage: { ...usage, inputTokens: current.tokens.input, outputTokens: current.tokens.output },
    warnings,
    gate: verdict
  }
  current.done = [turn, value] as const
  yield* commit(env, current)
  return [turn, value] as const
})

/** Runs one send: admitted, begun, rounds, committed; or rolled back to the user's message (its executed calls compensated). */
export const run = <A, X extends { readonly _tag: string; readonly message: string }>(
  env: Env,
  text: string,
  options: TurnOptions<A, X>
): Effect.Effect<readonly [AgentSession.Turn, A], AgentSession.SendError | X> =>
  Effect.gen(function*() {
    const { definitions, warnings } = yield* admit(env, options.toolChoice)
    const current = yield* begin(env, text, definitions)
    let compensated: Compensated | undefined
    const limitMillis = env.limits.turnDeadlineMillis ?? RunLimits.defaultTurnDeadlineMillis
    return yield* body(env, current, options, warnings).pipe(
      // past the deadline the turn is interrupted where it is (a running executor included), then compensated
      Effect.timeoutFail({ duration: Duration.millis(limitMillis), onTimeout: () => new TurnDeadlineExceeded({ limitMillis }) }),
      // the deadline struck between the commit and the answer: the turn is committed, so it is the answer
      Effect.catchIf((e) => e instanceof TurnDeadlineExceeded && current.committed, () => Effect.succeed(current.done as readonly [AgentSession.Turn, A])),
      // an onExit finalizer is uninterruptible: an interrupted send is compensated before the interruption completes
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && !current.committed
          ? Effect.map(rollBack(env, current.number, current.executions, exit.cause), (c) => void (compensated = c))
          : Effect.void
      ),
      Effect.mapError((e) => failedAfterTools(current.number, compensated, e)),
      // A managed conversation cannot have seen more than history now holds.
      Effect.ensuring(Effect.flatMap(Ref.get(env.history), (h) => Ref.update(env.seen, (s) => Math.min(s, h.length))))
    )
  })

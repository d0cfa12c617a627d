/**
 * One turn of a session, as docs/architecture.md draws it: the checks that may refuse a send before the user's
 * message is recorded, then the message, the drift gate, the round trips (app-driven: until a round has
 * no tool calls; provider-driven: one) and the commit. A typed failure (or an interruption) after the
 * user's message rolls the turn back: history keeps only that message and no undo entry is written.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type { JsonSchema, JsonValue as J } from "@toolgate/json-schema"
import type * as AgentSession from "../AgentSession.js"
import type * as DriftGate from "../DriftGate.js"
import { ModelSelectionUnsupported, ToolChoiceUnsupported, TurnDeadlineExceeded, VisionUnsupported } from "../Errors.js"
import * as EventContract from "../EventContract.js"
import type * as Message from "../Message.js"
import * as Provider from "../Provider.js"
import * as RepairBudget from "../RepairBudget.js"
import * as RunLimits from "../RunLimits.js"
import * as Telemetry from "../Telemetry.js"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import { safeString } from "./json.js"
import { clip } from "@toolgate/json-schema/Text"
import * as Deadline from "./deadline.js"
import { answerRound, reportCall } from "./sessionCalls.js"
import { type Compensated, outstandingOf, reported, rollBack, stays } from "./sessionCompensate.js"
import * as RoundEvents from "./roundEvents.js"
import * as SessionRequest from "./sessionRequest.js"
import * as SessionRound from "./sessionRound.js"
import * as TextTools from "./textTools.js"
import * as ToolDiscovery from "./toolDiscovery.js"
import * as SessionJournal from "./sessionJournal.js"
import * as SessionResume from "./sessionResume.js"
import { type Env, type Execution, publish, startKeys, type UndoEntry } from "./sessionState.js"

/** What a send asks for besides the text. */
export interface TurnOptions<A, X> {
  readonly toolChoice: Provider.ToolChoice
  /** Sent as the request's `structuredOutput` (generate). */
  readonly structuredOutput?: JsonSchema.JsonSchema
  /** Reads the final text before the commit (generate's decoding); a failure rolls the turn back. */
  readonly accept: (text: string) => Effect.Effect<A, X>
  /** The send's directives (see `SessionRequest.prompt`). */
  readonly directives?: string
  /** The send's sampling, key by key over the session's. */
  readonly sampling: Provider.Sampling
  /** The images the user's message carries. */
  readonly images?: ReadonlyArray<Message.Image>
  /** The model the send chose (see `Provider.modelSelection`). */
  readonly model?: string
}

/** A turn in progress: everything here is dropped on rollback. */
interface Current {
  readonly number: number
  /** The index of the turn's User message in history. */
  readonly start: number
  readonly budget: RepairBudget.RepairBudget
  readonly definitions: SessionRequest.Definitions
  /** The sampling every request of the turn carries. */
  readonly sampling: Provider.Sampling | undefined
  /** Tools go through text: listed in the system prompt, calls parsed out of the reply. */
  readonly textRouted: boolean
  /** The turn's journal: every call whose executor started, in start order, appended before it starts (compensated on rollback, undo entries on commit). */
  readonly executions: Array<Execution>
  /** The call ids used in the turn so far (a repeated or empty one is renamed). */
  readonly ids: Set<string>
  /** Round trips started. */
  rounds: number
  /** The last round started, and whether its text was published and not yet taken back. */
  mark: RoundEvents.Mark | undefined
  /** What the finished rounds added; changed only by `advance`. */
  readonly progress: Progress
  /** Set by the commit: an interruption that arrives after it does not roll anything back. */
  committed: boolean
  /** What the send answers, set with the commit (a deadline that strikes after the commit still answers it). */
  done: unknown
}

/** What the turn's finished rounds added: the messages after the User message, the answered calls, tokens. */
interface Progress {
  readonly messages: Array<Message.Message>
  readonly answered: Array<AgentSession.Answered>
  /** The envelopes of the answered calls, by call id (what refs of later rounds read). */
  readonly results: Map<string, ToolEnvelope.Envelope>
  inputTokens: number
  outputTokens: number
}

/** What one finished round adds. */
interface RoundRecord {
  readonly messages: ReadonlyArray<Message.Message>
  readonly answered: ReadonlyArray<AgentSession.Answered>
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The one place the turn's progress changes: a finished round is added (in place: the turn's own state, dropped on rollback). */
const advance = (current: Current, round: RoundRecord): void => {
  const p = current.progress
  for (const message of round.messages) p.messages.push(message)
  for (const a of round.answered) {
    p.answered.push(a)
    p.results.set(a.callId, a.envelope)
  }
  p.inputTokens += round.inputTokens
  p.outputTokens += round.outputTokens
}

const isToolChoice = Schema.is(Provider.ToolChoice)

/** The checks before the user's message is recorded: tool choice, definitions, the provider's `validateTools`. */
const admit = Effect.fnUntraced(function*<A, X>(env: Env, toolChoice: Provider.ToolChoice, options?: TurnOptions<A, X>) {
  const capabilities = env.provider.capabilities
  if (!isToolChoice(toolChoice) || (toolChoice !== "auto" && !capabilities.supportsToolChoice)) {
    return yield* new ToolChoiceUnsupported({ choice: safeString(toolChoice), provider: capabilities.name })
  }
  if (options?.images !== undefined && !Provider.supportsVision(capabilities)) {
    return yield* new VisionUnsupported({ provider: capabilities.name, images: options.images.length })
  }
  if (options?.model !== undefined && Provider.modelSelection(capabilities) !== "perRequest") {
    return yield* new ModelSelectionUnsupported({ provider: capabilities.name, model: options.model, modelSelection: Provider.modelSelection(capabilities) })
  }
  const definitions = env.definitions
  const warnings = env.provider.validateTools === undefined ? [] : yield* env.provider.validateTools(definitions.tools)
  yield* Ref.set(env.lastSchemaWarnings, warnings)
  const { leftOut } = ToolDiscovery.requestTools(env.toolkit, capabilities, yield* Ref.get(env.discovery))
  const requestWarnings = leftOut === 0
    ? []
    : [`${capabilities.name} takes at most ${capabilities.maxTools} tools: ${leftOut} of the toolkit's tools were left out of the requests`]
  return { definitions, warnings, requestWarnings }
})

/**
 * The session's tool definitions in the provider's dialect, built once when the session is made (the
 * toolkit, the provider and the validator are the session's for good); tools routed through text are never
 * sent strict.
 */
export const definitionsFor = (
  toolkit: Env["toolkit"],
  capabilities: Provider.ProviderCapabilities,
  options: { readonly toolChaining: boolean; readonly strictTools: boolean }
): SessionRequest.Definitions =>
  SessionRequest.definitions(toolkit, capabilities, {
    toolChaining: options.toolChaining,
    strictDisabled: !options.strictTools || textRouted(capabilities)
  })

/** Whether the session routes tools through text: an app-driven provider without native tool calling. */
const textRouted = (capabilities: Provider.ProviderCapabilities): boolean =>
  capabilities.supportsToolCalling !== true && capabilities.executionModel === "appDriven"

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
  const round = ++current.rounds
  const mark: RoundEvents.Mark = { turn: current.number, round, texted: false }
  current.mark = mark
  yield* publish(env, { _tag: "RoundStarted", turn: current.number, round })
  const capabilities = env.provider.capabilities
  const all = [...(yield* Ref.get(env.history)), ...current.progress.messages]
  const active = ToolDiscovery.requestTools(env.toolkit, capabilities, yield* Ref.get(env.discovery)).names
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

/** Takes back the last round's published text (a `RoundDiscarded`), when it published any not yet taken back. */
const discard = (env: Env, current: Current, reason: string): Effect.Effect<void> => {
  const mark = current.mark
  if (mark === undefined || !mark.texted) return Effect.void
  mark.texted = false
  return publish(env, { _tag: "RoundDiscarded", turn: mark.turn, round: mark.round, reason })
}

/** Why a failed turn's last round is taken back: its typed error's message, an interruption or a defect. */
const lostBecause = (cause: Cause.Cause<{ readonly message: string }>): string => {
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure)
    ? clip(`the turn failed: ${failure.value.message}`, 500)
    : Cause.isInterruptedOnly(cause)
    ? "the turn was interrupted"
    : "the turn failed with a defect"
}

/** A managed conversation's backend has seen what was sent and the `answered` messages it wrote itself. */
const saw = (env: Env, sent: number, answered: number) => Ref.set(env.seen, sent + answered)

/** The artifacts of the turn's answered calls that succeeded, by call id. */
const artifactsOf = (current: Current): Map<string, ReadonlyMap<string, J.JsonValue>> =>
  new Map(current.executions.flatMap((e) => e.envelope?.ok === true && e.artifacts.size > 0 ? [[e.callId, e.artifacts] as const] : []))

/** App-driven rounds until one has no tool calls; the last round's text. */
const appRounds = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
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
const providerRound = Effect.fnUntraced(function*<A, X>(env: Env, current: Current, options: TurnOptions<A, X>) {
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

/** Appends the turn's messages, its undo entry and its results (journaled first when the session has a store); one step no interruption can split. */
const commit = (env: Env, current: Current) =>
  Effect.uninterruptible(Effect.gen(function*() {
    const { answered, messages, results } = current.progress
    const entry: UndoEntry = {
      turn: current.number,
      start: current.start,
      count: messages.length + 1,
      calls: [...results.keys()],
      steps: current.executions.flatMap((e) => e.undo === undefined ? [] : [e.undo]),
      kept: current.executions.flatMap((e) => {
        const left = stays(e)
        return left === undefined ? [] : [outstandingOf(current.number, e, left)]
      })
    }
    const keepsResults = env.chainScope === "session" && results.size > 0
    if (env.durable !== undefined) {
      const user = (yield* Ref.get(env.history))[current.start]!
      yield* SessionJournal.commit(env.durable, {
        ...entry,
        messages: [user, ...messages],
        results: keepsResults ? SessionJournal.sessionResults(current.number, results, artifactsOf(current)) : [],
        usage: yield* usageOf(current)
      })
    }
    yield* Ref.update(env.history, (h) => [...h, ...messages])
    yield* Ref.update(env.undoLog, (log) => [...log, entry])
    if (keepsResults) {
      yield* Ref.update(env.results, (r) => new Map([...r, ...results]))
      yield* Ref.update(env.artifacts, (a) => new Map([...a, ...artifactsOf(current)]))
    }
    current.committed = true
    yield* publish(env, { _tag: "TurnCommitted", turn: current.number, rounds: current.rounds, toolCalls: answered.length })
  }))

/** Records the user's message and starts the turn's state. */
const begin = Effect.fnUntraced(function*(env: Env, text: string, definitions: SessionRequest.Definitions, sampling: Provider.Sampling | undefined, images?: ReadonlyArray<Message.Image>) {
  const routed = textRouted(env.provider.capabilities)
  const user: Message.User = images === undefined ? { _tag: "User", text } : { _tag: "User", text, images }
  // the lease is renewed (or found lost: `SessionBusy`) before the turn records anything
  if (env.durable !== undefined) yield* SessionResume.beginTurn(env, env.durable, user)
  const number = yield* Ref.updateAndGet(env.turns, (n) => n + 1)
  yield* startKeys(env, number)
  const start = yield* Ref.modify(env.history, (h) => [h.length, [...h, user]])
  yield* publish(env, { _tag: "TurnStarted", turn: number, text })
  const current: Current = {
    number,
    start,
    budget: yield* RepairBudget.make(env.limits),
    definitions,
    sampling,
    textRouted: routed,
    executions: [],
    ids: new Set(),
    rounds: 0,
    mark: undefined,
    progress: { messages: [], answered: [], results: new Map(), inputTokens: 0, outputTokens: 0 },
    committed: false,
    done: undefined
  }
  env.live.current = current
  return current
})

/** What the turn spent so far. */
const usageOf = (current: Current): Effect.Effect<AgentSession.UsageReport> =>
  Effect.map(current.budget.usage(), (usage) => ({ ...usage, inputTokens: current.progress.inputTokens, outputTokens: current.progress.outputTokens }))

/** The turn after the user's message: gate, rounds, acceptance of the final text, commit. */
const body = Effect.fnUntraced(function*<A, X>(
  env: Env,
  current: Current,
  options: TurnOptions<A, X>,
  warnings: { readonly tools: ReadonlyArray<Provider.ToolSchemaWarning>; readonly request: ReadonlyArray<string> }
) {
  const verdict = yield* gate(env, current.number)
  const text = env.provider.capabilities.executionModel === "providerDriven"
    ? yield* providerRound(env, current, options)
    : yield* appRounds(env, current, options)
  const value = yield* options.accept(text)
  const turn: AgentSession.Turn = {
    turn: current.number,
    text,
    calls: current.progress.answered,
    usage: yield* usageOf(current),
    warnings: warnings.tools,
    requestWarnings: warnings.request,
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
    const { definitions, requestWarnings, warnings } = yield* admit(env, options.toolChoice, options)
    const asked = SessionRequest.sampling(env.provider.capabilities, env.sampling, options.sampling)
    const current = yield* begin(env, text, definitions, asked.sampling, options.images)
    let compensated: Compensated | undefined
    const limitMillis = env.limits.turnDeadlineMillis ?? RunLimits.defaultTurnDeadlineMillis
    const unguarded = body(env, current, options, { tools: warnings, request: [...requestWarnings, ...asked.warnings] })
    const turn = env.durable === undefined ? unguarded : SessionJournal.renewing(env.durable, unguarded)
    // past the deadline the turn is interrupted where it is (a running executor included), then compensated
    return yield* Deadline.within(turn, Duration.millis(limitMillis), () => Effect.fail(new TurnDeadlineExceeded({ limitMillis }))).pipe(
      // the deadline struck between the commit and the answer: the turn is committed, so it is the answer
      Effect.catchIf((e) => e instanceof TurnDeadlineExceeded && current.committed, () => Effect.succeed(current.done as readonly [AgentSession.Turn, A])),
      // the registry of a registry-aware provider runs no call for a turn that has ended
      Effect.ensuring(Effect.sync(() => void (env.live.current === current && (env.live.current = undefined)))),
      // an onExit finalizer is uninterruptible: an interrupted send is compensated before the interruption completes
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && !current.committed
          ? Effect.zipRight(discard(env, current, lostBecause(exit.cause)), Effect.flatMap(usageOf(current), (usage) =>
            Effect.map(rollBack(env, current, { usage: current.rounds === 0 ? undefined : usage, cause: exit.cause, millis: limitMillis }), (c) => void (compensated = c))))
          : Effect.void
      ),
      Effect.mapError((e) => reported(current.number, compensated, e)),
      Effect.ensuring(Effect.all([
        // A managed conversation cannot have seen more than history now holds.
        Effect.flatMap(Ref.get(env.history), (h) => Ref.update(env.seen, (s) => Math.min(s, h.length))),
        Effect.suspend(() => current.rounds === 0 ? Effect.void : Effect.flatMap(usageOf(current), (u) => Ref.set(env.lastUsage, Option.some(u))))
      ], { discard: true }))
    )
  })

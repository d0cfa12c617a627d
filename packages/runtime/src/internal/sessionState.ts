/**
 * What one session holds across its turns (history, undo log, results for chaining, the managed
 * conversation's seen count, the gate's memory) and what it was made with. Per-turn state lives in
 * `sessionTurn.ts`, created for each send.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { JsonValue as J } from "@toolgate/json-schema"
import type * as AgentSession from "../AgentSession.js"
import type * as ArgumentValidator from "../ArgumentValidator.js"
import type * as Compensation from "../Compensation.js"
import type * as DriftGate from "../DriftGate.js"
import type { ProviderError } from "../Errors.js"
import type * as Message from "../Message.js"
import type * as Provider from "../Provider.js"
import type * as RunLimits from "../RunLimits.js"
import type * as SessionEvent from "../SessionEvent.js"
import type * as Errors from "../Errors.js"
import type * as ToolChain from "../ToolChain.js"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import type * as Toolkit from "../Toolkit.js"
import type { Durable } from "./sessionJournal.js"
import type * as SessionRequest from "./sessionRequest.js"
import type * as ToolDiscovery from "./toolDiscovery.js"

/** How to reverse one executed call (its tool's `undo`, already given the call's arguments and result). */
export interface UndoStep {
  readonly callId: string
  readonly tool: string
  /** What the store keeps of it (its `run` is rebuilt from the toolkit by tool name after a restart). */
  readonly arguments: J.JsonValue
  readonly result: J.JsonValue
  readonly idempotencyKey: string
  readonly run: Effect.Effect<void, Errors.ToolFailure>
}

/**
 * A call of the current turn whose executor started, in start order: `envelope` and `undo` are filled in
 * when it answers (an execution left without an envelope was interrupted mid-run).
 */
export interface Execution {
  readonly callId: string
  readonly tool: string
  readonly round: number
  readonly arguments: J.JsonValue
  readonly idempotencyKey: string
  /** Whether its tool declares an undo. */
  readonly undoable: boolean
  /** The artifacts its executor saved, by name. */
  readonly artifacts: Map<string, J.JsonValue>
  envelope: ToolEnvelope.Envelope | undefined
  /** Its time budget ended it: it answered `timeout`, and what it did before it stopped is unknown. */
  timedOut: boolean
  undo: UndoStep | undefined
}

/** One committed turn in the undo log: where its messages sit in history and its undo steps in execution order. */
export interface UndoEntry {
  readonly turn: number
  readonly start: number
  readonly count: number
  /** The ids of the turn's answered calls (their results leave the session's results on undo). */
  readonly calls: ReadonlyArray<string>
  readonly steps: ReadonlyArray<UndoStep>
  /** Its calls no undo can take back (no undo, or timed out), in execution order: outstanding once the turn is undone. */
  readonly kept: ReadonlyArray<Compensation.OutstandingEffect>
}

/** The turn in progress as the registry of a registry-aware provider sees it (the turn's own state, not a copy). */
export interface RunningTurn {
  readonly number: number
  /** Round trips started (the round a call belongs to). */
  readonly rounds: number
  /** The turn's journal (see `Execution`). */
  readonly executions: Array<Execution>
}

/** Which turn is running: set when a turn begins and cleared when it ends, however it ends. */
export interface Live {
  current: RunningTurn | undefined
}

/** Rewrites an outbound request (the pre-transmit filter). */
export type PreTransmit = (request: Provider.CompletionRequest) => Effect.Effect<Provider.CompletionRequest, ProviderError>

/** What a session was made with. */
export interface Config {
  /** The session's id: the first part of every idempotency key. */
  readonly id: string
  readonly provider: Provider.AgentProvider
  /** The toolkit (its executors' requirements come from `context` at each call). */
  readonly toolkit: Toolkit.Toolkit<never>
  /** The context the session was made in: what every executor and undo is given when it runs. */
  readonly context: Context.Context<never>
  readonly validator: ArgumentValidator.Service
  /** The drift gate (cloud-profile mode only). */
  readonly gate: DriftGate.Service | undefined
  readonly limits: RunLimits.Limits
  readonly chainScope: ToolChain.Scope
  readonly preTransmit: PreTransmit | undefined
  /** The most events one round trip may bring; a provider streaming past it fails the turn. */
  readonly maxEventsPerRound: number
  /** The toolkit's definitions as every request of the session carries them (in the provider's dialect, strict where it may be). */
  readonly definitions: SessionRequest.Definitions
  /** The start of every system prompt. */
  readonly persona: string | undefined
  /** The agent's name in its `invoke_agent` span, when it has one. */
  readonly name: string | undefined
  /** The session's sampling (a send's keys override it). */
  readonly sampling: Provider.Sampling
  /** The running turn, for the calls a registry-aware provider runs through the session's registry. */
  readonly live: Live
  /** The turn under way and the random part of its idempotency keys (set when a turn begins; sends are serialized). */
  readonly keys: { turn: number; part: string }
  /** Where every change is journaled before it is made, when a `SessionStore` was in context (`undefined`: the session lives in memory only). */
  readonly durable: Durable | undefined
}

/** Where the running turn's events go besides the hub: a streamed send's consumer. */
export interface Sink {
  readonly emit: (event: SessionEvent.SessionEvent) => Effect.Effect<void>
}

/**
 * The session's events hub, made when the first subscriber comes: events published before it had no one to
 * reach, so a session nobody watches allocates no hub and publishes nothing. `sink` is set for the turn of a
 * streamed send (sends are serialized, so one at a time).
 */
export interface Events {
  readonly capacity: number
  hub: PubSub.PubSub<SessionEvent.SessionEvent> | undefined
  sink: Sink | undefined
}

/** The session's state across turns. */
export interface State {
  readonly events: Events
  readonly history: Ref.Ref<ReadonlyArray<Message.Message>>
  readonly undoLog: Ref.Ref<ReadonlyArray<UndoEntry>>
  /** The envelopes of committed turns' calls, by call id (kept only with chain scope "session"). */
  readonly results: Ref.Ref<ReadonlyMap<string, ToolEnvelope.Envelope>>
  /** The artifacts of committed turns' calls, by call id (kept only with chain scope "session"). */
  readonly artifacts: Ref.Ref<ToolChain.Artifacts>
  /** How many leading history messages a managed-conversation provider already has. */
  readonly seen: Ref.Ref<number>
  /** Whether the drift gate proved the toolkit (then it is not run again). */
  readonly proven: Ref.Ref<boolean>
  /** Turns started so far. */
  readonly turns: Ref.Ref<number>
  /** Effects of failed turns that could not be taken back, oldest first, until the app reconciles them. */
  readonly outstanding: Ref.Ref<ReadonlyArray<Compensation.OutstandingEffect>>
  /** The usage of the last turn that made a request. */
  readonly lastUsage: Ref.Ref<Option.Option<AgentSession.UsageReport>>
  /** What `validateTools` said before the last send. */
  readonly lastSchemaWarnings: Ref.Ref<ReadonlyArray<Provider.ToolSchemaWarning>>
  /** Which domains are active (tool discovery). */
  readonly discovery: Ref.Ref<ToolDiscovery.State>
}

/** A session: its configuration and its state. */
export interface Env extends Config, State {}

/**
 * A session's environment: `config`, with fresh state and `discovery`; its events hub (sliding, of
 * `capacity`: a slow subscriber loses the oldest events) comes with the first subscriber. Every field is
 * written out in one literal, so every session's environment has the same compact shape.
 */
export const makeEnv = (config: Config, capacity: number, discovery: Ref.Ref<ToolDiscovery.State>): Env => ({
  id: config.id,
  provider: config.provider,
  toolkit: config.toolkit,
  context: config.context,
  validator: config.validator,
  gate: config.gate,
  limits: config.limits,
  chainScope: config.chainScope,
  preTransmit: config.preTransmit,
  maxEventsPerRound: config.maxEventsPerRound,
  definitions: config.definitions,
  persona: config.persona,
  name: config.name,
  sampling: config.sampling,
  live: config.live,
  keys: config.keys,
  durable: config.durable,
  events: { capacity, hub: undefined, sink: undefined },
  history: Ref.unsafeMake<ReadonlyArray<Message.Message>>([]),
  undoLog: Ref.unsafeMake<ReadonlyArray<UndoEntry>>([]),
  results: Ref.unsafeMake<ReadonlyMap<string, ToolEnvelope.Envelope>>(new Map()),
  artifacts: Ref.unsafeMake<ToolChain.Artifacts>(new Map()),
  seen: Ref.unsafeMake(0),
  proven: Ref.unsafeMake(false),
  turns: Ref.unsafeMake(0),
  outstanding: Ref.unsafeMake<ReadonlyArray<Compensation.OutstandingEffect>>([]),
  lastUsage: Ref.unsafeMake(Option.none<AgentSession.UsageReport>()),
  lastSchemaWarnings: Ref.unsafeMake<ReadonlyArray<Provider.ToolSchemaWarning>>([]),
  discovery
})

/** A subscription to the session's events, the hub made now if this is the first (a second one made concurrently is dropped). */
export const subscribe = (events: Events): Effect.Effect<Queue.Dequeue<SessionEvent.SessionEvent>, never, Scope.Scope> =>
  Effect.suspend(() =>
    events.hub !== undefined ? Effect.succeed(events.hub) : Effect.map(PubSub.sliding<SessionEvent.SessionEvent>(events.capacity), (hub) => (events.hub ??= hub))
  ).pipe(Effect.flatMap(PubSub.subscribe))

/**
 * 64 random bits as 16 hex digits, from the platform's cryptographic source: the first and last eight hex
 * digits of a random UUID, which carry no version or variant bits (`randomUUID` draws from a buffered pool,
 * where `getRandomValues` asks the source each time).
 */
const randomPart = (): string => {
  const uuid = crypto.randomUUID()
  return uuid.slice(0, 8) + uuid.slice(28)
}

/**
 * Starts the keys of `turn`: a fresh random part, so a session made again with the same id (a restarted
 * worker, whose turns count from 1 again) never hands an executor a key an earlier process used.
 */
export const startKeys = (env: Pick<Config, "keys">, turn: number): Effect.Effect<void> =>
  Effect.sync(() => {
    env.keys.turn = turn
    env.keys.part = randomPart()
  })

/**
 * The idempotency key of a call: `<session id>:<turn>-<random>:<call id>`, the random part (16 hex digits)
 * drawn once per turn, so keys are unique across processes without a store.
 */
export const idempotencyKey = (env: Pick<Config, "id" | "keys">, turn: number, callId: string): string =>
  `${env.id}:${turn}-${env.keys.turn === turn ? env.keys.part : randomPart()}:${callId}`

/** Whether anyone reads the session's events now (a subscriber or a streamed send): events no one reads are not built. */
export const listened = (env: Env): boolean => env.events.hub !== undefined || env.events.sink !== undefined

/**
 * Publishes a session event to the subscribers (a sliding hub never blocks the turn) and to the streamed
 * send's sink (which may: that is its back-pressure).
 */
export const publish = (env: Env, event: SessionEvent.SessionEvent): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { hub, sink } = env.events
    if (sink === undefined) return hub === undefined ? Effect.void : Effect.asVoid(PubSub.publish(hub, event))
    return hub === undefined ? sink.emit(event) : Effect.zipRight(PubSub.publish(hub, event), sink.emit(event))
  })

/** Runs `effect` (one turn, inside the session's lock) with its events also going to `sink`. */
export const withSink = <A, E>(env: Env, sink: Sink | undefined, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  sink === undefined ? effect : Effect.acquireUseRelease(
    Effect.sync(() => void (env.events.sink = sink)),
    () => effect,
    () => Effect.sync(() => void (env.events.sink = undefined))
  )

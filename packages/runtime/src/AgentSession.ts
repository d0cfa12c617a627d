/**
 * A session: `send` runs one turn as docs/architecture.md draws it (drift gate in cloud-profile mode, round
 * trips through the provider and the event-contract stage, atomic rounds validated before any call runs,
 * bounded repair, envelopes fed back) and commits it, or rolls it back to the user's message on any typed
 * failure; `stream` runs the same turn and hands its events to the reader as they happen. History, the undo
 * log and the session's events live here; sends on one session are serialized.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { JsonValue as J } from "@toolgate/json-schema"
import type { ArgumentValidator } from "./ArgumentValidator.js"
import type { InvalidToolSchema } from "./Errors.js"
import type { DriftGate, Verdict } from "./DriftGate.js"
import type * as Compensation from "./Compensation.js"
import type * as Errors from "./Errors.js"
import type { StructuredOutputInvalid } from "./Errors.js"
import { makeWith } from "./internal/sessionMake.js"
import { partsOf } from "./internal/sessionParts.js"
import { decodeSettings } from "./internal/sessionSettings.js"
import type * as Message from "./Message.js"
import type * as Provider from "./Provider.js"
import type * as RepairBudget from "./RepairBudget.js"
import type * as RunLimits from "./RunLimits.js"
import type * as SessionEvent from "./SessionEvent.js"
import type * as SessionStore from "./SessionStore.js"
import type * as ToolChain from "./ToolChain.js"
import type * as ToolEnvelope from "./ToolEnvelope.js"
import type * as Toolkit from "./Toolkit.js"

/** `cloudProfile`: a relay owns the tool schemas, so the drift gate runs before the first request; `local`: no gate. */
export type Mode = "cloudProfile" | "local"

/** What a session is made of. */
export interface Options<R> {
  /** The session's id, the first part of every idempotency key `<id>:<turn>-<random>:<call id>` (default: a random UUID). */
  readonly id?: string
  /** The model (default: the `Provider` service), or one built from the session's tools (`Provider.registryAware`). */
  readonly provider?: Provider.AgentProvider | Provider.RegistryAware
  readonly toolkit: Toolkit.Toolkit<R>
  readonly mode: Mode
  /** The per-turn limits (default: the `RunLimits` service when one is provided, else `RunLimits.defaults`). */
  readonly limits?: RunLimits.Input
  /** Where refs may point (default "turn"); chaining itself is switched on by `ArgumentValidator.toolChaining`. */
  readonly chainScope?: ToolChain.Scope
  /** Runs on every outbound request of a provider that declares `requiresNetworking`. */
  readonly preTransmit?: (request: Provider.CompletionRequest) => Effect.Effect<Provider.CompletionRequest, Errors.ProviderError>
  /** The events hub's capacity (sliding; an integer from 1 to 1,000,000; default 1024). */
  readonly eventCapacity?: number
  /**
   * The most stream events one round trip may bring (a positive integer, default 100,000): a round is
   * collected before it is acted on, so a provider that streams without end fails the turn with a
   * `ProviderError` instead of filling memory.
   */
  readonly maxEventsPerRound?: number
  /** Who the model is: the start of every request's system prompt. */
  readonly persona?: string
  /** The agent's name: its `invoke_agent {name}` span and `gen_ai.agent.name` (1 to 256 characters). */
  readonly name?: string
  /** The session's sampling; a send's own keys override it key by key. */
  readonly sampling?: Provider.Sampling
  /**
   * The agent's scope: the toolkit's domains it may use (default: all). Only their tools are offered and run,
   * discovery lists and activates only them, and a registry-aware provider's registry holds only them. A name
   * the toolkit has no domain for is an `InvalidOptions`.
   */
  readonly scope?: ReadonlyArray<string>
  /**
   * `false`: no tool goes out with a strict flag, so a provider with the `openai-strict` dialect gets the
   * schemas unchanged (default `true`: strict wherever the dialect has it).
   */
  readonly strictTools?: boolean
  /**
   * A session to start from: with a `SessionStore` in context it is imported into the store under its id
   * (a session already stored there is a `SessionStoreError`), else it seeds this session's memory.
   */
  readonly snapshot?: SessionStore.SessionSnapshot
  /** With a `SessionStore` in context, when another holds the session's lease: `fail` with `SessionBusy` (default) or `wait` until it is released or expires. */
  readonly onBusy?: "fail" | "wait"
  /** With a `SessionStore` in context, how long the session's lease lasts from each send (a positive integer, default 60,000 ms). */
  readonly leaseMillis?: number
}

/**
 * Why `make` failed: options that are not valid; with a `SessionStore` in context, a store that could not
 * load, import or close the session, or a session whose lease another holds (`SessionBusy`, with `onBusy: "fail"`).
 */
export type MakeError = Errors.InvalidOptions | Errors.SessionStoreError | Errors.SessionBusy

/** What one send asks for besides its text. */
export interface SendOptions {
  /** How the model may use tools (default `auto`). */
  readonly toolChoice?: Provider.ToolChoice
  /** This turn's instructions: after the persona in the system prompt, or a preamble of the user message for a provider with `backendManagedSystemPrompt`. */
  readonly directives?: string
  /** This turn's sampling, key by key over the session's. */
  readonly sampling?: Provider.Sampling
  /** Images sent with the text (1 to 16; the provider must declare `supportsVision`, else `VisionUnsupported`). */
  readonly images?: ReadonlyArray<Message.Image>
  /** The model for this turn's requests (the provider must declare `modelSelection: "perRequest"`, else `ModelSelectionUnsupported`). */
  readonly model?: string
}

/** A call of a committed turn and the envelope it was answered with. */
export interface Answered {
  readonly callId: string
  readonly tool: string
  readonly arguments?: J.JsonValue
  readonly envelope: ToolEnvelope.Envelope
  /**
   * The whole envelope when `envelope` (what the model and history got) was cut to `RunLimits.maxToolResultBytes`;
   * absent when it fit.
   */
  readonly wholeEnvelope?: ToolEnvelope.Envelope
}

/** What a turn spent: round trips and repairs (`RepairBudget.Usage`) and the tokens the provider reported. */
export type UsageReport = RepairBudget.Usage & { readonly inputTokens: number; readonly outputTokens: number }

/** What a successful send returns. */
export interface Turn {
  /** The 1-based count of the session's turns (sends that recorded their user message). */
  readonly turn: number
  /** The final assistant text. */
  readonly text: string
  /** Every call of the turn that was answered, in order (invalid and not-run calls included). */
  readonly calls: ReadonlyArray<Answered>
  readonly usage: UsageReport
  /** What the provider's `validateTools` said about the tools. */
  readonly warnings: ReadonlyArray<Provider.ToolSchemaWarning>
  /** What the send asked for that the provider cannot honour and was left out of the requests (sampling it does not support). */
  readonly requestWarnings: ReadonlyArray<string>
  /** The drift gate's verdict when this send ran the gate (cloud-profile only). */
  readonly gate: Verdict | undefined
}

/**
 * Why a send failed. Every error keeps its own tag, so `Effect.catchTag("ToolArgumentRepairExhausted")`
 * catches it however far the turn got. A turn error that struck after some of the turn's tools had run
 * carries the turn's compensation as its optional `compensation` field (`Compensation.Report`): every call
 * that ran, those whose undo took them back, and those left in effect (also kept on the session as
 * `outstanding` until the app reconciles them). By the time `send` fails that compensation has finished,
 * each undo within its tool's time budget and all of them within the compensation deadline; no
 * `compensation` field means no tool of the turn had run. The field encodes with the error
 * (`Compensation.TurnError`, `Errors.ToolgateError`).
 */
export type SendError =
  | Errors.SchemaDriftError
  | Errors.UnsupportedCloudToolSchema
  | Errors.RelayProfileContractError
  | Errors.RelayProfileUnreachable
  | Errors.ToolArgumentRepairExhausted
  | Errors.RoundTripLimitExceeded
  | Errors.TurnDeadlineExceeded
  | Errors.ProviderEventContractViolation
  | Errors.ProviderError
  | Errors.ToolChoiceUnsupported
  | Errors.ToolsRejected
  | InvalidToolSchema
  | Errors.InvalidOptions
  | Errors.VisionUnsupported
  | Errors.ModelSelectionUnsupported
  | Errors.SessionStoreError
  | Errors.SessionBusy

/** The last element of a successful `stream`: the turn `send` would have answered. */
export interface TurnFinished {
  readonly _tag: "TurnFinished"
  readonly turn: Turn
}

/** What `stream` gives: the turn's session events as they happen, then `TurnFinished`. */
export type TurnEvent = SessionEvent.SessionEvent | TurnFinished

/** The model's structured answer did not decode with the caller's schema (or the schema has no JSON Schema form). */
export { StructuredOutputInvalid } from "./Errors.js"

/**
 * What `undoLastTurn` did: the turn taken back, the calls this attempt undid, and the calls whose effects stay
 * because no undo can take them back (their tool has none, or they timed out): those are now `outstanding`
 * (reason `no_undo` or `interrupted`) until the app reconciles them. Both newest first.
 */
export interface UndoReport {
  readonly turn: number
  readonly undone: ReadonlyArray<string>
  readonly notUndone: ReadonlyArray<string>
}

/** A session. */
export interface AgentSession {
  /** The session's id (the first part of its calls' idempotency keys). */
  readonly id: string
  /** Runs one turn with the user's `text`; on failure history keeps only that message. */
  readonly send: (text: string, options?: SendOptions) => Effect.Effect<Turn, SendError>
  /**
   * The same turn as `send`, as a stream of its events as they happen (the model's text as `TextDelta`s while
   * it writes, `RoundDiscarded` when a round's text is not the answer, the calls, the commit or the
   * compensation), ending with `TurnFinished`; a failed turn fails the stream with its `SendError` after its
   * compensation events. The turn runs ahead of the reader by a bounded buffer at most; a reader that stops
   * (or is interrupted) interrupts the turn, which is compensated as any interrupted send.
   */
  readonly stream: (text: string, options?: SendOptions) => Stream.Stream<TurnEvent, SendError>
  /** A turn whose answer is JSON decoded with `schema` (the provider must support structured output). */
  readonly generate: <A, I>(
    schema: Schema.Schema<A, I>,
    text: string
  ) => Effect.Effect<A, SendError | Errors.StructuredOutputUnsupported | StructuredOutputInvalid>
  /** The committed conversation (plus the user messages of failed turns). */
  readonly history: Effect.Effect<ReadonlyArray<Message.Message>>
  /**
   * Runs the last committed turn's undo steps still to run, newest first, and removes the turn from history
   * once none is left (its calls no undo can take back then join `outstanding`); `None` when nothing is to
   * undo. A failed step fails it with `UndoIncomplete` (the turn stays, the steps that succeeded are marked),
   * so calling it again retries exactly what is left; a step that answered is never run again, even when the
   * caller was interrupted just after. Undos and sends run one at a time: asked for while a send is in flight,
   * it waits for the send, and fails with `UndoSuperseded` (undoing nothing) when that send committed a turn.
   */
  readonly undoLastTurn: Effect.Effect<Option.Option<UndoReport>, Errors.UndoIncomplete | Errors.UndoSuperseded | Errors.SessionStoreError>
  /** Effects of failed or undone turns that could not be taken back, oldest first, until `reconcile` removes them. */
  readonly outstanding: Effect.Effect<ReadonlyArray<Compensation.OutstandingEffect>>
  /** Marks outstanding effects as handled by the app (by call idempotency key); returns those removed. Keys that are not an array of strings are `InvalidOptions`. */
  readonly reconcile: (idempotencyKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Compensation.OutstandingEffect>, Errors.InvalidOptions | Errors.SessionStoreError>
  /** The usage of the last turn that made a request, committed or not (`None` before the first). */
  readonly lastUsageReport: Effect.Effect<Option.Option<UsageReport>>
  /** What the provider's `validateTools` said before the last send. */
  readonly lastSchemaWarnings: Effect.Effect<ReadonlyArray<Provider.ToolSchemaWarning>>
  /** A subscription to this session's events (for the surrounding scope). */
  readonly subscribe: Effect.Effect<Queue.Dequeue<SessionEvent.SessionEvent>, never, Scope.Scope>
  /** The session's committed state as a versioned snapshot (taken between turns), for `make({ snapshot })` or `SessionStore.import`. */
  readonly export: Effect.Effect<SessionStore.SessionSnapshot>
}

/** What a session made with `options` needs from context besides the toolkit's requirements. */
export type Requirements<O> =
  | ArgumentValidator
  // the gate is left out only when `mode` is known to be "local": a mode typed `Mode` may be "cloudProfile"
  | (O extends { readonly mode: "local" } ? never : DriftGate)
  | (O extends { readonly provider: Provider.AgentProvider | Provider.RegistryAware } ? never : Provider.Provider)


/**
 * A session over `options.toolkit` (its requirements are captured here). The validator, and unless `mode`
 * is "local" the drift gate, come from context; so do the provider and the limits unless given. Options that
 * are not valid fail with `Errors.InvalidOptions`.
 */
export const make = <O extends Options<unknown>>(
  options: O
): Effect.Effect<AgentSession, MakeError, Toolkit.Requirements<O["toolkit"]> | Requirements<O>> =>
  Effect.flatMap(
    Effect.zip(Effect.suspend(() => decodeSettings(options)), partsOf(options)),
    ([settings, parts]) => makeWith(settings, parts)
    // `makeWith` reads the gate only in cloud-profile mode and the Provider service only when none is given,
    // which is what `Requirements<O>` states; the toolkit's requirements are the context it captures.
  ) as Effect.Effect<AgentSession, MakeError, Requirements<O>>

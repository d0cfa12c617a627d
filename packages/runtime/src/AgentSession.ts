/**
 * A session: `send` runs one turn exactly as DESIGN.md draws it (drift gate in cloud-profile mode, round
 * trips through the provider and the event-contract stage, atomic rounds validated before any call runs,
 * bounded repair, envelopes fed back) and commits it, or rolls it back to the user's message on any typed
 * failure. History, the undo log and the session's events live here; sends on one session are serialized.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { JsonSchema, JsonValue as J } from "@toolgate/json-schema"
import { ArgumentValidator } from "./ArgumentValidator.js"
import type { InvalidToolSchema } from "./Errors.js"
import { DriftGate, type Verdict } from "./DriftGate.js"
import type * as Compensation from "./Compensation.js"
import * as Errors from "./Errors.js"
import * as Decode from "./Decode.js"
import { StructuredOutputInvalid, StructuredOutputUnsupported } from "./Errors.js"
import { safeString } from "./internal/json.js"
import { type Env, type Live, makeState, subscribe } from "./internal/sessionState.js"
import { registry } from "./internal/registry.js"
import { partsOf } from "./internal/sessionParts.js"
import * as SessionTurn from "./internal/sessionTurn.js"
import * as ToolDiscovery from "./internal/toolDiscovery.js"
import { lastCommitted, undoLast } from "./internal/sessionUndo.js"
import * as Message from "./Message.js"
import * as Provider from "./Provider.js"
import type * as RepairBudget from "./RepairBudget.js"
import * as RunLimits from "./RunLimits.js"
import type * as SessionEvent from "./SessionEvent.js"
import * as Telemetry from "./Telemetry.js"
import type * as ToolChain from "./ToolChain.js"
import type * as ToolEnvelope from "./ToolEnvelope.js"
import * as Toolkit from "./Toolkit.js"

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
}

/** The options that are data, as a Schema: what `make` decodes once (defaults filled in). */
const Settings = Schema.Struct({
  id: Schema.optionalWith(Schema.NonEmptyString, { exact: true }),
  mode: Schema.Literal("cloudProfile", "local"),
  limits: Schema.optionalWith(RunLimits.Limits, { exact: true }),
  chainScope: Schema.optionalWith(Schema.Literal("turn", "session"), { exact: true, default: () => "turn" as const }),
  eventCapacity: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000_000)), { exact: true, default: () => 1024 }),
  maxEventsPerRound: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true, default: () => 100_000 }),
  persona: Schema.optionalWith(Schema.String, { exact: true }),
  name: Schema.optionalWith(Schema.NonEmptyString.pipe(Schema.maxLength(256)), { exact: true }),
  sampling: Schema.optionalWith(Provider.Sampling, { exact: true, default: () => ({}) }),
  scope: Schema.optionalWith(Schema.NonEmptyArray(Schema.String), { exact: true })
})

/** A send's options that are data, as a Schema. */
const SendSettings = Schema.Struct({
  /** Read here, where a throwing getter is an `InvalidOptions`; checked when the turn is admitted. */
  toolChoice: Schema.optionalWith(Schema.Unknown, { exact: true }),
  directives: Schema.optionalWith(Schema.String, { exact: true }),
  sampling: Schema.optionalWith(Provider.Sampling, { exact: true, default: () => ({}) }),
  images: Schema.optionalWith(Message.Images, { exact: true }),
  model: Schema.optionalWith(Schema.NonEmptyTrimmedString.pipe(Schema.maxLength(256)), { exact: true })
})

const decodeSettings = Decode.options("AgentSession", Settings)
const decodeFlags = Decode.options("AgentSession.provider.capabilities", Provider.CapabilityFlags)
const decodeSend = Decode.options("AgentSession.send", SendSettings)
const decodeKeys = Decode.options("AgentSession.reconcile", Schema.Array(Schema.String))

/** What `make` decodes when the options give no data but `mode` (the common call): decoded once, here. */
const modeOnly = {
  local: Schema.decodeSync(Settings)({ mode: "local" }),
  cloudProfile: Schema.decodeSync(Settings)({ mode: "cloudProfile" })
}
const dataKeys = Object.keys(Settings.fields).filter((key) => key !== "mode")

/** Whether `options` give no data but `mode` (the common call); options that cannot be read are left to the decoder. */
const modeOnlyOf = (options: Options<unknown>): Mode | undefined => {
  try {
    return typeof options === "object" && options !== null && (options.mode === "local" || options.mode === "cloudProfile") &&
        !dataKeys.some((key) => Object.hasOwn(options, key))
      ? options.mode
      : undefined
  } catch {
    return undefined
  }
}

/** `options` decoded; the common call, with no data but `mode`, is not decoded again. */
const settingsOf = (options: Options<unknown>) => {
  const mode = modeOnlyOf(options)
  return mode === undefined ? decodeSettings(options) : Effect.succeed(modeOnly[mode])
}

/** A send without options (the common call) needs no decoding. */
const noSendOptions = Schema.decodeSync(SendSettings)({})

/**
 * `TOOLGATE_NO_STRICT` set to `1`, `true` or `yes` (any case, trimmed): no tool goes out with a strict flag
 * (a provider with the `openai-strict` dialect gets the schemas unchanged). Read when a session over such a
 * provider is made.
 */
export const strictDisabled: Config.Config<boolean> = Config.string("TOOLGATE_NO_STRICT").pipe(
  Config.map((v) => ["1", "true", "yes"].includes(v.trim().toLowerCase())),
  Config.withDefault(false)
)

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
  | Errors.CapabilitiesContractError
  | Errors.CapabilitiesUnreachable
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
  readonly undoLastTurn: Effect.Effect<Option.Option<UndoReport>, Errors.UndoIncomplete | Errors.UndoSuperseded>
  /** Effects of failed or undone turns that could not be taken back, oldest first, until `reconcile` removes them. */
  readonly outstanding: Effect.Effect<ReadonlyArray<Compensation.OutstandingEffect>>
  /** Marks outstanding effects as handled by the app (by call idempotency key); returns those removed. Keys that are not an array of strings are `InvalidOptions`. */
  readonly reconcile: (idempotencyKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Compensation.OutstandingEffect>, Errors.InvalidOptions>
  /** The usage of the last turn that made a request, committed or not (`None` before the first). */
  readonly lastUsageReport: Effect.Effect<Option.Option<UsageReport>>
  /** What the provider's `validateTools` said before the last send. */
  readonly lastSchemaWarnings: Effect.Effect<ReadonlyArray<Provider.ToolSchemaWarning>>
  /** A subscription to this session's events (for the surrounding scope). */
  readonly subscribe: Effect.Effect<Queue.Dequeue<SessionEvent.SessionEvent>, never, Scope.Scope>
}

/** The JSON Schema of `schema` for the request, or why it has none. */
const jsonSchemaOf = <A, I>(schema: Schema.Schema<A, I>): Either.Either<JsonSchema.JsonSchema, StructuredOutputInvalid> =>
  Either.try({
    try: () => JSONSchema.make(schema) as unknown as JsonSchema.JsonSchema,
    catch: (e) => new StructuredOutputInvalid({ detail: `the schema has no JSON Schema form (${safeString(e instanceof Error ? e.message : e)})` })
  })

/** What a session's `send` and `generate` run in: its environment, its one-turn-at-a-time lock, its span attributes. */
interface Running {
  readonly env: Env
  readonly serialized: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  readonly agent: Record<string, string>
}

const acceptAny = (_text: string) => Effect.void

const sendIn = (s: Running, text: string, options?: SendOptions) =>
  Effect.gen(function*() {
    const { directives, images, model, sampling, toolChoice: chosen } = options == null ? noSendOptions : yield* decodeSend(options)
    const toolChoice = (chosen ?? "auto") as Provider.ToolChoice
    const [turn] = yield* s.serialized(
      SessionTurn.run(s.env, safeString(text), {
        toolChoice,
        accept: acceptAny,
        sampling,
        ...(directives === undefined ? {} : { directives }),
        ...(images === undefined ? {} : { images }),
        ...(model === undefined ? {} : { model })
      })
    )
    yield* Effect.annotateCurrentSpan("toolgate.turn", turn.turn)
    return turn
  }).pipe(Telemetry.invokeAgentSpan(s.agent))

const generateIn = <A, I>(s: Running, schema: Schema.Schema<A, I>, text: string) =>
  Effect.gen(function*() {
    const capabilities = s.env.provider.capabilities
    if (!capabilities.supportsStructuredOutput) return yield* new StructuredOutputUnsupported({ provider: capabilities.name })
    const structuredOutput = yield* jsonSchemaOf(schema)
    const decode = Schema.decodeUnknown(Schema.parseJson(schema), { errors: "all" })
    const accept = (answer: string) =>
      Effect.mapError(decode(answer), (e) => new StructuredOutputInvalid({ detail: ParseResult.TreeFormatter.formatErrorSync(e) }))
    const [, value] = yield* s.serialized(SessionTurn.run(s.env, text, { toolChoice: "auto", structuredOutput, accept, sampling: {} }))
    return value
  }).pipe(Telemetry.invokeAgentSpan(s.agent))

const undoSpan = Telemetry.span("AgentSession.undoLastTurn")

/**
 * One turn at a time: a free permit is taken at once; only a turn that finds it held waits for it (the
 * waiting path, an asynchronous take, costs each send about 4 KB more).
 */
const oneAtATime = (lock: Effect.Semaphore) => <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.flatMap(lock.withPermitsIfAvailable(1)(effect), (taken) => taken._tag === "Some" ? Effect.succeed(taken.value) : lock.withPermits(1)(effect))

/** The session's methods over its environment. */
const methods = (env: Env, serialized: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>): AgentSession => {
  const running: Running = { env, serialized, agent: Telemetry.invokeAgent(env.provider.capabilities.name, env.id, env.name) }
  const reconcile = (keys: ReadonlyArray<string>) =>
    Effect.flatMap(decodeKeys(keys), (decoded) =>
      Ref.modify(env.outstanding, (all) => {
        const wanted = new Set(decoded)
        return [all.filter((o) => wanted.has(o.idempotencyKey)), all.filter((o) => !wanted.has(o.idempotencyKey))]
      }))
  return {
    id: env.id,
    send: (text, options) => sendIn(running, text, options),
    generate: (schema, text) => generateIn(running, schema, text),
    outstanding: Ref.get(env.outstanding),
    reconcile,
    history: Ref.get(env.history),
    lastUsageReport: Ref.get(env.lastUsage),
    lastSchemaWarnings: Ref.get(env.lastSchemaWarnings),
    // the turn the caller sees as last is read before waiting for a send in flight
    undoLastTurn: undoSpan(Effect.flatMap(lastCommitted(env), (expected) => serialized(undoLast(env, expected)))),
    subscribe: subscribe(env.events)
  }
}

/** The provider a registry-aware spec builds, or an `InvalidOptions` when building throws or gives no provider. */
const registryAware = (build: () => Provider.AgentProvider): Provider.AgentProvider | Errors.InvalidOptions => {
  try {
    const provider: unknown = build()
    const ok = typeof provider === "object" && provider !== null && typeof (provider as Provider.AgentProvider).stream === "function" &&
      typeof (provider as Provider.AgentProvider).capabilities === "object" && (provider as Provider.AgentProvider).capabilities !== null
    return ok ? provider as Provider.AgentProvider : new Errors.InvalidOptions({ of: "AgentSession", detail: "provider: the registry-aware spec gave no provider" })
  } catch (e) {
    return new Errors.InvalidOptions({ of: "AgentSession", detail: `provider: the registry-aware spec failed (${safeString(e instanceof Error ? e.message : e)})` })
  }
}

/** What a session made with `options` needs from context besides the toolkit's requirements. */
export type Requirements<O> =
  | ArgumentValidator
  | (O extends { readonly mode: "cloudProfile" } ? DriftGate : never)
  | (O extends { readonly provider: Provider.AgentProvider | Provider.RegistryAware } ? never : Provider.Provider)

/**
 * A session over `options.toolkit` (its requirements are captured here). The validator, and in
 * cloud-profile mode the drift gate, come from context; so do the provider and the limits unless given.
 * Options that are not valid fail with `Errors.InvalidOptions`.
 */
export function make<O extends Options<any>>(
  options: O
): Effect.Effect<AgentSession, Errors.InvalidOptions, Toolkit.Requirements<O["toolkit"]> | Requirements<O>>
export function make(options: Options<unknown>): Effect.Effect<AgentSession, Errors.InvalidOptions, any> {
  return Effect.flatMap(Effect.zip(Effect.suspend(() => settingsOf(options)), partsOf(options)), ([settings, parts]) =>
    // the toolkit's requirements are captured here and given to each executor when it runs (no per-tool copies)
    Effect.contextWithEffect((context: Context.Context<never>) => {
      const scoped = ToolDiscovery.scope(parts.toolkit as Toolkit.Toolkit<never>, settings.scope)
      if (Either.isLeft(scoped)) return Effect.fail(scoped.left)
      const given = parts.provider ?? Context.unsafeGet(context, Provider.Provider)
      const limits = settings.limits ?? Option.getOrElse(Context.getOption(context, RunLimits.RunLimits), () => RunLimits.defaults)
      const validator = Context.unsafeGet(context, ArgumentValidator)
      const id = settings.id ?? crypto.randomUUID()
      const live: Live = { current: undefined }
      const keys = { turn: 0, part: "" }
      const built = "_tag" in given ? registryAware(() => given.make(registry({ toolkit: scoped.right, validator, limits, live, id, keys, context }))) : given
      if (built instanceof Errors.InvalidOptions) return Effect.fail(built)
      const provider = built
      const gate = settings.mode === "cloudProfile" ? Context.unsafeGet(context, DriftGate) : undefined
      const state = makeState(settings.eventCapacity, ToolDiscovery.initial(scoped.right, provider.capabilities))
      // only strict-mode schemas have a flag to turn off, so only their sessions read it
      const strictOff = provider.capabilities.schemaDialect === "openai-strict" ? Effect.orElseSucceed(strictDisabled, () => false) : Effect.succeed(false)
      return Effect.zipRight(decodeFlags(provider.capabilities), Effect.zipWith(
        ToolDiscovery.withTools(scoped.right, provider.capabilities, state.discovery),
        strictOff,
        (toolkit, strictDisabled) =>
          // not `{ ...state, … }`: a spread with this many keys makes a 10 KB dictionary object per session
          methods(Object.assign(state, {
            id,
            provider,
            toolkit,
            context,
            validator,
            gate,
            limits,
            chainScope: settings.chainScope,
            preTransmit: parts.preTransmit,
            maxEventsPerRound: settings.maxEventsPerRound,
            strictDisabled,
            persona: settings.persona,
            name: settings.name,
            sampling: settings.sampling,
            live,
            keys
          }), oneAtATime(Effect.unsafeMakeSemaphore(1)))
      ))
    }))
}

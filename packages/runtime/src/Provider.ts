/**
 * A model backend as a value: what it can do (`ProviderCapabilities`, declared honestly: every flag changes
 * how a session behaves), a `stream` of `StreamEvent`s per round trip, and `validateTools`, which may warn
 * about tool definitions or refuse them before a turn starts.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { JsonSchema } from "@toolgate/json-schema"
import * as Errors from "./Errors.js"
import type * as Message from "./Message.js"
import type * as StreamEvent from "./StreamEvent.js"
import type * as ToolEnvelope from "./ToolEnvelope.js"

/** `appDriven`: the session runs the tool loop; `providerDriven`: the provider runs tools and reports their lifecycle. */
export const ExecutionModel = Schema.Literal("appDriven", "providerDriven")
export type ExecutionModel = typeof ExecutionModel.Type

/** Which `Normalize` target the tool definitions get (`none`: sent as declared, or not at all). */
export const SchemaDialect = Schema.Literal("openai-strict", "google", "cca", "mcp", "none")
export type SchemaDialect = typeof SchemaDialect.Type

/** How the model may use tools in a round trip. */
export const ToolChoice = Schema.Literal("auto", "required", "none")
export type ToolChoice = typeof ToolChoice.Type

/**
 * How a provider picks its model: `none` (the backend has no notion of one), `fixed` (one model, set when the
 * provider is made), `perRequest` (a send's `model` rides the request and the provider honours it).
 */
export const ModelSelection = Schema.Literal("none", "fixed", "perRequest")
export type ModelSelection = typeof ModelSelection.Type

/** What a provider can do. Each flag changes session behaviour; declare only what the backend really does. */
export interface ProviderCapabilities {
  /** Names the provider in errors and spans. */
  readonly name: string
  /** The model the requests ask for, when the provider knows it: names the `chat` span (`gen_ai.request.model`). */
  readonly model?: string
  readonly executionModel: ExecutionModel
  /** `false`: requests carry no tools. */
  readonly supportsToolCalling: boolean
  /** `true`: a round's valid calls run concurrently. */
  readonly supportsParallelToolCalls: boolean
  /** `false`: a send with `required` or `none` fails with `ToolChoiceUnsupported` before any request. */
  readonly supportsToolChoice: boolean
  /** `false`: `generate()` fails with `StructuredOutputUnsupported` before the provider is called. */
  readonly supportsStructuredOutput: boolean
  readonly schemaDialect: SchemaDialect
  /**
   * At most this many tools per request (`undefined`: no limit). Tool activation is capped at it, never a
   * failed send: eager discovery sends the first `maxTools` tools (the turn names what was left out), dynamic
   * discovery deactivates the least recently used domain to make room.
   */
  readonly maxTools: number | undefined
  /** How the model finds its tools (default `eagerSessionTools`). */
  readonly toolDiscovery?: ToolDiscovery
  /** The context window in tokens; older turns are left out of a request that would not fit (`undefined`: no limit). */
  readonly contextWindow: number | undefined
  /** `true`: the backend keeps the conversation; each request carries only messages it has not seen. */
  readonly managedConversation: boolean
  /** `true`: the session's pre-transmit filter runs on every outbound request. */
  readonly requiresNetworking: boolean
  /** `true`: requests carry the sampling a send asks for (default `false`: it is left out and the turn says so). */
  readonly supportsSamplingConfig?: boolean
  /**
   * `true`: the backend owns the system prompt; the request's `systemPrompt` is the persona alone and a send's
   * directives ride a preamble inside its user message (default `false`: they join the system prompt).
   */
  readonly backendManagedSystemPrompt?: boolean
  /**
   * `true`: a user message's images are sent to the model (default `false`: a send with images fails with
   * `VisionUnsupported` before any request).
   */
  readonly supportsVision?: boolean
  /**
   * Whether a send may choose the model (default `none`): only `perRequest` takes a send's `model`; otherwise
   * a send that names one fails with `ModelSelectionUnsupported` before any request.
   */
  readonly modelSelection?: ModelSelection
}

/** `ToolDiscovery` as a Schema. */
const ToolDiscoverySchema = Schema.Union(
  Schema.Struct({ _tag: Schema.Literal("EagerSessionTools") }),
  Schema.Struct({ _tag: Schema.Literal("DynamicPerRequest") }),
  Schema.Struct({ _tag: Schema.Literal("SessionRebuild"), maxRebuilds: Schema.NonNegativeInt })
)

const flag = Schema.optionalWith(Schema.Boolean, { exact: true })
// `undefined` (no limit, the common value) first: a union tries its members in order, and a failed try allocates its issue
const limit = Schema.optionalWith(Schema.Union(Schema.Undefined, Schema.NonNegativeInt), { exact: true })

/**
 * Every capability, each optional, as a Schema: what an override (a provider's option `capabilities:
 * { supportsVision: true }`) may hold, decoded with the provider's other options, and what a session checks
 * of its provider's capabilities when it is made. A value of the wrong kind is `InvalidOptions`, never a default.
 */
export const CapabilityFlags = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { exact: true }),
  model: Schema.optionalWith(Schema.String, { exact: true }),
  executionModel: Schema.optionalWith(ExecutionModel, { exact: true }),
  supportsToolCalling: flag,
  supportsParallelToolCalls: flag,
  supportsToolChoice: flag,
  supportsStructuredOutput: flag,
  schemaDialect: Schema.optionalWith(SchemaDialect, { exact: true }),
  maxTools: limit,
  toolDiscovery: Schema.optionalWith(ToolDiscoverySchema, { exact: true }),
  contextWindow: limit,
  managedConversation: flag,
  requiresNetworking: flag,
  supportsSamplingConfig: flag,
  backendManagedSystemPrompt: flag,
  supportsVision: flag,
  modelSelection: Schema.optionalWith(ModelSelection, { exact: true })
})

/** Capabilities that differ from a provider's declared ones (see `CapabilityFlags`). */
export type CapabilityOverrides = typeof CapabilityFlags.Type

/** What `capabilities` takes: the provider's name and every capability that differs from `defaultCapabilities`. */
export interface CapabilitiesInput extends CapabilityOverrides {
  readonly name: string
}

/**
 * The capabilities a provider has unless it declares otherwise: the least a backend does. App-driven tool
 * calling, one call at a time, no tool choice or structured output, definitions sent as declared, no tool
 * or context limit, the whole conversation per request, and networked (so the pre-transmit filter runs).
 */
export const defaultCapabilities = {
  executionModel: "appDriven",
  supportsToolCalling: true,
  supportsParallelToolCalls: false,
  supportsToolChoice: false,
  supportsStructuredOutput: false,
  schemaDialect: "none",
  maxTools: undefined,
  contextWindow: undefined,
  managedConversation: false,
  requiresNetworking: true
} as const satisfies Omit<ProviderCapabilities, "name">

/** A provider's capabilities: its name and what differs from `defaultCapabilities`. */
export const capabilities = (input: CapabilitiesInput): ProviderCapabilities => ({ ...defaultCapabilities, ...input })

/** Whether a provider takes images (`supportsVision`, default false). */
export const supportsVision = (capabilities: ProviderCapabilities): boolean => capabilities.supportsVision === true

/** How a provider picks its model (`modelSelection`, default `none`). */
export const modelSelection = (capabilities: ProviderCapabilities): ModelSelection => capabilities.modelSelection ?? "none"

/**
 * Told when each request of a session starts and ends (`finished` runs however it ended: answered, failed or
 * interrupted), so an app can count the requests in flight. `requestId` is `<session id>:<turn>:<round>`.
 * What the hooks fail with or throw is logged and does not change the turn.
 */
export interface InFlightTracker {
  readonly started: (requestId: string) => Effect.Effect<void>
  readonly finished: (requestId: string) => Effect.Effect<void>
}

const isHook = (u: unknown): u is (requestId: string) => Effect.Effect<void> => typeof u === "function"

/** An `InFlightTracker` in options, as a Schema: two functions (what they return is checked when they run). */
export const InFlightTrackerSchema: Schema.Schema<InFlightTracker> = Schema.Struct({
  started: Schema.declare(isHook, { identifier: "InFlightTracker.started" }),
  finished: Schema.declare(isHook, { identifier: "InFlightTracker.finished" })
})

/** How the model samples: each key optional; a provider maps what its backend supports. */
export const Sampling = Schema.Struct({
  /** From 0 (most likely tokens) up; most backends take at most 2. */
  temperature: Schema.optionalWith(Schema.Number.pipe(Schema.finite(), Schema.between(0, 2)), { exact: true }),
  /** Nucleus sampling: the probability mass the model samples from, above 0 and at most 1. */
  topP: Schema.optionalWith(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1)), { exact: true }),
  /** The most tokens the answer may have. */
  maxTokens: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true })
}).annotations({ identifier: "Sampling" })

/** How the model samples. */
export type Sampling = typeof Sampling.Type

/**
 * How the model finds its tools (tools are grouped into the toolkit's domains):
 * - `EagerSessionTools`: every domain active from the first request.
 * - `DynamicPerRequest`: requests start with the discovery tools (`toolgate_list_domains`,
 *   `toolgate_activate_domain`) and carry the tools of the domains the model activated (for the session).
 * - `SessionRebuild`: the domains that fit `maxTools` active from the first request, with the discovery
 *   tools to activate more; each activation re-primes the tool list, at most `maxRebuilds` times.
 */
export type ToolDiscovery =
  | { readonly _tag: "EagerSessionTools" }
  | { readonly _tag: "DynamicPerRequest" }
  | { readonly _tag: "SessionRebuild"; readonly maxRebuilds: number }

/** Every domain active from the first request. */
export const eagerSessionTools: ToolDiscovery = { _tag: "EagerSessionTools" }

/** The discovery tools first; the model activates domains. */
export const dynamicPerRequest: ToolDiscovery = { _tag: "DynamicPerRequest" }

/** Eager within `maxTools`, re-primed when the model activates another domain, at most `maxRebuilds` times. */
export const sessionRebuild = (maxRebuilds: number): ToolDiscovery => ({ _tag: "SessionRebuild", maxRebuilds })

/** A tool as a provider is given it: the parameters already in the provider's dialect. */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
  /** The parameters were enforced for OpenAI strict mode; send `strict: true` only then. */
  readonly strict: boolean
}

/** Everything one round trip needs. */
export interface CompletionRequest {
  /** The conversation (only unseen messages for a `managedConversation` provider). */
  readonly messages: ReadonlyArray<Message.Message>
  /** The tool definitions; empty when the provider does not support tool calling. */
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly toolChoice: ToolChoice
  /** When set (only for `supportsStructuredOutput`), the model answers with JSON text this schema accepts. */
  readonly structuredOutput?: JsonSchema.JsonSchema
  /** The persona, then the send's directives (unless `backendManagedSystemPrompt`); absent when there is neither. */
  readonly systemPrompt?: string
  /** The sampling the send asks for (only for `supportsSamplingConfig`; absent when it asks for none). */
  readonly sampling?: Sampling
  /** Provider-driven: the most tool calls the provider may start in this turn (`RunLimits.maxToolCallsPerTurn`; the contract stage enforces it). */
  readonly maxToolCallsPerTurn?: number
  /** The model the send chose (only for `modelSelection: "perRequest"`; absent: the provider's own). */
  readonly model?: string
}

/** A non-fatal remark about a tool definition; the turn proceeds and the warning is reported. */
export interface ToolSchemaWarning {
  readonly tool: string
  readonly message: string
}

/** A model backend. */
export interface AgentProvider {
  readonly capabilities: ProviderCapabilities
  /** One round trip: the events of the model's answer, ending with `Done`. */
  readonly stream: (request: CompletionRequest) => Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError>
  /**
   * The same round trip answered whole, for a provider that has the whole answer at once (a scripted double,
   * a non-streaming API): when it is given, a session reads each round with it instead of running `stream`
   * (a session acts on a round only once it is complete, and running a stream is most of a short round's
   * cost), holding the events to the same contract and limits. A wrapper that changes `stream` must change
   * or leave out `complete` too.
   */
  readonly complete?: (request: CompletionRequest) => Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, Errors.ProviderError>
  /** Runs before every send: warnings, or a refusal (default: no warnings). */
  readonly validateTools?: (
    tools: ReadonlyArray<ToolDefinition>
  ) => Effect.Effect<ReadonlyArray<ToolSchemaWarning>, Errors.ToolsRejected>
  /** Told when each request starts and ends (default: none). */
  readonly inFlightTracker?: InFlightTracker
}

/** One tool of a session's registry as a provider-driven provider sees it: its definition and a way to run it. */
export interface RegistryTool {
  readonly name: string
  readonly description: string
  /** The tool's JSON Schema (layer 2 checks arguments against it before the executor runs). */
  readonly parameters: JsonSchema.JsonSchema
  /**
   * Runs the tool with the model's raw arguments (a JSON value or JSON text) through layer 2: invalid
   * arguments are answered `invalid_args` and the executor never runs; every outcome is an envelope. A call
   * belongs to the session's running turn: it counts against `RunLimits.maxToolCallsPerTurn` (past it, or
   * while no turn runs, it is answered `rejected` and not run) and is recorded in the turn's journal, so a
   * failed turn compensates it (or reports it outstanding) and `undoLastTurn` takes it back.
   */
  readonly execute: (args: unknown, callId: string) => Effect.Effect<ToolEnvelope.Envelope>
}

/** The session's scoped tools (only the domains of `AgentSession.make`'s `scope`), executors included, for a provider that runs tools itself. */
export interface Registry {
  readonly tools: ReadonlyArray<RegistryTool>
  readonly get: (name: string) => RegistryTool | undefined
}

/** A provider built from the session's registry when the session is made (`registryAware`). */
export interface RegistryAware {
  readonly _tag: "RegistryAware"
  readonly make: (registry: Registry) => AgentProvider
}

/** A provider that needs the agent's tools at construction (a provider-driven backend that executes them itself). */
export const registryAware = (make: (registry: Registry) => AgentProvider): RegistryAware => ({ _tag: "RegistryAware", make })

/** The provider of the application, for apps that wire it as a layer. */
export class Provider extends Context.Tag("@toolgate/runtime/Provider")<Provider, AgentProvider>() {}

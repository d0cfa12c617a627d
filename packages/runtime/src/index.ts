/**
 * @toolgate/runtime: the agent-side contract as Effect values and services.
 *
 * @since 0.1.0
 */

/** The standard tool result envelope: success or failure, as Effect Schemas. */
export * as ToolEnvelope from "./ToolEnvelope.js"

/** The typed errors of the runtime, as `Schema.TaggedError`s. */
export * as Errors from "./Errors.js"

/** `require…` / `optional…` helpers: read a tool argument or get its `invalid_args` envelope. */
export * as ToolArgs from "./ToolArgs.js"

/** Where a tool result leaves the task: listing empty / partial / populated, file content, not found, failed. */
export * as TaskState from "./TaskState.js"

/** A tool: name, description, parameter schema (JSON Schema or Effect Schema), executor; `run` answers with an envelope. */
export * as Tool from "./Tool.js"

/** A named set of tools with the union of their requirements; `provide` builds their layer once. */
export * as Toolkit from "./Toolkit.js"

/** Layer 2 as a service: prepares and validates a call's arguments, or fails with the `invalid_args` envelope. */
export * as ArgumentValidator from "./ArgumentValidator.js"

/** A turn's limits: `maxToolArgumentRepairs` (1) and `maxProviderRoundTrips` (10), given or from config. */
export * as RunLimits from "./RunLimits.js"

/** Layer 3: the per-turn budget of round trips and argument repairs. */
export * as RepairBudget from "./RepairBudget.js"

/** The relay's profile as a service (its exported tool schemas, probed): what `DriftGate` reads; the HTTP client is `@toolgate/providers`' `RelayProfileClient`. */
export * as RelayProfile from "./RelayProfile.js"

/** Layer 1: proves every tool the relay exports against the toolkit's local schema, or degrades with a warning. */
export * as DriftGate from "./DriftGate.js"

/** The events of a provider's stream as one Schema union (app-driven and provider-driven lifecycle). */
export * as StreamEvent from "./StreamEvent.js"

/** Decoding at the edge: `options(of, schema)` and `fromConfig(of, schema, config)` (invalid options are `Errors.InvalidOptions`), `HttpUrl`, `PositiveDuration`, `DurationInput`. */
export * as Decode from "./Decode.js"

/** Every `TOOLGATE_*` environment variable, by service: the names each service's `layerEnv` reads. */
export * as EnvConfig from "./EnvConfig.js"

/** The span attributes toolgate sets: the OpenTelemetry GenAI conventions (`gen_ai.*`), `url.full`, `toolgate.*`. */
export * as Telemetry from "./Telemetry.js"

/** The conversation as data: user text, assistant turns with their tool calls, tool results as envelopes. */
export * as Message from "./Message.js"

/** A model backend: honest `ProviderCapabilities`, a stream per round trip, `validateTools`. */
export * as Provider from "./Provider.js"

/** What a session reports on its `PubSub`: turns, the drift gate, rounds, calls, answers, repairs. */
export * as SessionEvent from "./SessionEvent.js"

/** The provider event contract as a `Stream → Stream` stage: lifecycle rules, ids, `Done`, execution model. */
export * as EventContract from "./EventContract.js"

/** Tool chaining by reference: resolves sentinel refs against earlier results, then validates against the base schema. */
export * as ToolChain from "./ToolChain.js"

/** A session: `send()` runs a turn (drift gate, rounds, validation, repair, execution), with history, undo and events. */
export * as AgentSession from "./AgentSession.js"

/** What a failed turn did to the world: the compensation `Report` turn errors carry, outstanding effects, `UndoIncomplete`. */
export * as Compensation from "./Compensation.js"

/** Where a session's records live: committed history, undo log, outstanding effects, the turn's journal, a lease; in memory by default. */
export * as SessionStore from "./SessionStore.js"

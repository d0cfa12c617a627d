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

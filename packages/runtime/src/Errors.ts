/**
 * Every typed error of the runtime, in one module. Each is a `Schema.TaggedError`, so it crosses HTTP,
 * envelopes and CLI JSON output intact; every field is plain JSON and every error has a readable
 * `message`. Each carries `TypeId`, and `ToolgateError` is their one Schema union. The `SchemaError` of
 * `@toolgate/json-schema` is not one of them: the runtime never fails with it, it answers `InvalidToolSchema`.
 *
 * @since 0.1.0
 */
import * as Reason from "@toolgate/subschema/Reason"
import * as Text from "@toolgate/json-schema/Text"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Base from "./internal/errorBase.js"
import { Issue as IssueSchema, Json } from "./internal/schemas.js"
import { SessionBusy, SessionStoreError } from "./internal/storeErrors.js"
import { DuplicateToolName, InvalidToolArguments, InvalidToolSchema, NotATool, ToolFailure, ToolsRejected, UndoIncomplete, UndoSuperseded } from "./internal/toolErrors.js"

/**
 * The brand of every toolgate error (`readonly [TypeId]: TypeId = TypeId` in each class).
 *
 * @since 0.1.0
 */
export const TypeId: typeof Base.TypeId = Base.TypeId

/** The type of `TypeId`. */
export type TypeId = typeof TypeId

const { compensation, listed, preview, sentence } = Base
const clip = Text.clip

/**
 * Whether `u` is one of toolgate's typed errors.
 *
 * @since 0.1.0
 */
export const isToolgateError = (u: unknown): u is ToolgateError => Predicate.hasProperty(u, TypeId)

/** The wire form of a validation issue: `{ path, field, keyword, expected, message }`. */
export const Issue = IssueSchema

/** One reason a cloud schema is broader than the local one, with the JSON pointers on each side. */
export const DriftReason = Schema.Struct({
  cloudPath: Schema.String,
  localPath: Schema.String,
  message: Schema.String
}).annotations({ identifier: "DriftReason" })

/**
 * The errors about tools: a call's invalid arguments, an unusable tool schema, an executor's typed failure
 * (`Tool.fail`), two tools of a toolkit with one name, a value that is not a tool, a provider refusing a
 * definition, and an undo that is incomplete or superseded.
 */
export {
  DuplicateToolName,
  InvalidToolArguments,
  InvalidToolSchema,
  NotATool,
  ToolFailure,
  ToolsRejected,
  UndoIncomplete,
  UndoSuperseded
} from "./internal/toolErrors.js"

/** The errors of a session store: an operation that failed (`SessionStoreError`), a session another owner holds (`SessionBusy`). */
export { SessionBusy, SessionStoreError } from "./internal/storeErrors.js"

/**
 * A schema that must accept every value of another does not: the `witness` is one it rejects (the local schema against
 * the relay's, or an MCP server's live schema against its lock), or the app cannot execute a cloud tool.
 */
export class SchemaDriftError extends Schema.TaggedError<SchemaDriftError>()("SchemaDriftError", {
  tool: Schema.String,
  reasons: Schema.Array(DriftReason),
  witness: Json,
  drifted: Schema.Array(Schema.String),
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** A readable summary: the tool, why it drifted, the witness and every drifted tool. */
  override get message(): string {
    const why = listed(this.reasons.map(Reason.explain))
    const others = this.drifted.length > 1 ? ` Drifted tools: ${this.drifted.join(", ")}.` : ""
    return `Tool \`${this.tool}\` drifted${why === "" ? "" : `: ${why}`}. ` +
      `A value that must be accepted and is not: ${preview(this.witness)}.${others}`
  }
}

/** The prover met a construct in a cloud schema it cannot model, so the gate fails closed. */
export class UnsupportedCloudToolSchema
  extends Schema.TaggedError<UnsupportedCloudToolSchema>()("UnsupportedCloudToolSchema", {
    tool: Schema.String,
    construct: Schema.String,
    path: Schema.String,
    compensation
  })
{
  readonly [TypeId]: TypeId = TypeId
  /** Names the tool, the construct and where it sits. */
  override get message(): string {
    return `Cannot prove the relay's schema for tool \`${this.tool}\` safe: it uses ${this.construct} at ` +
      `${this.path === "" ? "the root" : this.path}, which the prover does not model.`
  }
}

/** Why the relay's profile broke the wire contract. */
export const RelayProfileContractReason = Schema.Literal("malformed", "incomplete", "unsupported_version")

/** The relay's profile (its `/v1/agent/capabilities` body) is malformed, half-exported, or from a newer major version. */
export class RelayProfileContractError
  extends Schema.TaggedError<RelayProfileContractError>()("RelayProfileContractError", {
    reason: RelayProfileContractReason,
    detail: Schema.String,
    compensation
  })
{
  readonly [TypeId]: TypeId = TypeId
  /** The reason and its detail. */
  override get message(): string {
    return sentence(`The relay's profile breaks the contract (${this.reason}): ${this.detail}`)
  }
}

/** The relay's profile could not be fetched and the drift gate was told to fail rather than degrade (`onUnreachable: "fail"`). */
export class RelayProfileUnreachable extends Schema.TaggedError<RelayProfileUnreachable>()("RelayProfileUnreachable", {
  detail: Schema.String,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Why the gate could not run. */
  override get message(): string {
    return sentence(`The drift gate could not reach the relay's profile (${this.detail}) and is configured to fail closed`)
  }
}

/** The turn's argument-repair budget was spent and the model sent invalid arguments again; none of that round ran. */
export class ToolArgumentRepairExhausted
  extends Schema.TaggedError<ToolArgumentRepairExhausted>()("ToolArgumentRepairExhausted", {
    limit: Schema.NonNegativeInt,
    attempts: Schema.NonNegativeInt,
    lastIssues: Schema.Array(IssueSchema),
    compensation
  })
{
  readonly [TypeId]: TypeId = TypeId
  /** The limit, the number of rounds with invalid arguments, and the issues of the last one. */
  override get message(): string {
    const issues = listed(this.lastIssues.map((i) => i.message), 3)
    return sentence(
      `Tool argument repairs exhausted: the model sent invalid arguments in ${this.attempts} ` +
        `round${this.attempts === 1 ? "" : "s"}, and the turn allows ${this.limit} repair${this.limit === 1 ? "" : "s"}` +
        (issues === "" ? "" : `. Last issues: ${issues}`)
    )
  }
}

/**
 * Options given where a service or session is made are not valid (a limit out of range, a base URL that
 * is not http(s), a duration that is none): decoded once, there, and always this error, never a default
 * taken in silence or a defect. `of` names what was being made.
 */
export class InvalidOptions extends Schema.TaggedError<InvalidOptions>()("InvalidOptions", {
  of: Schema.String,
  detail: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  /** What was being made and what is wrong. */
  override get message(): string {
    return sentence(`Invalid ${this.of} options: ${this.detail}`)
  }
}

/** The limits a caller gave `RunLimits` are not valid (a negative, fractional or non-number limit, no round trip at all). */
export class InvalidRunLimits extends Schema.TaggedError<InvalidRunLimits>()("InvalidRunLimits", {
  detail: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  /** What is wrong. */
  override get message(): string {
    return `Invalid run limits: ${this.detail}`
  }
}

/** The rule an event stream broke (each is explained at `EventContract.Rule`). */
export const EventContractRule = Schema.Literal(
  "terminal_without_start", "duplicate_start", "duplicate_terminal", "start_without_terminal",
  "event_after_done", "missing_done", "wrong_execution_model", "duplicate_tool_call",
  "tool_call_without_tool_calling", "too_many_tool_calls"
)

/** The rule an event stream broke. */
export type EventContractRule = typeof EventContractRule.Type

/** A provider-driven event stream broke the contract (a call without exactly one terminal event, a reused id, …). */
export class ProviderEventContractViolation
  extends Schema.TaggedError<ProviderEventContractViolation>()("ProviderEventContractViolation", {
    rule: EventContractRule,
    callId: Schema.optionalWith(Schema.String, { exact: true }),
    compensation
  })
{
  readonly [TypeId]: TypeId = TypeId
  /** The rule broken and the call concerned. */
  override get message(): string {
    return sentence(
      `The provider's event stream broke the contract: ${this.rule}` +
        `${this.callId === undefined ? "" : ` (call ${this.callId})`}`
    )
  }
}

/** The turn needed more provider round trips than `maxProviderRoundTrips` allows. */
export class RoundTripLimitExceeded extends Schema.TaggedError<RoundTripLimitExceeded>()("RoundTripLimitExceeded", {
  limit: Schema.NonNegativeInt,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** States the limit. */
  override get message(): string {
    return `The turn exceeded its limit of ${this.limit} provider round trip${this.limit === 1 ? "" : "s"}.`
  }
}

/** The turn ran past its deadline (`RunLimits.turnDeadlineMillis`); what it had executed was compensated. */
export class TurnDeadlineExceeded extends Schema.TaggedError<TurnDeadlineExceeded>()("TurnDeadlineExceeded", {
  limitMillis: Schema.Int,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** States the deadline. */
  override get message(): string {
    return `The turn ran past its deadline of ${this.limitMillis} ms.`
  }
}

/** The request asked for a tool choice the provider cannot honour. */
export class ToolChoiceUnsupported extends Schema.TaggedError<ToolChoiceUnsupported>()("ToolChoiceUnsupported", {
  choice: Schema.String,
  provider: Schema.String,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Names the provider and the choice. */
  override get message(): string {
    return `Provider ${this.provider} does not support tool choice \`${this.choice}\`.`
  }
}

/** The request asked for structured output from a provider that cannot produce it. */
export class StructuredOutputUnsupported
  extends Schema.TaggedError<StructuredOutputUnsupported>()("StructuredOutputUnsupported", {
    provider: Schema.String
  })
{
  readonly [TypeId]: TypeId = TypeId
  /** Names the provider. */
  override get message(): string {
    return `Provider ${this.provider} does not support structured output.`
  }
}

/** The model's structured answer did not decode with the caller's schema (or the schema has no JSON Schema form). */
export class StructuredOutputInvalid extends Schema.TaggedError<StructuredOutputInvalid>()("StructuredOutputInvalid", {
  detail: Schema.String,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Says why. */
  override get message(): string {
    return `The structured output is not valid: ${this.detail}`
  }
}

/** A send carried images to a provider that does not declare `supportsVision`; no request was made. */
export class VisionUnsupported extends Schema.TaggedError<VisionUnsupported>()("VisionUnsupported", {
  provider: Schema.String,
  images: Schema.NonNegativeInt
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Names the provider. */
  override get message(): string {
    return `Provider ${this.provider} does not declare vision support; the send's ${this.images} image(s) were not sent.`
  }
}

/** A send asked for a model of a provider that does not declare `modelSelection: "perRequest"`; no request was made. */
export class ModelSelectionUnsupported extends Schema.TaggedError<ModelSelectionUnsupported>()("ModelSelectionUnsupported", {
  provider: Schema.String,
  model: Schema.String,
  modelSelection: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Names the provider, the model and what the provider declares. */
  override get message(): string {
    return `Provider ${this.provider} cannot choose a model per request (modelSelection ${this.modelSelection}); model ${JSON.stringify(clip(this.model, 100))} was not used.`
  }
}

/**
 * What a caller can act on in a `ProviderError`, when the provider knows it: `request_too_large` (the endpoint
 * refused the request's size, HTTP 413, or the provider would not send a body past its endpoint's limit:
 * shorten the history or lower the context window), `rate_limited` (HTTP 429: wait, then try again).
 */
export const ProviderErrorCode = Schema.Literal("request_too_large", "rate_limited")
export type ProviderErrorCode = typeof ProviderErrorCode.Type

/** A provider failed (transport, status, decoding); `retryable` says whether trying again may help, `code` what to do when known. */
export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  provider: Schema.String,
  reason: Schema.String,
  retryable: Schema.Boolean,
  cause: Schema.optionalWith(Schema.String, { exact: true }),
  code: Schema.optionalWith(ProviderErrorCode, { exact: true }),
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The provider, the reason and the cause when known. */
  override get message(): string {
    return sentence(`Provider ${this.provider} failed: ${this.reason}${this.cause === undefined ? "" : ` (${this.cause})`}`)
  }
}

/**
 * Every typed error of the runtime as one Schema union: `Schema.encode(ToolgateError)` turns any of them
 * into JSON and `Schema.decodeUnknown(ToolgateError)` gives it back, the same class with the same fields.
 *
 * @since 0.1.0
 */
export const ToolgateError = Schema.Union(
  SchemaDriftError,
  UnsupportedCloudToolSchema,
  RelayProfileContractError,
  RelayProfileUnreachable,
  ToolArgumentRepairExhausted,
  ProviderEventContractViolation,
  RoundTripLimitExceeded,
  TurnDeadlineExceeded,
  ToolChoiceUnsupported,
  StructuredOutputUnsupported,
  StructuredOutputInvalid,
  ProviderError,
  InvalidOptions,
  VisionUnsupported,
  ModelSelectionUnsupported,
  InvalidRunLimits,
  InvalidToolArguments,
  InvalidToolSchema,
  ToolFailure,
  DuplicateToolName,
  NotATool,
  ToolsRejected,
  UndoIncomplete,
  UndoSuperseded,
  SessionStoreError,
  SessionBusy
)

/** Any typed error of the runtime. */
export type ToolgateError = typeof ToolgateError.Type

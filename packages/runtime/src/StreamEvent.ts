/**
 * What a provider's stream emits, as one `effect/Schema` union so events cross HTTP as JSON. App-driven
 * providers emit text, tool calls for the session to run, usage and `Done`; provider-driven providers run
 * tools themselves and report each call's lifecycle: `ToolCallStarted`, then exactly one terminal event.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Json } from "./internal/schemas.js"

/** A chunk of assistant text. */
export const TextDelta = Schema.TaggedStruct("TextDelta", {
  text: Schema.String
})
export type TextDelta = typeof TextDelta.Type

/** Incremental arguments of a call being streamed; the session acts on `ToolCallComplete` only. */
export const ToolCallPartial = Schema.TaggedStruct("ToolCallPartial", {
  id: Schema.String,
  name: Schema.String,
  argsDelta: Schema.String
})
export type ToolCallPartial = typeof ToolCallPartial.Type

/**
 * A call the session should run (app-driven). `arguments` is what the model sent: JSON text (a string is
 * parsed), a JSON value, or `null` / absent for a call without arguments.
 */
export const ToolCallComplete = Schema.TaggedStruct("ToolCallComplete", {
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalWith(Json, { exact: true })
})
export type ToolCallComplete = typeof ToolCallComplete.Type

/** Token accounting of the round trip. */
export const Usage = Schema.TaggedStruct("Usage", {
  inputTokens: Schema.NonNegativeInt,
  outputTokens: Schema.NonNegativeInt
})
export type Usage = typeof Usage.Type

/** The round trip's last event. */
export const Done = Schema.TaggedStruct("Done", {})
export type Done = typeof Done.Type

/** A call the provider started running itself (provider-driven). */
export const ToolCallStarted = Schema.TaggedStruct("ToolCallStarted", {
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalWith(Json, { exact: true })
})
export type ToolCallStarted = typeof ToolCallStarted.Type

/** Terminal: the provider's call finished with `result`. */
export const ToolCallCompleted = Schema.TaggedStruct("ToolCallCompleted", {
  id: Schema.String,
  result: Json
})
export type ToolCallCompleted = typeof ToolCallCompleted.Type

/** Terminal: the call was not allowed to run. */
export const ToolCallDenied = Schema.TaggedStruct("ToolCallDenied", {
  id: Schema.String,
  reason: Schema.String
})
export type ToolCallDenied = typeof ToolCallDenied.Type

/** Terminal: the call ran and failed. */
export const ToolCallFailed = Schema.TaggedStruct("ToolCallFailed", {
  id: Schema.String,
  message: Schema.String
})
export type ToolCallFailed = typeof ToolCallFailed.Type

/** Terminal: the call was cancelled before it finished. */
export const ToolCallCancelled = Schema.TaggedStruct("ToolCallCancelled", {
  id: Schema.String
})
export type ToolCallCancelled = typeof ToolCallCancelled.Type

/** Terminal: the call conflicted with another (a concurrent edit, a lock) and did not apply. */
export const ToolCallConflict = Schema.TaggedStruct("ToolCallConflict", {
  id: Schema.String,
  reason: Schema.String
})
export type ToolCallConflict = typeof ToolCallConflict.Type

/** Every event, as one Schema. */
export const StreamEvent = Schema.Union(
  TextDelta,
  ToolCallPartial,
  ToolCallComplete,
  Usage,
  Done,
  ToolCallStarted,
  ToolCallCompleted,
  ToolCallDenied,
  ToolCallFailed,
  ToolCallCancelled,
  ToolCallConflict
).annotations({ identifier: "StreamEvent" })

/** Any event. */
export type StreamEvent = typeof StreamEvent.Type

/** A terminal event of a provider-driven call. */
export type Terminal = ToolCallCompleted | ToolCallDenied | ToolCallFailed | ToolCallCancelled | ToolCallConflict

/** The tags only app-driven providers emit. */
export const appDrivenTags: ReadonlySet<StreamEvent["_tag"]> = new Set(["ToolCallPartial", "ToolCallComplete"])

/** The tags only provider-driven providers emit. */
export const providerDrivenTags: ReadonlySet<StreamEvent["_tag"]> = new Set([
  "ToolCallStarted",
  "ToolCallCompleted",
  "ToolCallDenied",
  "ToolCallFailed",
  "ToolCallCancelled",
  "ToolCallConflict"
])

/** Whether `event` ends a provider-driven call. */
export const isTerminal = (event: StreamEvent): event is Terminal =>
  providerDrivenTags.has(event._tag) && event._tag !== "ToolCallStarted"

/** JSON text to an event (for SSE `data:` lines), or a `ParseError`. */
export const decodeJson = Schema.decodeUnknownEither(Schema.parseJson(StreamEvent), { errors: "all" })

/** An event to JSON text. */
export const encodeJson = Schema.encodeSync(Schema.parseJson(StreamEvent))

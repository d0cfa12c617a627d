/**
 * What a provider's stream emits, as one `effect/Schema` union so events cross HTTP as JSON. App-driven
 * providers emit text, tool calls for the session to run, usage and `Done`; provider-driven providers run
 * tools themselves and report each call's lifecycle: `ToolCallStarted`, then exactly one terminal event.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { JsonValue } from "@toolgate/json-schema"
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

/** The events that end a provider-driven call: a new terminal event is a member here, and every consumer knows it. */
export const Terminal = Schema.Union(ToolCallCompleted, ToolCallDenied, ToolCallFailed, ToolCallCancelled, ToolCallConflict)

/** A terminal event of a provider-driven call. */
export type Terminal = typeof Terminal.Type

/** Every event, as one Schema. */
export const StreamEvent = Schema.Union(TextDelta, ToolCallPartial, ToolCallComplete, Usage, Done, ToolCallStarted, ...Terminal.members)
  .annotations({ identifier: "StreamEvent" })

/** Any event. */
export type StreamEvent = typeof StreamEvent.Type

/** What a tag is in the event contract: `shared` by both execution models, `appDriven` only, or a provider-driven call's `start` or `terminal`. */
export type Role = "shared" | "appDriven" | "start" | "terminal"

const nonTerminal: { readonly [Tag in Exclude<StreamEvent["_tag"], Terminal["_tag"]>]: Exclude<Role, "terminal"> } = {
  TextDelta: "shared",
  Usage: "shared",
  Done: "shared",
  ToolCallPartial: "appDriven",
  ToolCallComplete: "appDriven",
  ToolCallStarted: "start"
}

/** The literal `_tag` of a tagged struct, read off its Schema. */
const tagOf = (member: Schema.Schema.Any): string =>
  (AST.getPropertySignatures(member.ast).find((p) => p.name === "_tag")!.type as AST.Literal).literal as string

/**
 * The vocabulary: every tag's role, the terminal ones read off `Terminal`. The event contract and the session
 * read this table (a `Map`, so a hostile tag such as `constructor` has no role).
 */
export const roles: ReadonlyMap<string, Role> = new Map<string, Role>([
  ...Object.entries(nonTerminal),
  ...Terminal.members.map((member) => [tagOf(member), "terminal"] as const)
])

/** Whether `event` ends a provider-driven call. */
export const isTerminal = (event: StreamEvent): event is Terminal => roles.get(event._tag) === "terminal"

/** JSON text to an event (for SSE `data:` lines), or a `ParseError`. */
export const decodeJson = Schema.decodeUnknownEither(Schema.parseJson(StreamEvent), { errors: "all" })

const encode = Schema.encodeEither(StreamEvent)

/**
 * An event to JSON text, at any depth of arguments `decodeJson` reads (`JSON.stringify` recurses only so
 * far); `undefined` for a value that is not a `StreamEvent`.
 */
export const encodeJson = (event: StreamEvent): string | undefined => {
  const encoded = encode(event)
  return Either.isRight(encoded) ? JsonValue.stringify(encoded.right) : undefined
}

/**
 * The conversation a session keeps and sends to its provider: user text, assistant turns (text and the
 * tool calls the model made) and tool results (always an envelope). A Schema union, so history crosses
 * HTTP as JSON and a provider can map it to its own wire format.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Json } from "./internal/schemas.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** One tool call as the model made it: its id, the tool's name and the arguments exactly as sent. */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalWith(Json, { exact: true })
}).annotations({ identifier: "ToolCall" })
export type ToolCall = typeof ToolCall.Type

/** What the user said. */
export const User = Schema.TaggedStruct("User", {
  text: Schema.String
})
export type User = typeof User.Type

/** What the model answered in one round trip: its text and the tool calls it made (possibly none). */
export const Assistant = Schema.TaggedStruct("Assistant", {
  text: Schema.String,
  toolCalls: Schema.Array(ToolCall)
})
export type Assistant = typeof Assistant.Type

/** The envelope a tool call was answered with. */
export const ToolResult = Schema.TaggedStruct("ToolResult", {
  callId: Schema.String,
  name: Schema.String,
  envelope: ToolEnvelope.Envelope
})
export type ToolResult = typeof ToolResult.Type

/** Any message of a conversation. */
export const Message = Schema.Union(User, Assistant, ToolResult).annotations({ identifier: "Message" })
export type Message = typeof Message.Type

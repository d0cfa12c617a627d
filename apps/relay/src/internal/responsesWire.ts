/**
 * The OpenAI Responses API request as the relay reads it (only what a scripted model needs; other keys are
 * accepted and ignored), its `input` items mapped to the runtime's `Message`s, so `Script.select` picks the
 * round exactly as it does for the turns endpoint, and what else the model is told (`seen`: `instructions`
 * and the system/developer messages, `temperature` / `top_p` / `max_output_tokens`, `max_tool_calls`, the
 * function tools' names).
 *
 * | input item | becomes |
 * |---|---|
 * | `{ role: "user", content }` | a `User` message (text parts joined) |
 * | `{ role: "assistant", content }`, `{ type: "function_call", … }` | one `Assistant` message per run of them (its text and calls) |
 * | `{ type: "function_call_output", call_id, output }` | a `ToolResult` named by its call (the output an envelope, else text) |
 * | `{ role: "system" \| "developer" }` | the system prompt, not a message |
 * | `{ type: "reasoning" \| "item_reference" }` | nothing (a scripted model has no reasoning to replay) |
 *
 * @internal
 */
import { type Message, ToolEnvelope } from "@toolgate/runtime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ModelView from "./modelView.js"

/** Content: a string, or a list of parts whose text parts (`input_text`, `output_text`, `text`) are joined. */
const Content = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
)
type Content = typeof Content.Type

const MessageItem = Schema.Struct({
  type: Schema.optional(Schema.NullOr(Schema.Literal("message"))),
  role: Schema.Literal("user", "assistant", "system", "developer"),
  content: Content
})

const FunctionCall = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
})

const FunctionCallOutput = Schema.Struct({
  type: Schema.Literal("function_call_output"),
  call_id: Schema.String,
  output: Content
})

/** Items a client may send back that tell a scripted model nothing. */
const Ignored = Schema.Struct({ type: Schema.Literal("reasoning", "item_reference") })

const Item = Schema.Union(MessageItem, FunctionCall, FunctionCallOutput, Ignored)
type Item = typeof Item.Type

/** A tool as a request declares it: function tools carry a `name`; built-in tools (`web_search`, …) do not. */
const ToolIn = Schema.Struct({ type: Schema.String, name: Schema.optional(Schema.String) })

const OptionalNumber = Schema.optional(Schema.NullOr(Schema.Number))

/** A Responses API request body (`POST /v1/responses`). */
export const Request = Schema.Struct({
  model: Schema.String,
  input: Schema.Union(Schema.String, Schema.Array(Item)),
  instructions: Schema.optional(Schema.NullOr(Schema.String)),
  tools: Schema.optional(Schema.NullOr(Schema.Array(ToolIn))),
  temperature: OptionalNumber,
  top_p: OptionalNumber,
  max_output_tokens: OptionalNumber,
  max_tool_calls: OptionalNumber,
  stream: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type Request = typeof Request.Type

/** Decodes a parsed body (every error). */
export const decode = Schema.decodeUnknownEither(Request, { errors: "all" })

const textTypes = new Set(["input_text", "output_text", "text"])

/** The text of a content value (text parts joined; images, files and other parts left out). */
const textOf = (content: Content): string =>
  typeof content === "string"
    ? content
    : content.map((part) => textTypes.has(part.type) && part.text !== undefined ? part.text : "").join("")

/** A function call's output as an envelope: the envelope it is, else a text success. */
const envelopeOf = (text: string): ToolEnvelope.Envelope => {
  const decoded = ToolEnvelope.decode(text)
  return Either.isRight(decoded) ? decoded.right : ToolEnvelope.text(text)
}

const isSystem = (item: Item): item is typeof MessageItem.Type =>
  "role" in item && (item.role === "system" || item.role === "developer")

/** What the request tells the model besides its conversation. */
export const seen = (request: Request): ModelView.Seen => {
  const items = typeof request.input === "string" ? [] : request.input
  const system = [
    ...(request.instructions === undefined || request.instructions === null ? [] : [request.instructions]),
    ...items.flatMap((item) => isSystem(item) ? [textOf(item.content)] : [])
  ]
  return {
    systemPrompt: system.length === 0 ? undefined : system.join("\n\n"),
    sampling: { temperature: request.temperature ?? undefined, topP: request.top_p ?? undefined, maxTokens: request.max_output_tokens ?? undefined },
    maxToolCallsPerTurn: request.max_tool_calls ?? undefined,
    tools: (request.tools ?? []).flatMap((tool) => tool.type === "function" && tool.name !== undefined ? [tool.name] : [])
  }
}

/** The conversation as the runtime's messages: a run of assistant text and calls is one `Assistant` message. */
export const toMessages = (input: Request["input"]): ReadonlyArray<Message.Message> => {
  if (typeof input === "string") return [{ _tag: "User", text: input }]
  const names = new Map<string, string>()
  const out: Array<Message.Message> = []
  let pending: { text: string; toolCalls: Array<Message.ToolCall> } | undefined
  const flush = () => {
    if (pending !== undefined) out.push({ _tag: "Assistant", text: pending.text, toolCalls: pending.toolCalls })
    pending = undefined
  }
  for (const item of input) {
    if (item.type === "function_call") {
      names.set(item.call_id, item.name)
      pending ??= { text: "", toolCalls: [] }
      pending.toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments })
    } else if (item.type === "function_call_output") {
      flush()
      out.push({ _tag: "ToolResult", callId: item.call_id, name: names.get(item.call_id) ?? "", envelope: envelopeOf(textOf(item.output)) })
    } else if ("role" in item && item.role === "assistant") {
      pending ??= { text: "", toolCalls: [] }
      pending.text += textOf(item.content)
    } else if ("role" in item && item.role === "user") {
      flush()
      out.push({ _tag: "User", text: textOf(item.content) })
    }
  }
  flush()
  return out
}

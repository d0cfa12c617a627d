/**
 * The OpenAI Chat Completions request as the relay reads it (only what a scripted model needs; other keys
 * are accepted and ignored), and its messages mapped to the runtime's `Message`s, so `Script.select`
 * picks the round exactly as it does for the turns endpoint.
 *
 * @internal
 */
import { Message, ToolEnvelope } from "@toolgate/runtime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** Message content: a string, or a list of parts whose text parts are joined. */
const Content = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
)
type Content = typeof Content.Type

const System = Schema.Struct({ role: Schema.Literal("system", "developer"), content: Content })

const User = Schema.Struct({ role: Schema.Literal("user"), content: Content })

const CallIn = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

const Assistant = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.optional(Schema.NullOr(Content)),
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(CallIn)))
})

const Tool = Schema.Struct({ role: Schema.Literal("tool"), tool_call_id: Schema.String, content: Content })

/** A Chat Completions request body. */
export const Request = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Schema.Union(System, User, Assistant, Tool)),
  stream: Schema.optional(Schema.NullOr(Schema.Boolean)),
  stream_options: Schema.optional(Schema.NullOr(Schema.Struct({
    include_usage: Schema.optional(Schema.NullOr(Schema.Boolean))
  })))
})
export type Request = typeof Request.Type

/** Decodes a parsed body (every error). */
export const decode = Schema.decodeUnknownEither(Request, { errors: "all" })

/** The text of a content value (text parts joined; other parts left out). */
const textOf = (content: Content | null | undefined): string => {
  if (content === null || content === undefined) return ""
  if (typeof content === "string") return content
  return content.map((part) => part.type === "text" && part.text !== undefined ? part.text : "").join("")
}

/** A tool message's content as an envelope: the envelope it is, else a text success. */
const envelopeOf = (text: string): ToolEnvelope.Envelope => {
  const decoded = ToolEnvelope.decode(text)
  return Either.isRight(decoded) ? decoded.right : ToolEnvelope.text(text)
}

/** The conversation as the runtime's messages: system messages left out, tool results named by their call. */
export const toMessages = (messages: Request["messages"]): ReadonlyArray<Message.Message> => {
  const names = new Map<string, string>()
  const out: Array<Message.Message> = []
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        break
      case "user":
        out.push({ _tag: "User", text: textOf(message.content) })
        break
      case "assistant": {
        const toolCalls = (message.tool_calls ?? []).map((call): Message.ToolCall => {
          names.set(call.id, call.function.name)
          return { id: call.id, name: call.function.name, arguments: call.function.arguments }
        })
        out.push({ _tag: "Assistant", text: textOf(message.content), toolCalls })
        break
      }
      case "tool":
        out.push({
          _tag: "ToolResult",
          callId: message.tool_call_id,
          name: names.get(message.tool_call_id) ?? "",
          envelope: envelopeOf(textOf(message.content))
        })
        break
    }
  }
  return out
}

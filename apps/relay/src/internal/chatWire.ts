/**
 * The OpenAI Chat Completions request as the relay reads it (only what a scripted model needs; other keys
 * are accepted and ignored), its messages mapped to the runtime's `Message`s, so `Script.select`
 * picks the round exactly as it does for the turns endpoint, and what else the model is told (`seen`: the
 * system messages, `temperature` / `top_p` / `max_tokens`, the tool names).
 *
 * @internal
 */
import { Message, ToolEnvelope } from "@toolgate/runtime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ModelView from "./modelView.js"

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

/** A tool as a request declares it (only its name is read). */
const ToolIn = Schema.Struct({ function: Schema.Struct({ name: Schema.String }) })

/** A Chat Completions request body. */
export const Request = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Schema.Union(System, User, Assistant, Tool)),
  tools: Schema.optional(Schema.NullOr(Schema.Array(ToolIn))),
  temperature: Schema.optional(Schema.NullOr(Schema.Number)),
  top_p: Schema.optional(Schema.NullOr(Schema.Number)),
  max_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  max_completion_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
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

/** What the request tells the model besides its messages: the system messages joined, the sampling, the tool names. */
export const seen = (request: Request): ModelView.Seen => {
  const system = request.messages.flatMap((m) => m.role === "system" || m.role === "developer" ? [textOf(m.content)] : [])
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined
  const sampling = { temperature: request.temperature ?? undefined, topP: request.top_p ?? undefined, maxTokens }
  return {
    systemPrompt: system.length === 0 ? undefined : system.join("\n\n"),
    sampling,
    tools: (request.tools ?? []).map((tool) => tool.function.name)
  }
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

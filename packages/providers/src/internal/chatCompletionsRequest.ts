/**
 * A `CompletionRequest` as a Chat Completions request body (JSON text): the history as OpenAI messages
 * (a user's images as `image_url` content parts, inline ones as `data:` URLs; an assistant's calls as `tool_calls` with their arguments as JSON text, a tool result as a `tool`
 * message whose content is the envelope's JSON), the tool definitions as given (their parameters are
 * already in the provider's dialect; `strict: true` only when the definition says so), `tool_choice` when
 * it is not `auto`, `response_format` for structured output, the system prompt as a leading `system`
 * message, sampling as `temperature` / `top_p` / `max_tokens`, the request's `model` over the provider's,
 * and always `stream` with usage.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonSchema } from "@toolgate/json-schema"
import { JsonValue as J, Normalize } from "@toolgate/json-schema"
import type { Message, Provider } from "@toolgate/runtime"
import { ToolEnvelope } from "@toolgate/runtime"

/** What the body needs besides the request: the model, and whether calls may come in parallel. */
export interface Settings {
  readonly model: string
  readonly parallelToolCalls: boolean
  /** The request's `model`, when it has one, replaces `model` (`modelSelection: "perRequest"`). */
  readonly modelPerRequest?: boolean
}

/** The model a request goes to: its own when the provider takes one per request and it names one, else the provider's. */
export const modelOf = (settings: Settings, request: Provider.CompletionRequest): string =>
  settings.modelPerRequest === true && typeof request.model === "string" && request.model.trim() !== "" ? request.model : settings.model

/** The name `response_format` gives the caller's schema (the API requires one). */
export const responseFormatName = "response"

type Wire = { readonly [key: string]: unknown }

/** A call's arguments as the JSON text the API expects: a string as sent, a value as JSON, none as `{}`. */
export const argumentsText = (args: Message.ToolCall["arguments"]): string => {
  if (args === undefined) return "{}"
  if (typeof args === "string") return args
  return J.stringify(args) ?? "{}"
}

/** An image as a Chat Completions `image_url` part: a URL as given, inline bytes as a `data:` URL (what is no image throws: `body` fails). */
const imagePart = (image: Message.Image): Wire => {
  if (image._tag === "ImageUrl" && typeof image.url === "string") return { type: "image_url", image_url: { url: image.url } }
  if (image._tag === "ImageData" && typeof image.data === "string" && typeof image.mediaType === "string") {
    return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } }
  }
  throw new TypeError("not an image")
}

/** One message of the history on the wire (a user message with images as content parts: its text, then the images). */
const message = (m: Message.Message): Wire => {
  switch (m._tag) {
    case "User":
      return m.images === undefined || m.images.length === 0
        ? { role: "user", content: m.text }
        : { role: "user", content: [...(m.text === "" ? [] : [{ type: "text", text: m.text }]), ...m.images.map(imagePart)] }
    case "Assistant":
      return m.toolCalls.length === 0 ? { role: "assistant", content: m.text } : {
        role: "assistant",
        content: m.text === "" ? null : m.text,
        tool_calls: m.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: argumentsText(call.arguments) }
        }))
      }
    case "ToolResult":
      return { role: "tool", tool_call_id: m.callId, content: ToolEnvelope.encode(m.envelope) }
  }
}

/** One tool definition on the wire. */
const tool = (definition: Provider.ToolDefinition): Wire => ({
  type: "function",
  function: {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    ...(definition.strict === true ? { strict: true } : {})
  }
})

/**
 * The caller's schema as `response_format`. Strict mode only when the schema already is a strict-mode
 * schema (enforcement succeeds and changes nothing but `$schema`): enforcing would make optional keys
 * required-and-nullable, and a `null` there is an answer the caller's own schema rejects.
 */
export const responseFormat = (schema: JsonSchema.JsonSchema): Wire => {
  const plain = typeof schema === "object" && Object.hasOwn(schema, "$schema")
    ? Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema")) as JsonSchema.JsonSchema
    : schema
  const enforced = Normalize.openAiStrict(plain)
  const strict = enforced.strict && J.equals(enforced.schema as J.JsonValue, plain as J.JsonValue)
  return { type: "json_schema", json_schema: { name: responseFormatName, schema: plain, strict } }
}

/** The request body as JSON text, or why it has none (a value JSON cannot hold: a cycle, a `bigint`, a throwing getter). */
export const body = (settings: Settings, request: Provider.CompletionRequest): Either.Either<string, string> => {
  try {
    const text = J.stringify(wire(settings, request))
    return text === undefined ? Either.left("the request cannot be written as JSON") : Either.right(text)
  } catch {
    return Either.left("the request could not be read")
  }
}

const wire = (settings: Settings, request: Provider.CompletionRequest): Wire => {
  const hasTools = request.tools.length > 0
  return {
    model: modelOf(settings, request),
    messages: [
      ...(request.systemPrompt === undefined ? [] : [{ role: "system", content: request.systemPrompt }]),
      ...request.messages.map(message)
    ],
    ...(hasTools ? { tools: request.tools.map(tool) } : {}),
    ...(hasTools && request.toolChoice !== "auto" ? { tool_choice: request.toolChoice } : {}),
    ...(hasTools && !settings.parallelToolCalls ? { parallel_tool_calls: false } : {}),
    ...(request.structuredOutput !== undefined ? { response_format: responseFormat(request.structuredOutput) } : {}),
    ...(request.sampling?.temperature === undefined ? {} : { temperature: request.sampling.temperature }),
    ...(request.sampling?.topP === undefined ? {} : { top_p: request.sampling.topP }),
    ...(request.sampling?.maxTokens === undefined ? {} : { max_tokens: request.sampling.maxTokens }),
    stream: true,
    stream_options: { include_usage: true }
  }
}

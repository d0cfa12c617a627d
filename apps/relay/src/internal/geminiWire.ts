/**
 * The Gemini API's `GenerateContentRequest` as the relay reads it (only what a scripted model needs; other
 * keys, and parts it has no use for such as `inlineData`, are accepted and ignored), its `contents` mapped
 * to the runtime's `Message`s so `Script.select` picks the round exactly as it does for the turns endpoint,
 * and what else the model is told (`seen`: the `systemInstruction`, `generationConfig`'s `temperature` /
 * `topP` / `maxOutputTokens`, the function declarations' names and parameter schemas as sent).
 *
 * | content | becomes |
 * |---|---|
 * | `user`: a `text` part | a `User` message per part (toolgate's `Gemini` merges adjacent user messages into one content) |
 * | `user`: a `functionResponse` part | a `ToolResult` (`response` an envelope, else a text success of its JSON) |
 * | `model`: its text and `functionCall` parts | one `Assistant` message (thought summaries left out; adjacent model contents are one message) |
 *
 * @internal
 */
import { JsonValue as J } from "@toolgate/json-schema"
import { type Message, ToolEnvelope } from "@toolgate/runtime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ModelView from "./modelView.js"

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

/**
 * A JSON object, kept as `JSON.parse` made it (Gemini's `args` and `response` are objects). Not a
 * `Schema.Record`, whose decoding copies keys into a fresh object, where an own `__proto__` key would become a prototype.
 */
const JsonObject = Schema.declare((u: unknown): u is J.JsonObject => J.isObject(u), { identifier: "JsonObject" })

/** A JSON value as `JSON.parse` made it (a declaration's parameter schema, shown to the script as sent). */
const JsonValue = Schema.declare((u: unknown): u is J.JsonValue => J.isJsonValue(u), { identifier: "JsonValue" })

const FunctionCall = Schema.Struct({ id: optional(Schema.String), name: Schema.String, args: optional(JsonObject) })

const FunctionResponse = Schema.Struct({ id: optional(Schema.String), name: Schema.String, response: JsonObject })

const Part = Schema.Struct({
  text: optional(Schema.String),
  thought: optional(Schema.Boolean),
  functionCall: optional(FunctionCall),
  functionResponse: optional(FunctionResponse)
})
type Part = typeof Part.Type

const Content = Schema.Struct({ role: optional(Schema.Literal("user", "model")), parts: Schema.Array(Part) })

/** A function declaration: its name and its parameters on either field (`parameters` is the legacy OpenAPI-subset one). */
const Declaration = Schema.Struct({ name: Schema.String, parametersJsonSchema: optional(JsonValue), parameters: optional(JsonValue) })
type Declaration = typeof Declaration.Type

const Tool = Schema.Struct({ functionDeclarations: optional(Schema.Array(Declaration)) })

/** A `streamGenerateContent` request body. */
export const Request = Schema.Struct({
  contents: Schema.Array(Content),
  systemInstruction: optional(Schema.Struct({ parts: Schema.Array(Part) })),
  tools: optional(Schema.Array(Tool)),
  generationConfig: optional(Schema.Struct({
    temperature: optional(Schema.Number),
    topP: optional(Schema.Number),
    maxOutputTokens: optional(Schema.Number)
  }))
})
export type Request = typeof Request.Type

/** Decodes a parsed body (every error). */
export const decode = Schema.decodeUnknownEither(Request, { errors: "all" })

/** A `countTokens` request body: its `contents`, or a whole `generateContentRequest`. */
export const CountRequest = Schema.Struct({
  contents: optional(Schema.Array(Content)),
  generateContentRequest: optional(Request)
})

/** Decodes a parsed `countTokens` body (every error). */
export const decodeCount = Schema.decodeUnknownEither(CountRequest, { errors: "all" })

/** The answer text of parts: text parts joined, thought summaries left out. */
const textOf = (parts: ReadonlyArray<Part>): string =>
  parts.map((part) => part.thought !== true && typeof part.text === "string" ? part.text : "").join("")

/** A function response as an envelope: the envelope it is, else a text success of its JSON. */
const envelopeOf = (response: J.JsonObject): ToolEnvelope.Envelope => {
  const decoded = ToolEnvelope.decode(response)
  return Either.isRight(decoded) ? decoded.right : ToolEnvelope.text(J.stringify(response) ?? "null")
}

/** A declaration as the script sees it: its name and whichever parameter fields it carried (no description). */
const declared = (declaration: Declaration): J.JsonObject => ({
  name: declaration.name,
  ...(declaration.parametersJsonSchema == null ? {} : { parametersJsonSchema: declaration.parametersJsonSchema }),
  ...(declaration.parameters == null ? {} : { parameters: declaration.parameters })
})

/** What the request tells the model besides its contents. */
export const seen = (request: Request): ModelView.Seen => {
  const system = request.systemInstruction == null ? "" : textOf(request.systemInstruction.parts)
  const config = request.generationConfig ?? {}
  const declarations = request.tools == null ? undefined : request.tools.flatMap((tool) => tool.functionDeclarations ?? [])
  return {
    systemPrompt: system === "" ? undefined : system,
    sampling: { temperature: config.temperature ?? undefined, topP: config.topP ?? undefined, maxTokens: config.maxOutputTokens ?? undefined },
    tools: (declarations ?? []).map((declaration) => declaration.name),
    declarations: declarations?.map(declared)
  }
}

/** A model content as one assistant message: its text and calls (arguments as sent, ids as sent or empty). */
const assistant = (parts: ReadonlyArray<Part>): Message.Message => ({
  _tag: "Assistant",
  text: textOf(parts),
  toolCalls: parts.flatMap((part): Array<Message.ToolCall> => {
    const call = part.functionCall
    if (call == null) return []
    return [call.args == null ? { id: call.id ?? "", name: call.name } : { id: call.id ?? "", name: call.name, arguments: call.args }]
  })
})

/** The conversation as the runtime's messages. */
export const toMessages = (contents: Request["contents"]): ReadonlyArray<Message.Message> => {
  const out: Array<Message.Message> = []
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!
    if (content.role === "model") {
      // adjacent model contents are one answer (a chat client keeps a streamed answer as one content per chunk)
      const parts = [...content.parts]
      while (contents[i + 1]?.role === "model") for (const part of contents[++i]!.parts) parts.push(part)
      out.push(assistant(parts))
      continue
    }
    for (const part of content.parts) {
      const response = part.functionResponse
      if (response != null) out.push({ _tag: "ToolResult", callId: response.id ?? "", name: response.name, envelope: envelopeOf(response.response) })
      else if (part.thought !== true && typeof part.text === "string") out.push({ _tag: "User", text: part.text })
    }
  }
  return out
}

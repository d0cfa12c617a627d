/**
 * An @effect/ai `LanguageModel` over Chat Completions, on `@effect/ai-openai`'s `OpenAiClient` (its HTTP
 * client, SSE parsing and `AiError`s). `OpenAiLanguageModel` 0.41 speaks only the Responses API
 * (`POST /responses`), and the relay speaks Chat Completions, so the tests that run the bridge against the
 * relay reach it through this small model: the request built from `ProviderOptions` as any Chat
 * Completions client would, the chunks read into @effect/ai's stream parts.
 */
import { LanguageModel, type Prompt, type Response, Tool } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { HttpBody, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Schema, Stream } from "effect"

const ChunkSchema = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    delta: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      tool_calls: Schema.optional(Schema.Array(Schema.Struct({
        index: Schema.Number,
        id: Schema.optional(Schema.String),
        function: Schema.optional(Schema.Struct({ name: Schema.optional(Schema.String), arguments: Schema.optional(Schema.String) }))
      })))
    }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({ prompt_tokens: Schema.Number, completion_tokens: Schema.Number })))
})
type ChunkOut = typeof ChunkSchema.Type

const text = (parts: ReadonlyArray<Prompt.Part>): string => parts.map((p) => p.type === "text" ? p.text : "").join("")

/** The prompt as Chat Completions messages. */
const messages = (prompt: Prompt.Prompt): Array<unknown> =>
  prompt.content.flatMap((message): Array<unknown> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{ role: "user", content: text(message.content) }]
      case "assistant": {
        const calls = message.content.flatMap((p) =>
          p.type === "tool-call" ? [{ id: p.id, type: "function", function: { name: p.name, arguments: JSON.stringify(p.params) } }] : []
        )
        return [{ role: "assistant", content: text(message.content), ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
      }
      case "tool":
        return message.content.map((p) => ({ role: "tool", tool_call_id: p.id, content: JSON.stringify(p.result) }))
    }
  })

const body = (options: LanguageModel.ProviderOptions) => ({
  model: "scripted",
  stream: true,
  stream_options: { include_usage: true },
  messages: messages(options.prompt),
  ...(options.tools.length === 0 ? {} : {
    tools: options.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: Tool.getDescription(t as any), parameters: Tool.getJsonSchema(t as any) }
    })),
    tool_choice: options.toolChoice
  })
})

/** Chunks to parts: text, streamed arguments, the calls at `finish_reason`, then `finish` with usage. */
const parts = (chunks: Stream.Stream<ChunkOut, any>): Stream.Stream<Response.StreamPartEncoded, any> =>
  Stream.suspend(() => {
    const calls = new Map<number, { id: string; name: string; args: string }>()
    let reason: Response.FinishReason | undefined
    let usage = { inputTokens: undefined as number | undefined, outputTokens: undefined as number | undefined, totalTokens: undefined as number | undefined }
    const step = (chunk: ChunkOut): Array<Response.StreamPartEncoded> => {
      const out: Array<Response.StreamPartEncoded> = []
      if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens, totalTokens: chunk.usage.prompt_tokens + chunk.usage.completion_tokens }
      for (const choice of chunk.choices) {
        if (choice.delta.content) out.push({ type: "text-delta", id: "0", delta: choice.delta.content })
        for (const d of choice.delta.tool_calls ?? []) {
          let call = calls.get(d.index)
          if (call === undefined) {
            call = { id: d.id ?? `call_${d.index}`, name: d.function?.name ?? "", args: "" }
            calls.set(d.index, call)
            out.push({ type: "tool-params-start", id: call.id, name: call.name })
          }
          if (d.function?.arguments) {
            call.args += d.function.arguments
            out.push({ type: "tool-params-delta", id: call.id, delta: d.function.arguments })
          }
        }
        if (choice.finish_reason) {
          reason = choice.finish_reason === "tool_calls" ? "tool-calls" : "stop"
          for (const call of calls.values()) {
            out.push({ type: "tool-call", id: call.id, name: call.name, params: Tool.unsafeSecureJsonParse(call.args === "" ? "{}" : call.args) })
          }
        }
      }
      return out
    }
    const finish = Stream.suspend(() => reason === undefined ? Stream.empty : Stream.make<Array<Response.StreamPartEncoded>>({ type: "finish", reason, usage }))
    return Stream.concat(Stream.mapConcat(chunks, step), finish)
  })

/** The model, needing an `OpenAiClient`. */
export const make = Effect.gen(function*() {
  const client = yield* OpenAiClient.OpenAiClient
  const stream = (options: LanguageModel.ProviderOptions) =>
    parts(client.streamRequest(HttpClientRequest.post("/chat/completions", { body: HttpBody.unsafeJson(body(options)) }), ChunkSchema))
  return yield* LanguageModel.make({
    streamText: stream,
    generateText: (options) => Stream.runCollect(stream(options)).pipe(Effect.map((c) => Array.from(c) as Array<any>))
  })
})

/** The model against a Chat Completions base URL (`…/v1`), over undici; `faults` go out as the relay's `x-toolgate-fault`. */
export const layer = (apiUrl: string, faults?: string) =>
  Layer.effect(LanguageModel.LanguageModel, make).pipe(
    Layer.provide(OpenAiClient.layer({
      apiUrl,
      ...(faults === undefined ? {} : { transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-toolgate-fault", faults)) })
    })),
    Layer.provide(NodeHttpClient.layerUndici)
  )

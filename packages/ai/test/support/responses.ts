/**
 * Recorded OpenAI Responses API streams (`POST /v1/responses`, the wire `@effect/ai-openai`'s
 * `OpenAiLanguageModel` speaks) and the model over a server speaking them (a loopback replay or the relay).
 */
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import type { Event } from "./loopback.js"

/**
 * `OpenAiLanguageModel` (strict tools, its default) against the server's `/v1`; `faults` go out as the
 * relay's `x-toolgate-fault` header.
 */
export const model = (url: string, options?: { readonly model?: string; readonly faults?: string }) =>
  OpenAiLanguageModel.layer({ model: options?.model ?? "gpt-4.1" }).pipe(
    Layer.provide(OpenAiClient.layer({
      apiUrl: `${url}/v1`,
      ...(options?.faults === undefined ? {} : {
        transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-toolgate-fault", options.faults))
      })
    })),
    Layer.provide(NodeHttpClient.layerUndici)
  )

const response = (status: string, usage?: { readonly input: number; readonly output: number }) => ({
  id: "resp_1",
  object: "response",
  created_at: 1760000000,
  status,
  model: "gpt-4.1",
  output: [],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  temperature: 1,
  top_p: 1,
  metadata: {},
  incomplete_details: null,
  error: null,
  instructions: null,
  ...(usage === undefined ? {} : {
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 }
    }
  })
})

let sequence = 0
const event = (data: Record<string, unknown>): Event => [String(data["type"]), { ...data, sequence_number: sequence++ }]

export const created = (): ReadonlyArray<Event> => [event({ type: "response.created", response: response("in_progress") })]

/** A `function_call` item at `index` whose arguments stream as `pieces`. */
export const functionCall = (index: number, callId: string, name: string, ...pieces: ReadonlyArray<string>): ReadonlyArray<Event> => {
  const item = { type: "function_call", id: `fc_${index}`, call_id: callId, name }
  return [
    event({ type: "response.output_item.added", output_index: index, item: { ...item, arguments: "", status: "in_progress" } }),
    ...pieces.map((delta) => event({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta })),
    event({ type: "response.output_item.done", output_index: index, item: { ...item, arguments: pieces.join(""), status: "completed" } })
  ]
}

/** A `message` item at `index` whose text streams as `deltas`. */
export const message = (index: number, ...deltas: ReadonlyArray<string>): ReadonlyArray<Event> => {
  const id = `msg_${index}`
  return [
    event({ type: "response.output_item.added", output_index: index, item: { type: "message", id, role: "assistant", status: "in_progress", content: [] } }),
    ...deltas.map((delta) => event({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: 0, delta, logprobs: [] })),
    event({
      type: "response.output_item.done",
      output_index: index,
      item: { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text: deltas.join(""), annotations: [] }] }
    })
  ]
}

export const completed = (input: number, output: number): ReadonlyArray<Event> => [
  event({ type: "response.completed", response: response("completed", { input, output }) })
]

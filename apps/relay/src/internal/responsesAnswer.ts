/**
 * A scripted round in the OpenAI Responses API wire format: a `response` object, or the server-sent events
 * of a streamed answer (`event: <type>` with the JSON `data`, `sequence_number` counting from 0), in the
 * order OpenAI sends them and the official SDK's `responses.stream` accumulator checks:
 *
 * `response.created`, `response.in_progress`; per output item `response.output_item.added`, then for a
 * `message` `response.content_part.added`, one `response.output_text.delta` per scripted `TextDelta`,
 * `response.output_text.done`, `response.content_part.done`; for a `function_call` its arguments as
 * `response.function_call_arguments.delta` pieces and `response.function_call_arguments.done`; then
 * `response.output_item.done`; and at `Done`, `response.completed` with every item and the summed usage.
 *
 * A run of text deltas is one `message` item; each `ToolCallComplete` is one `function_call` item (its
 * arguments as JSON text, a string sent as the model sent it). Events the Responses API cannot carry
 * (partials, provider-driven lifecycle) are left out, and so is everything after `Done`. A round without
 * `Done` was cut: streamed, it ends without `response.completed` (a response that never finished); not
 * streamed, its `status` is "incomplete" (`incomplete_details.reason` "max_output_tokens").
 *
 * @internal
 */
import type { StreamEvent } from "@toolgate/runtime"
import { argumentsText, pieces } from "./chatAnswer.js"

/** What every event of one answer repeats. */
export interface Reply {
  /** `resp_…`; item ids are made from it. */
  readonly id: string
  readonly created: number
  readonly model: string
}

type Item =
  | { readonly type: "message"; readonly id: string; readonly deltas: Array<string> }
  | { readonly type: "function_call"; readonly id: string; readonly callId: string; readonly name: string; readonly arguments: string }

interface Collected {
  readonly items: ReadonlyArray<Item>
  readonly inputTokens: number
  readonly outputTokens: number
  readonly done: boolean
}

/** The round's output items and usage, up to `Done`. */
const collect = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): Collected => {
  const items: Array<Item> = []
  const suffix = reply.id.replace(/^resp_/, "")
  let inputTokens = 0, outputTokens = 0
  for (const event of events) {
    if (event._tag === "Done") return { items, inputTokens, outputTokens, done: true }
    if (event._tag === "TextDelta" && event.text !== "") {
      const last = items.at(-1)
      if (last?.type === "message") last.deltas.push(event.text)
      else items.push({ type: "message", id: `msg_${suffix}_${items.length}`, deltas: [event.text] })
    } else if (event._tag === "ToolCallComplete") {
      items.push({ type: "function_call", id: `fc_${suffix}_${items.length}`, callId: event.id, name: event.name, arguments: argumentsText(event.arguments) })
    } else if (event._tag === "Usage") {
      inputTokens += event.inputTokens
      outputTokens += event.outputTokens
    }
  }
  return { items, inputTokens, outputTokens, done: false }
}

const outputText = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] })

/** An item as `response.output` carries it; `status` says whether it is still being sent. */
const itemJson = (item: Item, status: "in_progress" | "completed") =>
  item.type === "message"
    ? { type: "message", id: item.id, role: "assistant", status, content: status === "completed" ? [outputText(item.deltas.join(""))] : [] }
    : { type: "function_call", id: item.id, call_id: item.callId, name: item.name, arguments: status === "completed" ? item.arguments : "", status }

const usageJson = (collected: Collected) => ({
  input_tokens: collected.inputTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: collected.outputTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: collected.inputTokens + collected.outputTokens
})

/** The `response` object: in progress (no output, no usage yet), completed, or incomplete (a round without `Done`). */
const responseJson = (reply: Reply, collected: Collected | undefined) => ({
  id: reply.id,
  object: "response",
  created_at: reply.created,
  status: collected === undefined ? "in_progress" : collected.done ? "completed" : "incomplete",
  error: null,
  // a round that never came to `Done` was cut; the Responses API names no reason closer than this one
  incomplete_details: collected === undefined || collected.done ? null : { reason: "max_output_tokens" },
  instructions: null,
  model: reply.model,
  output: collected === undefined ? [] : collected.items.map((item) => itemJson(item, "completed")),
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  temperature: null,
  top_p: null,
  metadata: {},
  usage: collected === undefined ? null : usageJson(collected)
})

/** The non-streamed answer: one `response` as JSON text (what the round said before `Done`, or all of it). */
export const response = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): string =>
  JSON.stringify(responseJson(reply, collect(reply, events)))

/** The streamed answer: one server-sent event block per Responses stream event. */
export const streamEvents = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<string> => {
  const collected = collect(reply, events)
  const out: Array<string> = []
  const push = (type: string, fields: object) =>
    out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: out.length, ...fields })}\n\n`)
  push("response.created", { response: responseJson(reply, undefined) })
  push("response.in_progress", { response: responseJson(reply, undefined) })
  collected.items.forEach((item, index) => {
    const at = { output_index: index }
    push("response.output_item.added", { ...at, item: itemJson(item, "in_progress") })
    if (item.type === "message") {
      const text = item.deltas.join("")
      const part = { ...at, item_id: item.id, content_index: 0 }
      push("response.content_part.added", { ...part, part: outputText("") })
      for (const delta of item.deltas) push("response.output_text.delta", { ...part, delta, logprobs: [] })
      push("response.output_text.done", { ...part, text, logprobs: [] })
      push("response.content_part.done", { ...part, part: outputText(text) })
    } else {
      for (const delta of pieces(item.arguments)) push("response.function_call_arguments.delta", { ...at, item_id: item.id, delta })
      push("response.function_call_arguments.done", { ...at, item_id: item.id, arguments: item.arguments })
    }
    push("response.output_item.done", { ...at, item: itemJson(item, "completed") })
  })
  if (collected.done) push("response.completed", { response: responseJson(reply, collected) })
  return out
}

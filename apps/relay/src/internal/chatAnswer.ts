/**
 * A scripted round in the OpenAI Chat Completions wire format: a `chat.completion` object, or the
 * `chat.completion.chunk` server-sent events of a streamed answer ending with `data: [DONE]`.
 *
 * Text deltas become `content` deltas; each `ToolCallComplete` becomes a tool call (streamed: a first delta
 * with `index`, `id`, `type` and `function.name`, then its `arguments` in pieces); `Usage` events are summed;
 * `Done` ends the answer (`finish_reason` "tool_calls" when the round made calls, else "stop"). Events
 * Chat Completions cannot carry (partials, provider-driven lifecycle) are left out, and so is everything
 * after `Done`. A round without `Done` was cut: streamed, it ends without a finish chunk and without `[DONE]`;
 * not streamed, its `finish_reason` is "length".
 *
 * @internal
 */
import { JsonValue as J } from "@toolgate/json-schema"
import type { StreamEvent } from "@toolgate/runtime"

/** What every chunk of one answer repeats. */
export interface Reply {
  readonly id: string
  readonly created: number
  readonly model: string
  /** `stream_options.include_usage`: every chunk has `usage: null` and a last chunk carries the usage. */
  readonly includeUsage: boolean
}

/** A call as Chat Completions carries it: the arguments as JSON text. */
interface Call {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

interface Collected {
  readonly text: string
  readonly calls: ReadonlyArray<Call>
  readonly inputTokens: number
  readonly outputTokens: number
}

/** How long an `arguments` piece of a streamed tool call is at most (in UTF-16 units; pairs never split). */
const pieceLength = 16

/** A call's arguments as JSON text: a string is sent as the model sent it, absent is `{}`. */
export const argumentsText = (args: StreamEvent.ToolCallComplete["arguments"]): string => {
  if (args === undefined) return "{}"
  if (typeof args === "string") return args
  return J.stringify(args) ?? "null"
}

/** The events up to `Done` (all of them when there is none) and whether `Done` came. */
const untilDone = (events: ReadonlyArray<StreamEvent.StreamEvent>) => {
  const done = events.findIndex((event) => event._tag === "Done")
  return { events: done === -1 ? events : events.slice(0, done), done: done !== -1 }
}

const collect = (events: ReadonlyArray<StreamEvent.StreamEvent>): Collected => {
  let text = "", inputTokens = 0, outputTokens = 0
  const calls: Array<Call> = []
  for (const event of events) {
    if (event._tag === "TextDelta") text += event.text
    else if (event._tag === "ToolCallComplete") calls.push({ id: event.id, name: event.name, arguments: argumentsText(event.arguments) })
    else if (event._tag === "Usage") {
      inputTokens += event.inputTokens
      outputTokens += event.outputTokens
    }
  }
  return { text, calls, inputTokens, outputTokens }
}

const usageOf = (collected: Collected) => ({
  prompt_tokens: collected.inputTokens,
  completion_tokens: collected.outputTokens,
  total_tokens: collected.inputTokens + collected.outputTokens
})

const finishReason = (collected: Collected) => collected.calls.length > 0 ? "tool_calls" : "stop"

/** The non-streamed answer: one `chat.completion` as JSON text. */
export const completion = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): string => {
  const { done, events: before } = untilDone(events)
  const collected = collect(before)
  const message = {
    role: "assistant",
    content: collected.text === "" && collected.calls.length > 0 ? null : collected.text,
    refusal: null,
    ...(collected.calls.length === 0 ? {} : {
      tool_calls: collected.calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }))
    })
  }
  return JSON.stringify({
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    // a round that never came to `Done` was cut: "length", as OpenAI says of an answer cut short
    choices: [{ index: 0, message, logprobs: null, finish_reason: done ? finishReason(collected) : "length" }],
    usage: usageOf(collected)
  })
}

/** The streamed answer: `chat.completion.chunk` events (each a server-sent event block), then `data: [DONE]`. */
export const chunks = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<string> => {
  const { done, events: before } = untilDone(events)
  const out: Array<string> = []
  const push = (delta: object, finish: string | null = null) =>
    out.push(data({
      id: reply.id,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(reply.includeUsage ? { usage: null } : {})
    }))
  push({ role: "assistant", content: "" })
  let index = 0
  for (const event of before) {
    if (event._tag === "TextDelta" && event.text !== "") push({ content: event.text })
    else if (event._tag === "ToolCallComplete") {
      const at = index++
      push({ tool_calls: [{ index: at, id: event.id, type: "function", function: { name: event.name, arguments: "" } }] })
      for (const piece of pieces(argumentsText(event.arguments))) push({ tool_calls: [{ index: at, function: { arguments: piece } }] })
    }
  }
  if (!done) return out
  const collected = collect(before)
  push({}, finishReason(collected))
  if (reply.includeUsage) {
    out.push(data({ id: reply.id, object: "chat.completion.chunk", created: reply.created, model: reply.model, choices: [], usage: usageOf(collected) }))
  }
  out.push("data: [DONE]\n\n")
  return out
}

/** One server-sent event carrying a JSON value. */
const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`

/** Text cut into pieces of at most `pieceLength` units, never between the halves of a surrogate pair. */
export const pieces = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(start + pieceLength, text.length)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
    out.push(text.slice(start, end))
    start = end
  }
  return out
}

/**
 * Recorded Anthropic Messages streams (the event sequences the API sends, trimmed to the fields the wire
 * carries) and an `AnthropicLanguageModel` over a loopback server speaking them.
 */
import { AnthropicClient, AnthropicLanguageModel } from "@effect/ai-anthropic"
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import type { Event } from "./loopback.js"

/** `AnthropicLanguageModel` for a model id against `url` (no key: the loopback server does not ask). */
export const model = (url: string) =>
  AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
    Layer.provide(AnthropicClient.layer({ apiUrl: url })),
    Layer.provide(NodeHttpClient.layerUndici)
  )

const message = (id: string, inputTokens: number) => ({
  type: "message_start",
  message: {
    id,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: 1 }
  }
})

/** The opening of a message: `message_start` and a `ping`, as the API sends them. */
export const start = (id: string, inputTokens: number): ReadonlyArray<Event> => [
  ["message_start", message(id, inputTokens)],
  ["ping", { type: "ping" }]
]

/** A text block at `index`, its text in the given deltas. */
export const textBlock = (index: number, ...deltas: ReadonlyArray<string>): ReadonlyArray<Event> => [
  ["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }],
  ...deltas.map((text): Event => ["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } }]),
  ["content_block_stop", { type: "content_block_stop", index }]
]

/** A `tool_use` block at `index` whose input arrives as `input_json_delta` pieces. */
export const toolUse = (index: number, id: string, name: string, ...pieces: ReadonlyArray<string>): ReadonlyArray<Event> => [
  ["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } }],
  ...pieces.map((partial_json): Event => ["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }]),
  ["content_block_stop", { type: "content_block_stop", index }]
]

/** The close of a message: `message_delta` with the stop reason and output tokens, then `message_stop`. */
export const stop = (reason: "end_turn" | "tool_use", outputTokens: number): ReadonlyArray<Event> => [
  ["message_delta", { type: "message_delta", delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: outputTokens } }],
  ["message_stop", { type: "message_stop" }]
]

/** One whole recorded message. */
export const recorded = (...parts: ReadonlyArray<ReadonlyArray<Event>>): ReadonlyArray<Event> => parts.flat()

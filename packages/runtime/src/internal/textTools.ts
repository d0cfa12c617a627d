/**
 * Tool calling through text, for a provider that declares `supportsToolCalling: false`: the convention
 * open models are trained on and llama.cpp / vLLM chat templates use (Hermes / Qwen style). The system
 * prompt lists the tools inside `<tools>…</tools>` and asks for calls as
 * `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks (several per reply allowed); results go
 * back inside `<tool_response>…</tool_response>` in a user message. The session parses the blocks out of
 * the reply, so parsed calls go through layers 2 and 3 exactly like native ones.
 *
 * @internal
 */
import { JsonValue as J } from "@toolgate/json-schema"
import type * as Message from "../Message.js"
import type * as Provider from "../Provider.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import { parseJson } from "./json.js"

const open = "<tool_call>"
const close = "</tool_call>"

/** The system prompt's part that teaches the convention and lists `tools` (name, description, parameters). */
export const instructions = (tools: ReadonlyArray<Provider.ToolDefinition>): string =>
  [
    "# Tools",
    "",
    "You may call one or more tools to help with the user's request. The tools are listed, as JSON, inside <tools></tools>:",
    "<tools>",
    ...tools.map((t) => J.stringify({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }) ?? ""),
    "</tools>",
    "",
    "To call a tool, write a JSON object with the tool's name and its arguments inside <tool_call></tool_call> tags:",
    `${open}`,
    `{"name": <tool name>, "arguments": <arguments as a JSON object>}`,
    `${close}`,
    "You may write several such blocks in one reply. Each result comes back in a user message inside",
    "<tool_response></tool_response> tags; a result with \"ok\": false says what was wrong, so you can call again."
  ].join("\n")

/** A reply split into the assistant's own text and the calls its blocks stand for. */
export interface Parsed {
  readonly text: string
  readonly calls: ReadonlyArray<Message.ToolCall>
}

/**
 * The `<tool_call>` blocks of `reply` as calls, ids `text_call_<round>_<n>`, and the text around them (trimmed
 * where a block was cut out). A block whose JSON is not an object with a string `name` becomes a call of the
 * name it seems to give (or `""`) with the block's text as its arguments, so validation answers it
 * `invalid_args` (or `tool_not_found`) and the model repairs it; an unclosed block runs to the end of the reply.
 */
export const parse = (reply: string, round: number): Parsed => {
  const calls: Array<Message.ToolCall> = []
  const text: Array<string> = []
  let at = 0
  while (true) {
    const start = reply.indexOf(open, at)
    if (start < 0) break
    text.push(reply.slice(at, start))
    const end = reply.indexOf(close, start + open.length)
    const body = reply.slice(start + open.length, end < 0 ? reply.length : end).trim()
    calls.push(callOf(body, `text_call_${round}_${calls.length + 1}`))
    at = end < 0 ? reply.length : end + close.length
  }
  if (calls.length === 0) return { text: reply, calls }
  text.push(reply.slice(at))
  return { text: text.map((t) => t.trim()).filter((t) => t !== "").join("\n\n"), calls }
}

/** One block's call: its name and arguments, or the raw text as arguments when the block is malformed. */
const callOf = (body: string, id: string): Message.ToolCall => {
  const parsed = parseJson(body)?.value
  if (J.isObject(parsed) && typeof parsed["name"] === "string") {
    const args = Object.hasOwn(parsed, "arguments") ? parsed["arguments"] : undefined
    return args === undefined ? { id, name: parsed["name"] } : { id, name: parsed["name"], arguments: args }
  }
  const name = /"name"\s*:\s*"([^"\\]{1,200})"/.exec(body)?.[1] ?? ""
  return { id, name, arguments: body }
}

/** A call as the block the model wrote (what a text-routed request shows of the assistant's earlier calls). */
const block = (call: Message.ToolCall): string =>
  `${open}\n${J.stringify({ name: call.name, ...(call.arguments === undefined ? {} : { arguments: call.arguments }) }) ?? ""}\n${close}`

/**
 * History as a model without native tool calling reads it: an assistant's calls become its blocks after its
 * text, and each run of tool results becomes one user message of `<tool_response>` blocks.
 */
export const transcript = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> => {
  const out: Array<Message.Message> = []
  let responses: Array<string> = []
  const flush = () => {
    if (responses.length > 0) out.push({ _tag: "User", text: responses.join("\n") })
    responses = []
  }
  for (const m of messages) {
    if (m._tag === "ToolResult") {
      responses.push(`<tool_response>\n${J.stringify({ name: m.name, content: m.envelope }) ?? ToolEnvelope.encode(m.envelope)}\n</tool_response>`)
      continue
    }
    flush()
    out.push(m._tag === "Assistant" && m.toolCalls.length > 0
      ? { _tag: "Assistant", text: [m.text, ...m.toolCalls.map(block)].filter((t) => t !== "").join("\n"), toolCalls: [] }
      : m)
  }
  flush()
  return out
}

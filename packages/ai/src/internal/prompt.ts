/**
 * toolgate's history as an @effect/ai `Prompt`: user text, assistant text with its tool calls, and tool
 * results whose `result` is the envelope as a JSON object (providers `JSON.stringify` it, so the model
 * reads the envelope's JSON) and whose `isFailure` is `!envelope.ok` (Anthropic's `is_error`).
 */
import * as Prompt from "@effect/ai/Prompt"
import type { Message } from "@toolgate/runtime"
import { ToolEnvelope } from "@toolgate/runtime"

/**
 * The conversation as a prompt, after the session's system prompt as a `system` message when it has one;
 * consecutive tool results share one `tool` message, as providers group them.
 */
export const fromMessages = (messages: ReadonlyArray<Message.Message>, systemPrompt?: string): Prompt.Prompt => {
  const out: Array<Prompt.Message> = systemPrompt === undefined ? [] : [Prompt.systemMessage({ content: systemPrompt })]
  let results: Array<Prompt.ToolResultPart> = []
  const flush = () => {
    if (results.length > 0) out.push(Prompt.toolMessage({ content: results }))
    results = []
  }
  for (const message of messages) {
    if (message._tag === "ToolResult") {
      results.push(toolResult(message))
      continue
    }
    flush()
    out.push(message._tag === "User" ? Prompt.userMessage({ content: [Prompt.textPart({ text: message.text })] }) : assistant(message))
  }
  flush()
  return Prompt.fromMessages(out)
}

const assistant = (message: Message.Assistant): Prompt.AssistantMessage => {
  const text = message.text === "" ? [] : [Prompt.textPart({ text: message.text })]
  const calls = message.toolCalls.map((call) =>
    Prompt.toolCallPart({ id: call.id, name: call.name, params: argumentsValue(call.arguments), providerExecuted: false })
  )
  return Prompt.assistantMessage({ content: [...text, ...calls] })
}

const toolResult = (message: Message.ToolResult): Prompt.ToolResultPart =>
  Prompt.toolResultPart({
    id: message.callId,
    name: message.name,
    isFailure: !message.envelope.ok,
    result: JSON.parse(ToolEnvelope.encode(message.envelope)),
    providerExecuted: false
  })

/**
 * The arguments as a value: providers serialize `params` themselves, so JSON text the model sent (a
 * Chat Completions `arguments` string) is parsed back, and text that is not JSON stays the string it was.
 */
const argumentsValue = (args: unknown): unknown => {
  if (args === undefined || args === null) return {}
  if (typeof args !== "string") return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

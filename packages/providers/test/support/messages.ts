/**
 * Message lists for tests: a short way to write a conversation and a tool result.
 */
import type { Message } from "@toolgate/runtime"
import { ToolEnvelope } from "@toolgate/runtime"

/** A User message. */
export const user = (text: string): Message.Message => ({ _tag: "User", text })

/** An Assistant message with `calls` tool calls named `tool` (ids `call_<n>`). */
export const assistant = (text = "", calls = 0): Message.Message => ({
  _tag: "Assistant",
  text,
  toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `call_${i + 1}`, name: "tool", arguments: { n: i } }))
})

/** A successful ToolResult for `callId`. */
export const result = (callId: string): Message.Message => ({
  _tag: "ToolResult",
  callId,
  name: "tool",
  envelope: ToolEnvelope.text("ok")
})

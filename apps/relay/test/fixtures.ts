/**
 * What the relay tests share: a script with a tool-calling turn, a failing turn and a turn whose
 * arguments are JSON text, raw HTTP helpers bounded by timeouts, and a server-sent events splitter.
 */
import type { Script } from "@toolgate/providers"
import { Effect, Logger, LogLevel } from "effect"
import { Relay } from "../src/index.js"

/** `Relay.start` without its request log lines (the log itself is tested in Logging.test.ts), fault headers on unless the config says. */
export const start = (config: Relay.Config) => Relay.start({ faultHeaders: true, ...config }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))

/** The weather tool's arguments in turn 1 (long enough to stream in several pieces, with a `__proto__` key). */
export const parisArguments = {
  city: "Paris",
  units: "metric",
  note: "a note long enough to be cut into several argument pieces",
  ["__proto__"]: { polluted: true }
}

/** Turn 3's arguments, as the model sent them: JSON text with non-ASCII characters and an emoji. */
export const zurichArguments = "{\"city\": \"Zürich 🌍 — an emoji and accents\", \"days\": 3}"

/** Three turns: a tool call then an answer; a retryable failure; a call with JSON-text arguments. */
export const script: Script.Script = {
  turns: [
    [
      [
        { _tag: "TextDelta", text: "Checking the weather. " },
        { _tag: "ToolCallComplete", id: "call_1", name: "get_weather", arguments: JSON.parse(JSON.stringify(parisArguments)) },
        { _tag: "Usage", inputTokens: 12, outputTokens: 7 },
        { _tag: "Done" }
      ],
      [
        { _tag: "TextDelta", text: "It is sunny " },
        { _tag: "TextDelta", text: "in Paris." },
        { _tag: "Usage", inputTokens: 30, outputTokens: 5 },
        { _tag: "Done" }
      ]
    ],
    [{ fail: { reason: "the model is overloaded", retryable: true } }],
    [
      [
        { _tag: "ToolCallComplete", id: "call_2", name: "get_weather", arguments: zurichArguments },
        { _tag: "ToolCallComplete", id: "call_3", name: "get_time" },
        { _tag: "Done" }
      ]
    ]
  ]
}

/** The profile the tests serve (an extra key, which the relay keeps). */
export const profile = {
  capabilities_version: "1.0",
  tool_schemas: {
    get_weather: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  },
  documents: { supported: false }
}

/** The user's first message as the turns endpoint takes it. */
export const firstTurn = [{ _tag: "User", text: "What is the weather in Paris?" }]

/** The first turn after its tool call was answered: the request for round 2. */
export const afterTool = [
  ...firstTurn,
  {
    _tag: "Assistant",
    text: "Checking the weather. ",
    toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }]
  },
  { _tag: "ToolResult", callId: "call_1", name: "get_weather", envelope: { ok: true, result: { sky: "sunny" } } }
]

/** A turn request body. */
export const turnBody = (messages: ReadonlyArray<unknown>) => JSON.stringify({ messages, tools: ["get_weather"], toolChoice: "auto" })

/** A `fetch` bounded by a timeout (the default 5 seconds), as an Effect. */
export const request = (url: string, init: RequestInit & { readonly timeoutMs?: number } = {}) =>
  Effect.promise(() => fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 5_000) }))

/** A request and its whole body as text. */
export const requestText = (url: string, init: RequestInit & { readonly timeoutMs?: number } = {}) =>
  Effect.flatMap(request(url, init), (response) =>
    Effect.map(Effect.promise(() => response.text()), (text) => ({ status: response.status, headers: response.headers, text })))

/** A JSON POST and its whole answer. */
export const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  requestText(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } })

/** Server-sent event blocks: their event type and data (lines joined). */
export const blocks = (text: string): ReadonlyArray<{ readonly event: string; readonly data: string }> =>
  text.split("\n\n").filter((block) => block.trim() !== "").map((block) => {
    let event = "message"
    const data: Array<string> = []
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7)
      else if (line.startsWith("data: ")) data.push(line.slice(6))
    }
    return { event, data: data.join("\n") }
  })

/** Whether a prototype was polluted by a `__proto__` key somewhere. */
export const polluted = (): boolean => "polluted" in ({} as Record<string, unknown>) || "polluted" in Object.prototype

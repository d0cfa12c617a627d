/**
 * A scripted round in the Gemini API's wire format: `GenerateContentResponse` chunks, as server-sent events
 * (`alt=sse`: one unnamed `data:` event each) or one JSON array of them (without `alt=sse`, as Google
 * answers), or one `GenerateContentResponse` for `generateContent`. A chunk per `TextDelta` (a `text` part)
 * and per `ToolCallComplete` (a `functionCall` part with the scripted id); at `Done`, the last chunk also
 * carries `finishReason: "STOP"` and the summed `usageMetadata` (a round with nothing to say ends on one
 * empty `text` part: every chunk has a part, as clients that keep the model's turn in a chat history need).
 * Gemini has no end sentinel, so a round without `Done` simply ends without a finish reason (a cut stream;
 * `generateContent` answers it the same way, without a finish reason).
 *
 * Gemini's `args` is always an object: an object is sent as it is, JSON text of an object parsed, absent
 * arguments left out, anything else (text that is not an object) sent as `{}`. Partials and
 * provider-driven events are left out, and so is everything after `Done`.
 *
 * @internal
 */
import { Gemini } from "@toolgate/providers"
import type { StreamEvent } from "@toolgate/runtime"

/** What every chunk of one answer repeats. */
export interface Reply {
  readonly responseId: string
  readonly modelVersion: string
}

type Part = Readonly<Record<string, unknown>>

/** The round's parts, one chunk each, its summed usage and whether it came to `Done`. */
const collect = (events: ReadonlyArray<StreamEvent.StreamEvent>) => {
  const parts: Array<Part> = []
  let input = 0, output = 0, done = false
  for (const event of events) {
    if (event._tag === "Done") {
      done = true
      break
    }
    if (event._tag === "TextDelta" && event.text !== "") parts.push({ text: event.text })
    else if (event._tag === "ToolCallComplete") {
      const args = event.arguments === undefined ? undefined : Gemini.argumentsObject(event.arguments)
      parts.push({ functionCall: { id: event.id, name: event.name, ...(args === undefined ? {} : { args }) } })
    } else if (event._tag === "Usage") {
      input += event.inputTokens
      output += event.outputTokens
    }
  }
  return { parts, input, output, done }
}

/** One `GenerateContentResponse`; the finish reason and usage when `done`. */
const responseJson = (reply: Reply, parts: ReadonlyArray<Part>, end: { readonly input: number; readonly output: number } | undefined) => ({
  candidates: [{ content: { role: "model", parts }, index: 0, ...(end === undefined ? {} : { finishReason: "STOP" }) }],
  ...(end === undefined ? {} : {
    usageMetadata: { promptTokenCount: end.input, candidatesTokenCount: end.output, totalTokenCount: end.input + end.output }
  }),
  modelVersion: reply.modelVersion,
  responseId: reply.responseId
})

/** The round's chunks, as JSON values: a part each, the last one finishing the round when it came to `Done`. */
export const chunks = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<unknown> => {
  const { done, input, output, parts } = collect(events)
  const all = done && parts.length === 0 ? [{ text: "" }] : parts
  return all.map((part, i) => responseJson(reply, [part], done && i === all.length - 1 ? { input, output } : undefined))
}

/** The whole round as one `GenerateContentResponse` (`generateContent`); throws as `sse` does. */
export const response = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): string => {
  const { done, input, output, parts } = collect(events)
  return JSON.stringify(responseJson(reply, parts.length === 0 ? [{ text: "" }] : parts, done ? { input, output } : undefined))
}

/** The chunks as server-sent events (`alt=sse`); throws on a script JSON cannot hold (the caller answers 500). */
export const sse = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<string> =>
  chunks(reply, events).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)

/** The chunks as one JSON array (no `alt=sse`); throws as `sse` does. */
export const array = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): string => JSON.stringify(chunks(reply, events))

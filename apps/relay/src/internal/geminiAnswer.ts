/**
 * A scripted round in the Gemini API's wire format: `GenerateContentResponse` chunks, as server-sent events
 * (`alt=sse`: one unnamed `data:` event each) or one JSON array of them (without `alt=sse`, as Google
 * answers). A chunk per `TextDelta` (a `text` part) and per `ToolCallComplete` (a `functionCall` part with
 * the scripted id); at `Done`, a last chunk with `finishReason: "STOP"` and the summed `usageMetadata`.
 * Gemini has no end sentinel, so a round without `Done` simply ends without a finish reason (a cut stream).
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

/** The round's chunks, as JSON values. */
export const chunks = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  const chunk = (parts: ReadonlyArray<unknown>, end?: { readonly input: number; readonly output: number }) =>
    out.push({
      candidates: [{ content: { role: "model", parts }, index: 0, ...(end === undefined ? {} : { finishReason: "STOP" }) }],
      ...(end === undefined ? {} : {
        usageMetadata: { promptTokenCount: end.input, candidatesTokenCount: end.output, totalTokenCount: end.input + end.output }
      }),
      modelVersion: reply.modelVersion,
      responseId: reply.responseId
    })
  let input = 0, output = 0
  for (const event of events) {
    if (event._tag === "Done") {
      chunk([], { input, output })
      break
    }
    if (event._tag === "TextDelta" && event.text !== "") chunk([{ text: event.text }])
    else if (event._tag === "ToolCallComplete") {
      const args = event.arguments === undefined ? undefined : Gemini.argumentsObject(event.arguments)
      chunk([{ functionCall: { id: event.id, name: event.name, ...(args === undefined ? {} : { args }) } }])
    } else if (event._tag === "Usage") {
      input += event.inputTokens
      output += event.outputTokens
    }
  }
  return out
}

/** The chunks as server-sent events (`alt=sse`); throws on a script JSON cannot hold (the caller answers 500). */
export const sse = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): ReadonlyArray<string> =>
  chunks(reply, events).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)

/** The chunks as one JSON array (no `alt=sse`); throws as `sse` does. */
export const array = (reply: Reply, events: ReadonlyArray<StreamEvent.StreamEvent>): string => JSON.stringify(chunks(reply, events))

/**
 * What the scripted model reads of a request besides the round it answers: the system prompt, the sampling,
 * the tool-call cap and the tool names (`Seen`), which a script's text can name as `{{fields}}`. (Which
 * round a request gets is `Script.select`'s, which counts a user message made only of `<tool_response>`
 * blocks as tool results, not a new turn.)
 *
 * | field in a `TextDelta` | becomes |
 * |---|---|
 * | `{{systemPrompt}}` | the request's system prompt |
 * | `{{sampling}}` | `temperature=0.2, topP=0.9, maxTokens=200` (the keys the request set, in that order) |
 * | `{{maxToolCallsPerTurn}}` | the cap the request carries |
 * | `{{tools}}` | the request's tool names, comma-separated |
 * | `{{functionDeclarations}}` | Gemini's function declarations as received, JSON: `[{"name", "parametersJsonSchema" or "parameters"}]` (descriptions left out) |
 *
 * A field the request does not carry is `(none)`. Other text, `{{unknown}}` included, is left as it is.
 *
 * @internal
 */
import { JsonValue as J } from "@toolgate/json-schema"
import type { StreamEvent } from "@toolgate/runtime"

/** What a request told the model besides its messages. */
export interface Seen {
  readonly systemPrompt?: string | undefined
  readonly sampling?: {
    readonly temperature?: number | undefined
    readonly topP?: number | undefined
    readonly maxTokens?: number | undefined
  } | undefined
  readonly maxToolCallsPerTurn?: number | undefined
  readonly tools: ReadonlyArray<string>
  /** The tool declarations with their parameter schemas as the wire carried them (Gemini's `functionDeclarations`). */
  readonly declarations?: ReadonlyArray<J.JsonObject> | undefined
}

const none = "(none)"

/** The sampling as `key=value` pairs, or `(none)`. */
const samplingText = (sampling: Seen["sampling"]): string => {
  if (sampling === undefined) return none
  const pairs = (["temperature", "topP", "maxTokens"] as const)
    .filter((key) => sampling[key] !== undefined)
    .map((key) => `${key}=${String(sampling[key])}`)
  return pairs.length === 0 ? none : pairs.join(", ")
}

/** Each field's text for one request. */
const values = (seen: Seen): Readonly<Record<string, string>> => ({
  systemPrompt: seen.systemPrompt ?? none,
  sampling: samplingText(seen.sampling),
  maxToolCallsPerTurn: seen.maxToolCallsPerTurn === undefined ? none : String(seen.maxToolCallsPerTurn),
  tools: seen.tools.length === 0 ? none : seen.tools.join(", "),
  functionDeclarations: seen.declarations === undefined ? none : J.stringify(seen.declarations) ?? none
})

const field = /\{\{(systemPrompt|sampling|maxToolCallsPerTurn|tools|functionDeclarations)\}\}/g

/** A round with the `{{fields}}` of its text filled from `seen` (other events as they are). */
export const fill = (round: ReadonlyArray<StreamEvent.StreamEvent>, seen: Seen): ReadonlyArray<StreamEvent.StreamEvent> => {
  let filled: Readonly<Record<string, string>> | undefined
  return round.map((event) => {
    if (event._tag !== "TextDelta" || typeof event.text !== "string" || !event.text.includes("{{")) return event
    filled ??= values(seen)
    return { ...event, text: event.text.replace(field, (_, name: string) => filled![name]!) }
  })
}

/**
 * One round trip's events, collected into what the session acts on: for an app-driven provider the text,
 * the calls to run and the usage; for a provider-driven one also the history the lifecycle events stand
 * for. Plain, total functions: the session runs the stream through `EventContract.check` first, and these
 * never throw on a stream that broke the contract anyway.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonValue as J } from "@toolgate/json-schema"
import type * as Message from "../Message.js"
import * as StreamEvent from "../StreamEvent.js"
import * as ToolEnvelope from "../ToolEnvelope.js"

/** An app-driven round's events, collected: text deltas joined, ToolCallComplete calls in order, usage summed. */
export interface AppRound {
  readonly text: string
  readonly calls: ReadonlyArray<Message.ToolCall>
  readonly inputTokens: number
  readonly outputTokens: number
}

/** A provider-driven round's events → the history they stand for: one Assistant and a ToolResult per terminal. */
export interface ProviderRound extends AppRound {
  readonly messages: ReadonlyArray<Message.Message>
}

/** A token count as a number to add: anything but a finite number counts 0. */
const tokens = (n: unknown): number => typeof n === "number" && Number.isFinite(n) ? n : 0

/** The call an event names, with `arguments` exactly as sent (absent stays absent). */
const callOf = (event: StreamEvent.ToolCallComplete | StreamEvent.ToolCallStarted): Message.ToolCall =>
  event.arguments === undefined
    ? { id: event.id, name: event.name }
    : { id: event.id, name: event.name, arguments: event.arguments }

/** Text, usage and the calls the `take` tag stands for, collected from one round's events. */
const collect = (
  events: Iterable<StreamEvent.StreamEvent>,
  take: "ToolCallComplete" | "ToolCallStarted",
  onTerminal: (event: StreamEvent.Terminal) => void
): AppRound => {
  const text: Array<string> = []
  const calls: Array<Message.ToolCall> = []
  let inputTokens = 0
  let outputTokens = 0
  for (const event of events) {
    switch (event?._tag) {
      case "TextDelta":
        text.push(event.text)
        break
      case "Usage":
        inputTokens += tokens(event.inputTokens)
        outputTokens += tokens(event.outputTokens)
        break
      case "ToolCallComplete":
      case "ToolCallStarted":
        if (event._tag === take) calls.push(callOf(event))
        break
      default:
        // a terminal answers a call; ToolCallPartial (the session acts on complete calls only) and Done say nothing here
        if (event != null && StreamEvent.isTerminal(event)) onTerminal(event)
    }
  }
  return { text: text.join(""), calls, inputTokens, outputTokens }
}

/**
 * An app-driven round's events, collected: text deltas joined, `ToolCallComplete` calls in order (arguments
 * exactly as the model sent them), usage summed. Partial calls and provider-driven events are ignored
 * (`EventContract.check("appDriven")` rejects the latter before the session collects).
 */
export const collectApp = (events: Iterable<StreamEvent.StreamEvent>): AppRound =>
  collect(events, "ToolCallComplete", () => undefined)

/**
 * A provider-driven round's events → the history they stand for: one Assistant (the text and the started
 * calls, in start order) and a ToolResult per terminal, in terminal order, each answered with
 * `terminalEnvelope`. A stream that broke the contract (which `EventContract.check("providerDriven")`
 * rejects first) still gives a value: the first start of a repeated id names the call, only the first
 * terminal of an id answers it, and a terminal for an id that never started is left out, so history never
 * holds a result for a call the assistant did not make. `ToolCallComplete` events are ignored.
 */
export const collectProvider = (events: Iterable<StreamEvent.StreamEvent>): ProviderRound => {
  const terminals: Array<StreamEvent.Terminal> = []
  const round = collect(events, "ToolCallStarted", (event) => terminals.push(event))
  const names = new Map<string, string>()
  const calls: Array<Message.ToolCall> = []
  for (const call of round.calls) {
    if (names.has(call.id)) continue
    names.set(call.id, call.name)
    calls.push(call)
  }
  const answered = new Set<string>()
  const results: Array<Message.ToolResult> = []
  for (const terminal of terminals) {
    const name = names.get(terminal.id)
    if (name === undefined || answered.has(terminal.id)) continue
    answered.add(terminal.id)
    results.push({ _tag: "ToolResult", callId: terminal.id, name, envelope: terminalEnvelope(terminal, name) })
  }
  const assistant: Message.Assistant = { _tag: "Assistant", text: round.text, toolCalls: calls }
  return { ...round, calls, messages: [assistant, ...results] }
}

/**
 * The round's calls with ids unique in the turn: a call whose id is empty or was already used in this turn (a
 * model that numbers every round's calls from `call_0`) is renamed `<id>~<round>` (`call~<round>` for an empty
 * one), with more `~` until the name is free, so no two calls of a turn, and no two idempotency keys, share an
 * id. `used` holds the turn's ids so far and gets the round's.
 */
export const distinctIds = (calls: ReadonlyArray<Message.ToolCall>, used: Set<string>, round: number): ReadonlyArray<Message.ToolCall> =>
  calls.map((call) => {
    if (call.id !== "" && !used.has(call.id)) {
      used.add(call.id)
      return call
    }
    let id = `${call.id === "" ? "call" : call.id}~${round}`
    while (used.has(id)) id += "~"
    used.add(id)
    return { ...call, id }
  })

/** Whether `u` is a plain object with an own boolean `ok`: the only results tried as a ready-made envelope. */
const looksLikeEnvelope = (u: J.JsonValue): boolean =>
  typeof u === "object" && u !== null && !Array.isArray(u) &&
  Object.prototype.hasOwnProperty.call(u, "ok") && typeof (u as { readonly ok: unknown }).ok === "boolean"

/**
 * A completed call's result as an envelope: an envelope passes through (named `tool` when it names none); a
 * result the detectors read as a failure (an `ok: false` object missing `retryable`, say) becomes that
 * failure, so history never calls "success" what `ToolEnvelope.isError` calls a failure.
 */
const completed = (result: J.JsonValue, tool: string): ToolEnvelope.Envelope => {
  if (looksLikeEnvelope(result)) {
    const decoded = ToolEnvelope.decode(result)
    if (Either.isRight(decoded)) return decoded.right.tool === undefined ? { ...decoded.right, tool } : decoded.right
    const detected = ToolEnvelope.classify(result)
    if (detected._tag === "Failure") return ToolEnvelope.failure(detected.kind, detected.message, { tool, retryable: detected.retryable })
  }
  return ToolEnvelope.success(result, { tool })
}

/** `prefix: detail`, or the prefix alone when there is no detail. */
const said = (prefix: string, detail: unknown): string =>
  typeof detail === "string" && detail.length > 0 ? `${prefix}: ${detail}` : `${prefix}.`

/**
 * The envelope a terminal stands for: Completed → success of `result` (an envelope passes through),
 * Denied → `user_denied`, Failed → `execution_error`, Cancelled → `unavailable`, Conflict → `rejected`,
 * each with the kind's default `retryable` and the provider's reason in the message.
 */
export const terminalEnvelope = (terminal: StreamEvent.Terminal, tool: string): ToolEnvelope.Envelope => {
  switch (terminal._tag) {
    case "ToolCallCompleted":
      return completed(terminal.result, tool)
    case "ToolCallDenied":
      return ToolEnvelope.failure("user_denied", said("The call was denied", terminal.reason), { tool })
    case "ToolCallFailed":
      return ToolEnvelope.failure("execution_error", said("The tool failed", terminal.message), { tool })
    case "ToolCallCancelled":
      return ToolEnvelope.failure("unavailable", "The call was cancelled before it finished.", { tool })
    case "ToolCallConflict":
      return ToolEnvelope.failure("rejected", said("The call conflicted with another and did not apply", terminal.reason), { tool })
  }
}

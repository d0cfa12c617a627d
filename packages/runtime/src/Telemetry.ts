/**
 * toolgate's spans and their attributes, in one naming scheme: the OpenTelemetry GenAI semantic conventions
 * (semantic-conventions v1.41.0, `gen-ai-spans.md` and `gen-ai-agent-spans.md`, status Development) where
 * they apply, `url.full` for HTTP, and `toolgate.*` for what only toolgate knows:
 *
 * | span | kind | attributes |
 * |---|---|---|
 * | `invoke_agent` (`AgentSession.send`, `.generate`) | internal | `gen_ai.operation.name` `invoke_agent`, `gen_ai.provider.name`, `gen_ai.conversation.id`; at the end `gen_ai.usage.input_tokens` / `output_tokens` (summed over the turn's round trips, absent when none reported any), `toolgate.turn` |
 * | `chat {model}` (one round trip) | client | `gen_ai.operation.name` `chat`, `gen_ai.provider.name`, `gen_ai.request.model` (when known), `gen_ai.request.temperature` / `top_p` / `max_tokens` (from the request's sampling); at the end `gen_ai.response.finish_reasons`, `gen_ai.usage.*` (absent when the round reported none) |
 * | `execute_tool {tool}` (every call of a turn, `Tool.run`) | internal | `gen_ai.operation.name` `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` `function`; a session's add `toolgate.tool.outcome`, `toolgate.tool.issue_count`, `toolgate.tool.result` |
 * | a provider's `….stream` | internal | `gen_ai.provider.name`, `gen_ai.request.model`, `url.full` (the transport under the `chat` span) |
 * | `ArgumentValidator.prepare`, `ToolChain.resolve` | internal | `gen_ai.tool.name`, `gen_ai.tool.call.id`, plus `toolgate.argument_policy` / `toolgate.tool_chain.refs` |
 * | `RelayProfileClient.fetch` (`@toolgate/providers`), `DriftGate.check`, `AgentSession.compensate`, `AgentSession.undoLastTurn` | internal | `url.full`; `toolgate.drift_gate.tools`, `toolgate.relay_profile.version`; `toolgate.turn`, `toolgate.tool.executed` |
 * | `ValidatingToolkit.handle` (`@toolgate/ai`) | internal | `gen_ai.operation.name` `execute_tool`, `gen_ai.tool.name` |
 * | `SessionStore.{operation}` (every operation of a store, in memory or SQL: `SessionStore.traced`) | internal | `toolgate.session.id` (none for `list`) |
 *
 * Every span of toolgate's packages is made here, with `span` or `streamSpan` (a plain `Effect.withSpan` /
 * `Stream.withSpan`) or a helper built on them, so every span gets the same attribute sanitizing and
 * `error.type`; public methods use `Effect.fnUntraced` with `span` as its last step rather than `Effect.fn`.
 * Every span made with `span` or `streamSpan` carries `error.type` when its effect fails: the error's `_tag` (a defect: the
 * thrown `Error`'s name, else `_OTHER`). Strings are cut to `maxValueLength` characters, numbers that are not
 * finite are left out, so no input makes a span fail.
 *
 * @since 0.1.0
 */
import { Text } from "@toolgate/json-schema"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as Provider from "./Provider.js"
import type * as StreamEvent from "./StreamEvent.js"

/** A span attribute's value as toolgate sets it. */
export type Value = string | number | boolean | ReadonlyArray<string>

/** Span attributes. */
export type Attributes = Readonly<Record<string, Value>>

/** The longest string value (and span name) kept; longer ones are cut, ending in `…`. */
export const maxValueLength = 1024

/** `u` as an attribute string: cut to `max` characters (never inside a surrogate pair); anything but a string is left out. */
const text = (u: unknown, max = maxValueLength): string | undefined => typeof u === "string" ? Text.clip(u, max) : undefined

/** `u` when it is a finite number; anything else is left out. */
const finite = (u: unknown): number | undefined => typeof u === "number" && Number.isFinite(u) ? u : undefined

/** A token count: a finite number at least 0; anything else is left out. */
const count = (u: unknown): number | undefined => {
  const n = finite(u)
  return n !== undefined && n >= 0 ? n : undefined
}

/** Sets `key` (one of toolgate's own attribute names) to `value` when the value is there. */
const put = <V extends Value>(out: Record<string, V>, key: string, value: V | undefined): void => {
  if (value !== undefined) out[key] = value
}

/** Attributes with every value sanitized: strings cut, non-finite numbers and other kinds left out. */
const sanitize = (attributes: Readonly<Record<string, unknown>> | undefined): Attributes => {
  const out: Record<string, Value> = {}
  if (attributes == null) return out
  for (const key of Object.keys(attributes)) {
    const value = attributes[key]
    const kept = typeof value === "boolean"
      ? value
      : typeof value === "number"
      ? finite(value)
      : Array.isArray(value)
      ? value.flatMap((v) => text(v) ?? []).slice(0, 64)
      : text(value)
    if (kept === undefined) continue
    const name = text(key, 256) ?? ""
    // `__proto__` is an own key like any other, never the attributes' prototype
    if (name === "__proto__") Object.defineProperty(out, name, { value: kept, enumerable: true, writable: true, configurable: true })
    else out[name] = kept
  }
  return out
}

/** One call of a tool: operation `execute_tool`, the tool's name, the call id and the tool type `function`. */
export const toolCall = (name: string, callId: string): Readonly<Record<string, string>> => {
  const out: Record<string, string> = { "gen_ai.operation.name": "execute_tool" }
  put(out, "gen_ai.tool.name", text(name))
  put(out, "gen_ai.tool.call.id", text(callId))
  out["gen_ai.tool.type"] = "function"
  return out
}

/** Adds what the request asks of the model to `out`: the sampling's temperature, top_p and max tokens, each when set. */
const requested = (out: Record<string, Value>, sampling: Provider.Sampling | undefined): Record<string, Value> => {
  put(out, "gen_ai.request.temperature", finite(sampling?.temperature))
  put(out, "gen_ai.request.top_p", finite(sampling?.topP))
  put(out, "gen_ai.request.max_tokens", finite(sampling?.maxTokens))
  return out
}

/**
 * One round trip to a model: operation `chat`, the provider, and the model, URL and sampling when known.
 */
export const chat = (
  provider: string,
  options: { readonly model?: string | undefined; readonly url?: string | undefined; readonly sampling?: Provider.Sampling | undefined } = {}
): Attributes => requested(endpointOf({ "gen_ai.operation.name": "chat" }, provider, options), options.sampling)

/** Adds where a provider's transport sends a round trip to `out`: the provider, the model and the URL when known. */
const endpointOf = (
  out: Record<string, Value>,
  provider: string,
  options: { readonly model?: string | undefined; readonly url?: string | undefined }
): Record<string, Value> => {
  put(out, "gen_ai.provider.name", text(provider))
  put(out, "gen_ai.request.model", text(options.model))
  put(out, "url.full", text(options.url))
  return out
}

/** Where a provider's transport sends a round trip: the provider, the model and the URL when known (no operation). */
export const endpoint = (provider: string, options: { readonly model?: string | undefined; readonly url?: string | undefined } = {}): Attributes =>
  endpointOf({}, provider, options)

/** One turn of a session: operation `invoke_agent`, the agent's name when it has one, the provider and the session id (the conversation). */
export const invokeAgent = (provider: string, sessionId: string, name?: string): Readonly<Record<string, string>> => {
  const out: Record<string, string> = { "gen_ai.operation.name": "invoke_agent" }
  put(out, "gen_ai.agent.name", text(name))
  put(out, "gen_ai.provider.name", text(provider))
  put(out, "gen_ai.conversation.id", text(sessionId))
  return out
}

/** Adds the token counts to `out`, each only when reported (an unreported count is left out, not 0). */
const tokensOf = (out: Record<string, Value>, inputTokens: number | undefined, outputTokens: number | undefined): Record<string, Value> => {
  put(out, "gen_ai.usage.input_tokens", count(inputTokens))
  put(out, "gen_ai.usage.output_tokens", count(outputTokens))
  return out
}

/** Token counts, each only when reported (an unreported count is left out, not 0). */
export const tokens = (inputTokens: number | undefined, outputTokens: number | undefined): Attributes => tokensOf({}, inputTokens, outputTokens)

/** What a finished turn cost: its tokens (when reported) and its number. */
export const usage = (turn: number, inputTokens: number | undefined, outputTokens: number | undefined): Attributes => {
  const out: Record<string, Value> = {}
  put(out, "toolgate.turn", finite(turn))
  return tokensOf(out, inputTokens, outputTokens)
}

/** The tokens a round reported: the sum of its `Usage` events, or none when it had none. */
const reported = (events: ReadonlyArray<StreamEvent.StreamEvent>): { input: number; output: number } | undefined => {
  let sum: { input: number; output: number } | undefined
  for (const event of events) {
    if (event?._tag !== "Usage") continue
    sum ??= { input: 0, output: 0 }
    sum.input += count(event.inputTokens) ?? 0
    sum.output += count(event.outputTokens) ?? 0
  }
  return sum
}

/**
 * How a round ended, read from its events: `gen_ai.response.finish_reasons` (`tool_calls` when the model
 * asked for tools to run, else `stop`; the event stream carries no finish reason of its own) and the
 * tokens the round reported (left out when it reported none).
 */
export const roundOutcome = (events: ReadonlyArray<StreamEvent.StreamEvent>): Attributes => {
  const used = reported(events)
  const out: Record<string, Value> = { "gen_ai.response.finish_reasons": [events.some((e) => e?._tag === "ToolCallComplete") ? "tool_calls" : "stop"] }
  return used === undefined ? out : tokensOf(out, used.input, used.output)
}

/** `error.type` for a failed effect: the error's `_tag`, a thrown `Error`'s name, else `_OTHER`; none for an interruption. */
export const errorType = (cause: Cause.Cause<unknown>): string | undefined => {
  if (Cause.isInterruptedOnly(cause)) return undefined
  const failure = Cause.failureOption(cause)
  const error: unknown = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
  const tag = typeof error === "object" && error !== null && "_tag" in error ? text(error._tag, 128) : undefined
  return tag ?? (error instanceof Error ? text(error.name, 128) : undefined) ?? "_OTHER"
}

/** Sets `error.type` on the current span for a failure's cause. */
const annotateError = (cause: Cause.Cause<unknown>): Effect.Effect<void> => {
  const type = errorType(cause)
  return type === undefined ? Effect.void : Effect.annotateCurrentSpan("error.type", type)
}

/** Annotates the current span with `error.type` when `self` fails. */
const withErrorType = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.tapErrorCause(self, annotateError)

/** How `span` and `streamSpan` make a span: the name cut (`span` when empty), the attributes sanitized. */
const spanOptions = (name: string, attributes: Readonly<Record<string, unknown>> | undefined, kind: Tracer.SpanKind) =>
  [text(name) || "span", { captureStackTrace: false, attributes: sanitize(attributes), kind }] as const

/**
 * `self` in a span named `name` (cut to `maxValueLength`; `span` when empty) with `attributes` (sanitized) and `kind`
 * (default internal), `error.type` set when it fails. No stack trace is captured.
 */
export const span = (name: string, attributes?: Readonly<Record<string, unknown>>, kind: Tracer.SpanKind = "internal") => {
  const [spanName, options] = spanOptions(name, attributes, kind)
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.withSpan(withErrorType(self), spanName, options)
}

/** `span` for a stream: the span lasts while the stream runs, with `error.type` set when it fails. */
export const streamSpan = (name: string, attributes?: Readonly<Record<string, unknown>>, kind: Tracer.SpanKind = "internal") => {
  const [spanName, options] = spanOptions(name, attributes, kind)
  return <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
    Stream.withSpan(Stream.tapErrorCause(self, annotateError), spanName, options)
}

/** The span name `{operation} {name}`, or the operation alone when there is no name. */
const named = (operation: string, name: unknown): string => {
  const s = text(name, 256)
  return s === undefined || s === "" ? operation : `${operation} ${s}`
}

/** `self` in an `execute_tool {tool}` span (internal) with `toolCall` attributes and `extra` ones. */
export const executeTool = (name: string, callId: string, extra?: Readonly<Record<string, unknown>>) =>
  span(named("execute_tool", name), { ...toolCall(name, callId), ...extra })

/** The nearest span above `span` whose operation is `invoke_agent`: the turn a round trip's tokens count toward. */
const enclosingAgent = (span: Tracer.Span): Tracer.Span | undefined => {
  let parent = span.parent
  while (Option.isSome(parent)) {
    const above = parent.value
    if (above._tag !== "Span") return undefined
    if (above.attributes.get("gen_ai.operation.name") === "invoke_agent") return above
    parent = above.parent
  }
  return undefined
}

/** Adds `n` to the count `key` of `span`. */
const addTo = (span: Tracer.Span, key: string, n: number): void => {
  const before = span.attributes.get(key)
  span.attribute(key, (typeof before === "number" ? before : 0) + n)
}

/**
 * One round trip in a `chat {model}` span (client): `chat` attributes with the request's sampling, and at
 * the end `roundOutcome` of the events it read. The tokens also count toward the enclosing `invoke_agent`
 * span: added to its counts as the round trip ends.
 */
export const chatSpan = (capabilities: Provider.ProviderCapabilities, request: Provider.CompletionRequest) =>
<E, R>(self: Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, E, R>): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, E, R> =>
  Effect.tap(self, (events) =>
    Effect.map(Effect.serviceOption(Tracer.ParentSpan), (current) => {
      if (Option.isNone(current) || current.value._tag !== "Span") return
      const round = current.value
      const outcome = roundOutcome(events)
      for (const key of Object.keys(outcome)) round.attribute(key, outcome[key])
      const used = reported(events)
      const agent = used === undefined ? undefined : enclosingAgent(round)
      if (used === undefined || agent === undefined) return
      addTo(agent, "gen_ai.usage.input_tokens", used.input)
      addTo(agent, "gen_ai.usage.output_tokens", used.output)
    })).pipe(span(
      named("chat", request.model ?? capabilities.model),
      chat(capabilities.name, { model: request.model ?? capabilities.model, sampling: request.sampling }),
      "client"
    ))

/**
 * A session's turn in an `invoke_agent` span (internal) with `attributes` (`invokeAgent`'s; the operation is
 * always `invoke_agent`): the tokens its `chatSpan`s report are added to it as each ends (left out when none
 * reported any).
 */
export const invokeAgentSpan = (attributes: Readonly<Record<string, unknown>>) =>
  span(named("invoke_agent", attributes["gen_ai.agent.name"]), { ...attributes, "gen_ai.operation.name": "invoke_agent" })

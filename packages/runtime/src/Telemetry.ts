/**
 * The span attributes toolgate sets, in one naming scheme: the OpenTelemetry GenAI semantic conventions
 * where they apply (as `@effect/ai` uses them), `url.full` for HTTP, and `toolgate.*` for what only toolgate
 * knows. Spans sit at the boundaries a user traces:
 *
 * | span | attributes |
 * |---|---|
 * | `AgentSession.send`, `AgentSession.generate` | `invokeAgent`: operation `invoke_agent`, `gen_ai.provider.name`, `gen_ai.conversation.id`; at the end `usage`: `gen_ai.usage.input_tokens` / `output_tokens`, `toolgate.turn` |
 * | a provider's `….stream` (one round trip) | `chat`: operation `chat`, `gen_ai.provider.name`, `gen_ai.request.model` (when known), `url.full` (HTTP) |
 * | `AgentSession.toolCall`, `Tool.run` | `toolCall`: operation `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`; the session's adds `toolgate.tool.outcome`, `toolgate.tool.issue_count`, `toolgate.tool.result` |
 * | `ArgumentValidator.prepare`, `ToolChain.resolve` | `gen_ai.tool.name`, `gen_ai.tool.call.id`, plus `toolgate.argument_policy` / `toolgate.tool_chain.refs` |
 * | `DriftGate.check`, `Capabilities.fetch`, `AgentSession.compensate` | `toolgate.drift_gate.tools`, `toolgate.capabilities.version`; `url.full`; `toolgate.turn`, `toolgate.tool.executed` |
 *
 * Spans are made with `span`: only when the app installed a tracer (with Effect's built-in one nobody reads
 * them, and each costs more than a short tool call), and without a captured stack trace.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/** One call of a tool: operation `execute_tool`, the tool's name and the call id. */
export const toolCall = (name: string, callId: string): Record<string, string> => ({
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name,
  "gen_ai.tool.call.id": callId
})

/** One round trip to a model: operation `chat`, the provider, and the model and URL when the provider knows them. */
export const chat = (provider: string, options: { readonly model?: string | undefined; readonly url?: string | undefined } = {}): Record<string, string> => ({
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": provider,
  ...(options.model === undefined ? {} : { "gen_ai.request.model": options.model }),
  ...(options.url === undefined ? {} : { "url.full": options.url })
})

/** One turn of a session: operation `invoke_agent`, the provider and the session id (the conversation). */
export const invokeAgent = (provider: string, sessionId: string): Record<string, string> => ({
  "gen_ai.operation.name": "invoke_agent",
  "gen_ai.provider.name": provider,
  "gen_ai.conversation.id": sessionId
})

/** What a finished turn cost: its tokens (when the provider reported them) and its number. */
export const usage = (turn: number, inputTokens: number | undefined, outputTokens: number | undefined): Record<string, number> => ({
  "toolgate.turn": turn,
  ...(inputTokens === undefined ? {} : { "gen_ai.usage.input_tokens": inputTokens }),
  ...(outputTokens === undefined ? {} : { "gen_ai.usage.output_tokens": outputTokens })
})

/** The tracer a fiber has unless the app installs one: the spans it makes are kept by nobody. */
const builtIn = Effect.runSync(Effect.tracer)

/**
 * `self` in a span named `name` with `attributes`, when the app installed a tracer (`@effect/opentelemetry`,
 * say); with Effect's built-in tracer, `self` as it is. No stack trace is captured.
 */
export const span = (name: string, attributes?: Record<string, unknown>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) => tracer === builtIn ? self : Effect.withSpan(self, name, { captureStackTrace: false, attributes }))

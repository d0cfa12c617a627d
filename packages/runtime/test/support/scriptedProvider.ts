/**
 * A provider for session tests: each request gets the next round of a list (events, a `ProviderError`, or
 * a stream built from the request), and every request is recorded. Runtime tests cannot use
 * `@toolgate/providers` (arrows point down), so this is the tiny in-test double; `session` makes a
 * local-mode session over it.
 */
import { Chunk, Effect, Stream } from "effect"
import * as AgentSession from "../../src/AgentSession.js"
import * as ArgumentValidator from "../../src/ArgumentValidator.js"
import type * as Compensation from "../../src/Compensation.js"
import { ProviderError } from "../../src/Errors.js"
import * as Provider from "../../src/Provider.js"
import type * as RunLimits from "../../src/RunLimits.js"
import type * as StreamEvent from "../../src/StreamEvent.js"
import type * as Toolkit from "../../src/Toolkit.js"

/** One round trip's answer. */
export type Round =
  | ReadonlyArray<StreamEvent.StreamEvent>
  | { readonly fail: { readonly reason: string; readonly retryable: boolean } }
  | ((request: Provider.CompletionRequest) => Stream.Stream<StreamEvent.StreamEvent, ProviderError>)

/** The scripted provider and what it saw. */
export interface Scripted extends Provider.AgentProvider {
  /** Every request received, in order. */
  readonly requests: Array<Provider.CompletionRequest>
  /** Calls of `validateTools`, in order. */
  readonly validated: Array<ReadonlyArray<Provider.ToolDefinition>>
}

/** App-driven, tool calling, parallel calls, tool choice, structured output, dialect `none`, no limits. */
export const defaults: Provider.ProviderCapabilities = Provider.capabilities({
  name: "scripted",
  supportsParallelToolCalls: true,
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  requiresNetworking: false
})

/** A provider answering request n with `rounds[n]` (none left → a `ProviderError`). */
export const make = (
  rounds: ReadonlyArray<Round>,
  capabilities: Provider.CapabilityOverrides = {},
  validateTools?: Provider.AgentProvider["validateTools"],
  /** Rounds are answered whole (`AgentProvider.complete`) instead of streamed. */
  whole = false
): Scripted => {
  const requests: Array<Provider.CompletionRequest> = []
  const validated: Array<ReadonlyArray<Provider.ToolDefinition>> = []
  const caps = { ...defaults, ...capabilities }
  const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, ProviderError> =>
    Stream.suspend(() => {
      const round = rounds[requests.length]
      requests.push(request)
      if (round === undefined) {
        return Stream.fail(new ProviderError({ provider: caps.name, reason: `no round ${requests.length}`, retryable: false }))
      }
      if (typeof round === "function") return round(request)
      if ("fail" in round) return Stream.fail(new ProviderError({ provider: caps.name, ...round.fail }))
      return Stream.fromIterable(round as ReadonlyArray<StreamEvent.StreamEvent>)
    })
  const complete = (request: Provider.CompletionRequest) => Effect.map(Stream.runCollect(stream(request)), Chunk.toReadonlyArray)
  return {
    capabilities: caps,
    stream,
    ...(whole ? { complete } : {}),
    validateTools: (tools) =>
      Effect.suspend(() => {
        validated.push(tools)
        return validateTools === undefined ? Effect.succeed([]) : validateTools(tools)
      }),
    requests,
    validated
  }
}

/** A text delta. */
export const text = (t: string): StreamEvent.StreamEvent => ({ _tag: "TextDelta", text: t })
/** An app-driven call (`args` passed through as given, hostile values included; absent when undefined). */
export const call = (id: string, name: string, args?: unknown): StreamEvent.StreamEvent =>
  args === undefined ? { _tag: "ToolCallComplete", id, name } : { _tag: "ToolCallComplete", id, name, arguments: args as never }
/** The round's last event. */
export const done: StreamEvent.StreamEvent = { _tag: "Done" }
/** Token accounting. */
export const usage = (inputTokens: number, outputTokens: number): StreamEvent.StreamEvent => ({ _tag: "Usage", inputTokens, outputTokens })
/** A final round: text, then done. */
export const answer = (t: string): ReadonlyArray<StreamEvent.StreamEvent> => [text(t), done]

/** Options of `session`. */
export interface SessionOptions {
  /** The session's id (default: a random UUID). */
  readonly id?: string
  readonly limits?: RunLimits.Input
  readonly chaining?: boolean
  readonly chainScope?: "turn" | "session"
  readonly preTransmit?: AgentSession.Options<never>["preTransmit"]
}

/** A local-mode session over `provider` and `toolkit`, with the default (lenient) validator. */
export const session = (
  provider: Provider.AgentProvider,
  toolkit: Toolkit.Toolkit<never>,
  options: SessionOptions = {}
): Effect.Effect<AgentSession.AgentSession, AgentSession.MakeError> =>
  AgentSession.make({
    provider,
    toolkit,
    mode: "local",
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.chainScope === undefined ? {} : { chainScope: options.chainScope }),
    ...(options.preTransmit === undefined ? {} : { preTransmit: options.preTransmit })
  }).pipe(Effect.provide(ArgumentValidator.layerWith({ toolChaining: options.chaining === true })))

/** An idempotency key without its random per-turn part (`<session>:<turn>-<random>:<call>` → `<session>:<turn>:<call>`), for comparing. */
export const keyShape = (key: string): string => key.replace(/:(\d+)-[0-9a-f]{16}:/, ":$1:")

/** The compensation report a send's error carries (`undefined`: none of the turn's tools had run, or an error from before the turn). */
export const compensationOf = (error: AgentSession.SendError | { readonly _tag: string }): Compensation.Report | undefined =>
  "compensation" in error ? error.compensation as Compensation.Report | undefined : undefined

/**
 * A provider that answers from a `Script`: each request gets the round its messages point at
 * (`Script.select`), emitted exactly as written, so tests and the demo can drive a session through any
 * sequence of rounds, including ones that break the event contract on purpose. Every request is kept,
 * so a test can check what the session sent.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Errors, Telemetry } from "@toolgate/runtime"
import type { Provider, StreamEvent } from "@toolgate/runtime"
import * as Script from "./Script.js"

/**
 * What a scripted model can do: everything a session can exercise, with no limits. `appDriven` (a script
 * holding provider-driven events can still be played: pass `{ executionModel: "providerDriven" }`),
 * tool calling, parallel calls, tool choice and structured output (the script's text is the answer),
 * dialect `none` (definitions arrive as declared), no networking.
 */
export const defaults: Provider.ProviderCapabilities = {
  name: "scripted",
  executionModel: "appDriven",
  supportsToolCalling: true,
  supportsParallelToolCalls: true,
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  schemaDialect: "none",
  maxTools: undefined,
  contextWindow: undefined,
  // Position is counted over the whole history; a managed conversation would send only part of it.
  managedConversation: false,
  requiresNetworking: false
}

/** A scripted provider that remembers what it was asked. */
export interface Scripted extends Provider.AgentProvider {
  /** Every request received, in order (what the session sent). */
  readonly requests: Effect.Effect<ReadonlyArray<Provider.CompletionRequest>>
}

/** A provider playing `script`, with `defaults` overridden by `capabilities`. */
export const make = (
  script: Script.Script,
  capabilities?: Partial<Provider.ProviderCapabilities>
): Effect.Effect<Scripted> =>
  Effect.sync(() => {
    const declared: Provider.ProviderCapabilities = { ...defaults, ...capabilities }
    const received: Array<Provider.CompletionRequest> = []
    const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> =>
      Stream.suspend(() => {
        received.push(request)
        return play(declared.name, script, request.messages)
      }).pipe(Stream.withSpan("Scripted.stream", { captureStackTrace: false, attributes: Telemetry.chat(declared.name) }))
    return {
      capabilities: declared,
      stream,
      validateTools: () => Effect.succeed([]),
      requests: Effect.sync(() => received.slice())
    }
  })

/** A script built in code is typed, not checked: a round that is not one fails typed instead of reaching the session. */
const isRound = Schema.is(Script.Round)

/** The round for `messages` as a stream: its events, or the `ProviderError` it stands for. */
const play = (
  provider: string,
  script: Script.Script,
  messages: Provider.CompletionRequest["messages"]
): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> => {
  const round = Script.select(script, messages)
  if (round === undefined || !isRound(round)) {
    const { round: r, turn: t } = Script.position(messages)
    const what = round === undefined ? "has no" : "holds something that is not a"
    return Stream.fail(
      new Errors.ProviderError({
        provider,
        reason: `the script ${what} round ${r + 1} of turn ${t + 1} (turns[${t}][${r}])`,
        retryable: false
      })
    )
  }
  if (Script.isFailure(round)) {
    return Stream.fail(new Errors.ProviderError({ provider, reason: round.fail.reason, retryable: round.fail.retryable }))
  }
  return Stream.fromIterable(round)
}

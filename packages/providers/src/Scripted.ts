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
import { Errors, Provider } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import * as Script from "./Script.js"

/**
 * What a scripted model can do: everything a session can exercise, with no limits. `appDriven` (a script
 * holding provider-driven events can still be played: pass `{ executionModel: "providerDriven" }`),
 * tool calling, parallel calls, tool choice and structured output (the script's text is the answer),
 * vision and a per-request model (both recorded in the requests, neither changes the script), dialect
 * `none` (definitions arrive as declared), no networking.
 */
export const defaults: Provider.ProviderCapabilities = Provider.capabilities({
  name: "scripted",
  supportsParallelToolCalls: true,
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  // Position is counted over the whole history (not a managed conversation, the default).
  requiresNetworking: false,
  supportsVision: true,
  modelSelection: "perRequest"
})

/** A scripted provider that remembers what it was asked. */
export interface Scripted extends Provider.AgentProvider {
  /** Every request received, in order (what the session sent). */
  readonly requests: Effect.Effect<ReadonlyArray<Provider.CompletionRequest>>
  /** Each round answered whole. */
  readonly complete: NonNullable<Provider.AgentProvider["complete"]>
}

/** A provider playing `script`, with `defaults` overridden by `capabilities`. */
export const make = (
  script: Script.Script,
  capabilities?: Provider.CapabilityOverrides
): Effect.Effect<Scripted> =>
  Effect.sync(() => {
    const declared: Provider.ProviderCapabilities = { ...defaults, ...capabilities }
    const received: Array<Provider.CompletionRequest> = []
    // A scripted round is known whole: the session reads it with `complete`, without running a stream.
    const complete = (request: Provider.CompletionRequest): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, Errors.ProviderError> =>
      Effect.suspend(() => {
        received.push(request)
        return play(declared.name, script, request.messages)
      })
    return {
      capabilities: declared,
      stream: (request) => Stream.fromIterableEffect(complete(request)),
      complete,
      validateTools: () => Effect.succeed([]),
      requests: Effect.sync(() => received.slice())
    }
  })

/** A script built in code is typed, not checked: a round that is not one fails typed instead of reaching the session. */
const isRound = Schema.is(Script.Round)

/** Rounds found well-formed: each is checked the first time it is played, not on every request. */
const wellFormed = new WeakSet<object>()
const isWellFormed = (round: unknown): round is Script.Round =>
  (typeof round === "object" && round !== null && wellFormed.has(round)) || (isRound(round) && (wellFormed.add(round), true))

/** The round for `messages`: its events, or the `ProviderError` it stands for. */
const play = (
  provider: string,
  script: Script.Script,
  messages: Provider.CompletionRequest["messages"]
): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, Errors.ProviderError> => {
  const round = Script.select(script, messages)
  if (round === undefined || !isWellFormed(round)) {
    const { round: r, turn: t } = Script.position(messages)
    const what = round === undefined ? "has no" : "holds something that is not a"
    return Effect.fail(
      new Errors.ProviderError({
        provider,
        reason: `the script ${what} round ${r + 1} of turn ${t + 1} (turns[${t}][${r}])`,
        retryable: false
      })
    )
  }
  if (Script.isFailure(round)) {
    return Effect.fail(new Errors.ProviderError({ provider, reason: round.fail.reason, retryable: round.fail.retryable }))
  }
  return Effect.succeed(round)
}

/**
 * One round trip's events as the session reads them: a streamed round through the contract stage, at most
 * `maxEventsPerRound` events, collected; a round the provider answers whole (`AgentProvider.complete`) by
 * running that effect, held to the same contract and limit.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { ProviderError, type ProviderEventContractViolation } from "../Errors.js"
import * as EventContract from "../EventContract.js"
import type * as Provider from "../Provider.js"
import type * as SessionEvent from "../SessionEvent.js"
import type * as StreamEvent from "../StreamEvent.js"
import { type Env, listened, publish } from "./sessionState.js"

/** The round being read, and whether it published text (then its text is the answer or a `RoundDiscarded` follows). */
export interface Mark {
  readonly turn: number
  readonly round: number
  texted: boolean
}

/**
 * What the session publishes of a round's events as they pass: its text (consecutive deltas of one chunk
 * joined, empty ones left out) and the calls a provider-driven provider starts.
 */
const announced = (mark: Mark, events: Iterable<StreamEvent.StreamEvent>): Array<SessionEvent.SessionEvent> => {
  const out: Array<SessionEvent.SessionEvent> = []
  let text = ""
  for (const event of events) {
    if (event._tag === "TextDelta") text += event.text
    else if (event._tag === "ToolCallStarted") {
      if (text !== "") out.push({ _tag: "TextDelta", turn: mark.turn, round: mark.round, text })
      text = ""
      out.push({ _tag: "ToolCallStarted", turn: mark.turn, round: mark.round, callId: event.id, tool: event.name })
    }
  }
  if (text !== "") out.push({ _tag: "TextDelta", turn: mark.turn, round: mark.round, text })
  return out
}

/** Publishes what `events` announce (see `announced`), marking the round as texted when they carry text. */
const announce = (env: Env, mark: Mark, events: Iterable<StreamEvent.StreamEvent>): Effect.Effect<void> => {
  const out = announced(mark, events)
  if (out.length === 0) return Effect.void
  if (out.some((e) => e._tag === "TextDelta")) mark.texted = true
  return out.length === 1 ? publish(env, out[0]!) : Effect.forEach(out, (e) => publish(env, e), { discard: true })
}

/** The round trip read more than the session's `maxEventsPerRound`. */
const tooManyEvents = (env: Env) =>
  new ProviderError({
    provider: env.provider.capabilities.name,
    reason: `the round trip streamed more than ${env.maxEventsPerRound} events (the session's maxEventsPerRound)`,
    retryable: false
  })

/**
 * A streamed round: through the contract stage, at most `maxEventsPerRound` events, collected; what they
 * announce is published a chunk at a time as it passes, when anyone reads the session's events.
 */
const readStream = Effect.fnUntraced(function*(
  env: Env,
  stream: Stream.Stream<StreamEvent.StreamEvent, ProviderError>,
  contract: EventContract.Options,
  mark: Mark
) {
  const limit = env.maxEventsPerRound
  const checked = stream.pipe(EventContract.check(env.provider.capabilities.executionModel, contract), Stream.take(limit + 1))
  const events = yield* Stream.runCollect(
    listened(env) ? Stream.mapChunksEffect(checked, (chunk) => Effect.as(announce(env, mark, chunk), chunk)) : checked
  )
  if (events.length > limit) return yield* tooManyEvents(env)
  return Chunk.toReadonlyArray(events)
})

/** A round the provider answered whole: the same contract and limit as a stream, on the array it gave; what it announces published at once. */
const readWhole = (
  env: Env,
  events: ReadonlyArray<StreamEvent.StreamEvent>,
  contract: EventContract.Options,
  mark: Mark
): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, ProviderError | ProviderEventContractViolation> => {
  const limit = env.maxEventsPerRound
  const read = events.length > limit ? events.slice(0, limit + 1) : events
  const broken = EventContract.violationIn(env.provider.capabilities.executionModel, contract, read, read === events)
  if (broken !== undefined) return Effect.fail(broken)
  if (read !== events) return Effect.fail(tooManyEvents(env))
  return listened(env) ? Effect.as(announce(env, mark, events), events) : Effect.succeed(events)
}

/** The events of one round trip for `request`, checked and bounded: answered whole when the provider can, else streamed. */
export const read = (
  env: Env,
  request: Provider.CompletionRequest,
  contract: EventContract.Options,
  mark: Mark
): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, ProviderError | ProviderEventContractViolation> => {
  const complete = env.provider.complete
  return complete === undefined
    ? Effect.suspend(() => readStream(env, env.provider.stream(request), contract, mark))
    : Effect.flatMap(Effect.suspend(() => complete(request)), (events) => readWhole(env, events, contract, mark))
}

/** The longest a tracker hook may take before it is given up on (logged, the turn goes on). */
const hookTimeout = Duration.seconds(5)

/**
 * A tracker hook, whatever it does (fails, throws, hangs, returns something that is not an effect): logged and
 * dropped, given up on after `hookTimeout`, and interruptible even where it runs as a finalizer.
 */
const hook = (provider: string, which: string, run: () => Effect.Effect<void>): Effect.Effect<void> =>
  Effect.suspend(run).pipe(
    Effect.interruptible,
    Effect.timeout(hookTimeout),
    Effect.catchAllCause((cause) => Effect.logWarning(`${provider}'s inFlightTracker.${which} failed; the turn goes on`, cause))
  )

/**
 * `read`, with the provider's `inFlightTracker` told when it starts and when it ends: `finished` runs however
 * the request ends (answered, failed, interrupted), also when `started` did not complete.
 */
export const tracked = <A, E>(env: Env, requestId: string, read: () => Effect.Effect<A, E>): Effect.Effect<A, E> => {
  const tracker = env.provider.inFlightTracker
  if (tracker === undefined) return read()
  const name = env.provider.capabilities.name
  return Effect.uninterruptibleMask((restore) =>
    restore(Effect.zipRight(hook(name, "started", () => tracker.started(requestId)), Effect.suspend(read))).pipe(
      Effect.ensuring(hook(name, "finished", () => tracker.finished(requestId)))
    )
  )
}

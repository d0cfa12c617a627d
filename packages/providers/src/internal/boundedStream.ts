/**
 * A round's answer within bounds, whatever the server does: a byte budget on the body, a size limit on
 * one event, a timer on the first event and between events that only events reset (keep-alive comments and
 * bytes trickled without completing an event do not), and a total time for the round. Every streaming
 * provider reads its body through here, so the bounds and their failures are the same everywhere.
 *
 * @internal
 */
import { Decode, Errors } from "@toolgate/runtime"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Sse from "./sse.js"

/** What one round may cost. */
export interface Bounds {
  /** The longest wait for the first event and between two events. */
  readonly idleTimeout: Duration.Duration
  /** The longest one round's stream may last, however lively. */
  readonly roundTimeout: Duration.Duration
  /** The most characters one event may hold (its data lines, or one unfinished line of any kind). */
  readonly maxEventLength: number
  /** The most bytes one round's body may have. */
  readonly maxRoundBytes: number
}

/** The default event size limit: 8 Mi characters (a whole answer's text fits in one event many times over). */
export const defaultMaxEventLength = 8 * 1024 * 1024

/** The default round body limit: 32 MiB. */
export const defaultMaxRoundBytes = 32 * 1024 * 1024

const positiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/** The bounds as option fields of a provider's options Schema, with that provider's default timers. */
export const fields = (defaults: { readonly idleTimeout: Duration.DurationInput; readonly roundTimeout: Duration.DurationInput }) => ({
  idleTimeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.decode(defaults.idleTimeout) }),
  roundTimeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.decode(defaults.roundTimeout) }),
  maxEventLength: Schema.optionalWith(positiveInt, { default: () => defaultMaxEventLength }),
  maxRoundBytes: Schema.optionalWith(positiveInt, { default: () => defaultMaxRoundBytes })
})

/** The options of `fields` as a caller writes them. */
export interface Options {
  /** The longest wait for the first event and between events. Only events count: comments and trickled bytes do not. */
  readonly idleTimeout?: Duration.DurationInput
  /** The longest one round's stream may last, however lively. */
  readonly roundTimeout?: Duration.DurationInput
  /** The most characters one event may hold (default 8 Mi); past it the round fails, not retryable. */
  readonly maxEventLength?: number
  /** The most bytes one round's body may have (default 32 MiB); past it the round fails, not retryable. */
  readonly maxRoundBytes?: number
}

/** How a provider words its failures (its name, its scrubbing). */
export type Fail = (reason: string, retryable: boolean) => Errors.ProviderError

/** Bytes pass until `max` have passed; the chunk that would exceed it fails the stream with `onExceed()`. */
export const limitBytes = <E2>(max: number, onExceed: () => E2) =>
<E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | E2, R> =>
  Stream.suspend(() => {
    let seen = 0
    return bytes.pipe(Stream.mapChunksEffect((chunk) => {
      for (const piece of chunk) seen += piece.byteLength
      return seen > max ? Effect.fail(onExceed()) : Effect.succeed(chunk)
    }))
  })

/** A body's server-sent events within the byte bounds: nothing is read past `maxRoundBytes` or held past `maxEventLength`. */
export const events = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  bounds: Bounds,
  fail: Fail
): Stream.Stream<Sse.ServerSentEvent, E | Errors.ProviderError, R> =>
  Sse.parse(
    bytes.pipe(limitBytes(bounds.maxRoundBytes, () => fail(`the round's body exceeded ${bounds.maxRoundBytes} bytes`, false))),
    { maxEventLength: bounds.maxEventLength, onExceed: () => fail(`an event exceeded ${bounds.maxEventLength} characters`, false) }
  )

/** `self` without its empty chunks, so a timer after it counts only chunks that carry something. */
export const nonEmptyChunks = <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.fromPull(Effect.map(Stream.toPull(self), (pull) => {
    const next: Effect.Effect<Chunk.Chunk<A>, Option.Option<E>, R> = Effect.flatMap(pull, (chunk) =>
      Chunk.isEmpty(chunk) ? Effect.suspend(() => next) : Effect.succeed(chunk))
    return next
  }))

/**
 * Decoded events within the time bounds: the idle timer restarts on each chunk of events (parsing stages turn
 * comments and unfinished events into empty chunks, which are dropped first), and the round has a total.
 */
export const timed = <A, E, R>(bounds: Bounds, fail: Fail) => (events: Stream.Stream<A, E, R>): Stream.Stream<A, E | Errors.ProviderError, R> =>
  events.pipe(
    nonEmptyChunks,
    Stream.timeoutFail(() => fail(`no event for ${Duration.format(bounds.idleTimeout)}`, true), bounds.idleTimeout),
    Stream.interruptWhen(Effect.delay(Effect.fail(fail(`the round lasted longer than ${Duration.format(bounds.roundTimeout)}`, true)), bounds.roundTimeout))
  )

/**
 * A stream stage that drops empty chunks: a timer put after it (`Stream.timeoutFail`) then counts only chunks
 * that carry something, so keep-alive comments and bytes that complete no event (which parsing stages turn
 * into empty chunks) cannot reset it.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** `self` without its empty chunks. */
export const nonEmptyChunks = <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.fromPull(Effect.map(Stream.toPull(self), (pull) => {
    const next: Effect.Effect<Chunk.Chunk<A>, Option.Option<E>, R> = Effect.flatMap(pull, (chunk) =>
      Chunk.isEmpty(chunk) ? Effect.suspend(() => next) : Effect.succeed(chunk))
    return next
  }))

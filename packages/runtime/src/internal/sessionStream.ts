/**
 * The bounded buffer between a streamed send's turn and its consumer. The turn runs in a fiber of the
 * stream's scope and emits its events through a `Sink`; the consumer pulls them a chunk at a time. An event
 * emitted where the turn may be interrupted waits for room (at most `capacity` such events are buffered, so
 * a consumer that does not read holds the turn where it is, and the turn deadline still ends it); an event
 * emitted where it may not (a commit, a compensation: finite, a handful of events) never waits, so a consumer
 * that stopped reading cannot hold a compensation up. When the consumer stops (end of reading, `Stream.take`,
 * interruption) the scope closes, which interrupts the turn and waits for its compensation.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as SessionEvent from "../SessionEvent.js"
import type { Sink } from "./sessionState.js"

/** How many events a turn may run ahead of its consumer. */
export const capacity = 32

/** The most events one pull hands the consumer. */
const maxChunk = 1024

/** An event in the buffer, with whether it holds one of the buffer's permits; or the turn's end. */
type Item<A, E> =
  | { readonly _tag: "Event"; readonly event: SessionEvent.SessionEvent; readonly held: boolean }
  | { readonly _tag: "End"; readonly exit: Exit.Exit<A, E> }

/**
 * `run` (given the sink its events go to) as a stream of its events, ending with `finished` of its value;
 * its failure fails the stream after the events it emitted.
 */
export const stream = <A, E, F>(
  run: (sink: Sink) => Effect.Effect<A, E>,
  finished: (value: A) => F
): Stream.Stream<SessionEvent.SessionEvent | F, E> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Item<A, E>>()
    const permits = yield* Effect.makeSemaphore(capacity)
    const sink: Sink = {
      emit: (event) =>
        Effect.checkInterruptible((interruptible) =>
          interruptible
            ? Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(permits.take(1)), Queue.offer(queue, { _tag: "Event", event, held: true })))
            : Queue.offer(queue, { _tag: "Event", event, held: false })
        )
    }
    // the scope's close interrupts the turn and waits for it, compensation included
    yield* Effect.forkScoped(Effect.onExit(run(sink), (exit) => Queue.offer(queue, { _tag: "End", exit })))
    let end: Exit.Exit<A, E> | undefined
    const after = (exit: Exit.Exit<A, E>): Effect.Effect<never, Option.Option<E>> =>
      Exit.isSuccess(exit) ? Effect.fail(Option.none()) : Effect.failCause(Cause.map(exit.cause, Option.some))
    const pull: Effect.Effect<Chunk.Chunk<SessionEvent.SessionEvent | F>, Option.Option<E>> = Effect.suspend(() => {
      if (end !== undefined) return after(end)
      return Effect.flatMap(Queue.takeBetween(queue, 1, maxChunk), (items) => {
        const out: Array<SessionEvent.SessionEvent | F> = []
        let held = 0
        for (const item of items) {
          if (item._tag === "End") {
            end = item.exit
            if (Exit.isSuccess(item.exit)) out.push(finished(item.exit.value))
          } else {
            out.push(item.event)
            if (item.held) held++
          }
        }
        const release = held === 0 ? Effect.void : permits.release(held)
        return out.length === 0 && end !== undefined
          ? Effect.zipRight(release, after(end))
          : Effect.as(release, Chunk.unsafeFromArray(out))
      })
    })
    return Stream.repeatEffectChunkOption(pull)
  }))

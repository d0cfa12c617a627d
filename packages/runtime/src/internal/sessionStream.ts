/**
 * The bounded buffer between a streamed send's turn and its reader. The turn runs in a fiber of the stream's
 * scope and emits its events through a `Sink` into a `Mailbox` the reader drains a chunk at a time. An event
 * emitted where the turn may be interrupted waits for room (at most `capacity` such events are waiting to be
 * read, so a reader that does not read holds the turn where it is, and the turn deadline still ends it); an
 * event emitted where it may not (a commit, a compensation: finite, a handful of events) never waits, so a
 * reader that stopped reading cannot hold a compensation up. When the reader stops (end of reading,
 * `Stream.take`, interruption) the scope closes, which interrupts the turn and waits for its compensation.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import type * as SessionEvent from "../SessionEvent.js"
import type { Sink } from "./sessionState.js"

/** How many events a turn may run ahead of its reader. */
export const capacity = 32

/** An event in the buffer, with whether it took a place in the room (it was emitted where it could wait). */
interface Item<F> {
  readonly event: SessionEvent.SessionEvent | F
  readonly held: boolean
}

/**
 * The places for events that may wait: `enter` takes one (waiting while all are taken), `leave` gives back
 * those of a chunk the reader took. Only the reader's pull gives places back, so it is a plain count.
 */
class Room {
  private taken = 0
  private free: Deferred.Deferred<void> | undefined
  /** `put`, once a place is free. */
  enter<A>(put: Effect.Effect<A>): Effect.Effect<A> {
    return Effect.suspend(() => {
      if (this.taken < capacity) {
        this.taken++
        return put
      }
      this.free ??= Deferred.unsafeMake<void>(FiberId.none)
      return Effect.zipRight(Deferred.await(this.free), this.enter(put))
    })
  }
  /** Gives back `n` places, waking whoever waits for one. */
  leave(n: number): void {
    if (n === 0) return
    this.taken -= n
    const free = this.free
    if (free !== undefined) {
      this.free = undefined
      Deferred.unsafeDone(free, Exit.void)
    }
  }
}

/**
 * `run` (given the sink its events go to) as a stream of its events, ending with `finished` of its value;
 * its failure fails the stream after the events it emitted.
 */
export const stream = <A, E, F>(
  run: (sink: Sink) => Effect.Effect<A, E>,
  finished: (value: A) => F
): Stream.Stream<SessionEvent.SessionEvent | F, E> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const mailbox = yield* Mailbox.make<Item<F>, E>()
    const room = new Room()
    const sink: Sink = {
      emit: (event) =>
        Effect.checkInterruptible((interruptible) =>
          interruptible
            ? room.enter(Effect.sync(() => void mailbox.unsafeOffer({ event, held: true })))
            : Effect.sync(() => void mailbox.unsafeOffer({ event, held: false }))
        )
    }
    const end = (exit: Exit.Exit<A, E>) =>
      Effect.sync(() => {
        if (Exit.isFailure(exit)) return void mailbox.unsafeDone(exit)
        mailbox.unsafeOffer({ event: finished(exit.value), held: false })
        mailbox.unsafeDone(Exit.void)
      })
    // the scope's close interrupts the turn and waits for it, compensation included
    yield* Effect.forkScoped(Effect.onExit(run(sink), end))
    return Mailbox.toStream(mailbox).pipe(Stream.mapChunks((items) => {
      // the reader took these: their places are free again
      let held = 0
      const events = Chunk.map(items, (item) => {
        if (item.held) held++
        return item.event
      })
      room.leave(held)
      return events
    }))
  }))

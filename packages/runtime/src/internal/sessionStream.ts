/**
 * The bounded buffer between a streamed send's turn and its reader. The turn runs in a fiber the stream
 * starts and stops, and emits its events through a `Sink` into a `Mailbox` the reader drains a chunk at a time. An event
 * emitted where the turn may be interrupted waits for room (at most `capacity` such events are waiting to be
 * read, so a reader that does not read holds the turn where it is, and the turn deadline still ends it); an
 * event emitted where it may not (a commit, a compensation: finite, a handful of events) never waits, so a
 * reader that stopped reading cannot hold a compensation up. When the reader stops (end of reading,
 * `Stream.take`, interruption) the turn is interrupted, and the stream ends once its compensation has.
 *
 * @internal
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
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
 * The places for events that may wait: `take` takes one when one is free, `waitForOne` waits until one may be,
 * `leave` gives back those of a chunk the reader took. Only the reader's pull gives places back, so it is a
 * plain count.
 */
class Room {
  private taken = 0
  private free: Deferred.Deferred<void> | undefined
  /** Takes a place if one is free. */
  take(): boolean {
    if (this.taken >= capacity) return false
    this.taken++
    return true
  }
  /** Completes when the reader has given places back. */
  waitForOne(): Effect.Effect<void> {
    this.free ??= Deferred.unsafeMake<void>(FiberId.none)
    return Deferred.await(this.free)
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
  Stream.fromChannel(Channel.flatMap(Channel.fromEffect(Mailbox.make<Item<F>, E>()), (mailbox) => {
    const room = new Room()
    // one effect per event: the offer is made where the fiber's interruptibility is read, and only a full room waits
    const emit = (event: SessionEvent.SessionEvent): Effect.Effect<void> =>
      Effect.checkInterruptible((interruptible) => {
        const held = interruptible
        if (held && !room.take()) return Effect.zipRight(room.waitForOne(), emit(event))
        mailbox.unsafeOffer({ event, held })
        return Effect.void
      })
    const sink: Sink = { emit }
    const end = (exit: Exit.Exit<A, E>) =>
      Effect.sync(() => {
        if (Exit.isFailure(exit)) return void mailbox.unsafeDone(exit)
        mailbox.unsafeOffer({ event: finished(exit.value), held: false })
        mailbox.unsafeDone(Exit.void)
      })
    // The turn runs in a fiber of its own (a scope would cost every stream one it needs for nothing but this),
    // started inside the `ensuring` and its handle kept in one step no interruption splits: whatever ends the
    // reading (the end, `Stream.take`, an interruption) interrupts the turn and waits for its compensation.
    let turn: Fiber.RuntimeFiber<A, E> | undefined
    const start = Effect.uninterruptible(Effect.map(Effect.forkDaemon(Effect.onExit(run(sink), end)), (fiber) => void (turn = fiber)))
    const stop = Effect.suspend(() => turn === undefined ? Effect.void : Fiber.interrupt(turn))
    const read = Channel.mapOut(Mailbox.toChannel(mailbox), (items: Chunk.Chunk<Item<F>>) => {
      // the reader took these: their places are free again
      let held = 0
      const events = Chunk.map(items, (item) => {
        if (item.held) held++
        return item.event
      })
      room.leave(held)
      return events
    })
    return Channel.ensuring(Channel.zipRight(Channel.fromEffect(start), read), stop)
  }))

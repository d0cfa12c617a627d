/**
 * The bounded handoff between a streamed send's turn and its reader. The turn runs in a fiber the stream
 * starts and stops, and emits its events through a `Sink` into a buffer the reader empties in one pull: every
 * event there is, as one chunk. An event emitted where the turn may be interrupted waits for room (at most
 * `capacity` such events are waiting to be read, so a reader that does not read holds the turn where it is,
 * and the turn deadline still ends it); an event emitted where it may not (a commit, a compensation: finite,
 * a handful of events) never waits, so a reader that stopped reading cannot hold a compensation up. When the
 * reader stops before the turn's end (`Stream.take`, interruption) the turn is interrupted, and the stream
 * ends once its compensation has.
 *
 * The stream is one channel: a loop of pulls, each an effect that takes what the buffer holds (or waits for
 * the next event) and writes it as one chunk. Running any `Stream` has a fixed cost (a channel executor, its
 * scope); what this adds to it is a fiber for the turn and one channel step per pull, and the turn's fiber
 * runs until it yields before the reader pulls, so a turn that does not wait hands over its events in a
 * handful of chunks.
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
import * as Stream from "effect/Stream"
import type * as SessionEvent from "../SessionEvent.js"
import type { Sink } from "./sessionState.js"

/** How many events a turn may run ahead of its reader. */
export const capacity = 32

/** What one pull took: the events (in order) and, when the turn had ended by then, how. */
type Pulled<O, E> = readonly [Chunk.Chunk<O>, Exit.Exit<void, E> | undefined]

/**
 * The events between the turn and its reader. Only the reader takes events, always all of them at once, so
 * the places held are a count: the events emitted where the turn could wait, not read yet.
 */
class Handoff<O, E> {
  private events: Array<O> = []
  private held = 0
  private end: Exit.Exit<void, E> | undefined = undefined
  /** Resumes the reader's pull waiting for an event (one reader). */
  private reader: (() => void) | undefined = undefined
  /** Completed when the reader frees the places (any number of the turn's fibers may wait for one). */
  private free: Deferred.Deferred<void> | undefined = undefined
  /** Whether the reader has taken the turn's end (then the turn's fiber has nothing left to do). */
  ended = false

  /** Adds an event; one that `held` a place was emitted where the turn may wait. */
  push(event: O, held: boolean): void {
    this.events.push(event)
    if (held) this.held++
    this.wake()
  }

  /** Whether an event that may wait finds a place now. */
  hasRoom(): boolean {
    return this.held < capacity
  }

  /** Completes when the reader has freed the places. */
  room(): Effect.Effect<void> {
    this.free ??= Deferred.unsafeMake<void>(FiberId.none)
    return Deferred.await(this.free)
  }

  /** The turn ended: nothing follows what the buffer holds now. */
  finish(exit: Exit.Exit<void, E>): void {
    this.end = exit
    this.wake()
  }

  /** Takes everything the buffer holds, or waits for the next event (or the end). */
  readonly pull: Effect.Effect<Pulled<O, E>> = Effect.suspend(() =>
    this.events.length > 0 || this.end !== undefined ? Effect.succeed(this.take()) : this.wait
  )

  private readonly wait: Effect.Effect<Pulled<O, E>> = Effect.async<Pulled<O, E>>((resume) => {
    this.reader = () => resume(Effect.sync(() => this.take()))
    return Effect.sync(() => void (this.reader = undefined))
  })

  private wake(): void {
    const reader = this.reader
    if (reader === undefined) return
    this.reader = undefined
    reader()
  }

  private take(): Pulled<O, E> {
    const events = Chunk.unsafeFromArray(this.events)
    this.events = []
    const end = this.end
    if (end !== undefined) this.ended = true
    if (this.held > 0) {
      this.held = 0
      const free = this.free
      this.free = undefined
      if (free !== undefined) Deferred.unsafeDone(free, Exit.void)
    }
    return [events, end]
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
  Stream.fromChannel(Channel.suspend(() => {
    const handoff = new Handoff<SessionEvent.SessionEvent | F, E>()
    // one effect per event: the offer is made where the fiber's interruptibility is read, and only a full buffer waits
    const emit = (event: SessionEvent.SessionEvent): Effect.Effect<void> =>
      Effect.checkInterruptible((held) => {
        if (held && !handoff.hasRoom()) return Effect.zipRight(handoff.room(), emit(event))
        handoff.push(event, held)
        return Effect.void
      })
    const end = (exit: Exit.Exit<A, E>) =>
      Effect.sync(() => {
        if (Exit.isFailure(exit)) return handoff.finish(exit)
        handoff.push(finished(exit.value), false)
        handoff.finish(Exit.void)
      })
    // The turn runs in a fiber of its own (a scope would cost every stream one it needs for nothing but this),
    // started inside the `ensuring` and its handle kept in one step no interruption splits: whatever ends the
    // reading before the turn has ended (`Stream.take`, an interruption) interrupts the turn and waits for its
    // compensation. Once the reader has taken the end, the turn's fiber has run its last step.
    let turn: Fiber.RuntimeFiber<A, E> | undefined
    const start = Effect.uninterruptible(
      Effect.map(Effect.forkDaemon(Effect.onExit(run({ emit }), end)), (fiber) => void (turn = fiber))
    )
    const stop = Effect.suspend(() => turn === undefined || handoff.ended ? Effect.void : Fiber.interrupt(turn))
    const next = (
      [events, ended]: Pulled<SessionEvent.SessionEvent | F, E>
    ): Channel.Channel<Chunk.Chunk<SessionEvent.SessionEvent | F>, unknown, E, unknown, void, unknown> => {
      if (ended === undefined) return Channel.zipRight(Channel.write(events), loop)
      const last = Exit.isSuccess(ended) ? Channel.void : Channel.failCause(ended.cause)
      return events.length === 0 ? last : Channel.zipRight(Channel.write(events), last)
    }
    const loop = Channel.flatMap(Channel.fromEffect(handoff.pull), next)
    return Channel.ensuring(Channel.flatMap(Channel.fromEffect(Effect.zipRight(start, handoff.pull)), next), stop)
  }))

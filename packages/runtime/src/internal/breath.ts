/**
 * A round's breath: once its calls have run a while, the event loop gets a turn between them, so its timers
 * (a turn's deadline) run even when every executor is synchronous.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** How long a round's calls may run before the event loop gets a turn: 10 ms. */
const breathEveryMillis = 10

/** When a round last gave the event loop a turn, and the calls waiting for theirs, first come first served. */
export interface Breath {
  /** `undefined` until the round's first call starts: a round's first call never waits. */
  at: number | undefined
  readonly waiting: Array<() => void>
  pumping: boolean
}

/** A round's breath, fresh. */
export const breath = (): Breath => ({ at: undefined, waiting: [], pumping: false })

/** Runs `task` in the event loop's next turn (its timers run before it). */
const nextTurn = (task: () => void): void => {
  if (typeof setImmediate === "function") setImmediate(task)
  else setTimeout(task, 0)
}

/**
 * Lets the waiting calls go in order, one at a time, each after the one before ran up to where it waits or
 * yields, until `breathEveryMillis` have passed; then the loop gets its next turn, and so on until none waits.
 */
const release = (breath: Breath): void => {
  const next = breath.waiting.shift()
  if (next === undefined) {
    breath.pumping = false
    return
  }
  next()
  // a microtask queued after the released call's: it runs once that call ran as far as it goes at once
  queueMicrotask(() => Date.now() - breath.at! < breathEveryMillis ? release(breath) : pump(breath))
}

/** The next turn of the event loop starts a new stretch of `release`. */
const pump = (breath: Breath): void =>
  nextTurn(() => {
    breath.at = Date.now()
    release(breath)
  })

/**
 * Gives the event loop turns once the round has run `breathEveryMillis` since it last had one: from then on
 * the calls that reach this point wait and go in order, a stretch of at most `breathEveryMillis` per turn of
 * the loop (`release`), until none waits. Effect's scheduler
 * runs fibers on microtasks, so executors that never wait (synchronous work, or waits resumed at once) would
 * otherwise keep the loop from ever reaching its timers, and the turn's deadline would never strike.
 */
export const breathe = (breath: Breath): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (breath.at === undefined) return Effect.sync(() => void (breath.at = Date.now()))
    if (breath.waiting.length === 0 && Date.now() - breath.at < breathEveryMillis) return Effect.void
    return Effect.async<void>((resume) => {
      const go = () => resume(Effect.void)
      breath.waiting.push(go)
      if (!breath.pumping) {
        breath.pumping = true
        pump(breath)
      }
      return Effect.sync(() => {
        const i = breath.waiting.indexOf(go)
        if (i >= 0) breath.waiting.splice(i, 1)
      })
    })
  })

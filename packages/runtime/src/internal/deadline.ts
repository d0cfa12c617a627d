/**
 * The deadlines a turn runs under (the turn's own, each executor's and each undo's time budget, the
 * compensation's): `self`, or once `duration` has passed, its fiber interrupted (and waited for until it
 * stopped) and `onTimeout` instead, exactly as `Effect.timeoutTo` answers.
 *
 * The work is interruptible whatever region its caller is in: a send made inside an uninterruptible region
 * (an `acquireRelease` acquire, the compensation of a failed turn, which runs in a finalizer) still has its
 * deadlines, instead of waiting for ever on work that cannot be stopped.
 *
 * This is the runtime's one shortcut on the hot path, kept because `npm run bench` shows it is worth it: with
 * the default clock the work is forked once and waited for beside a plain timer, where `Effect.timeoutTo`
 * races two fibers and copies the work's fiber-local state back (a turn with one tool call runs two deadlines,
 * and `timeoutTo` made that turn about a fifth slower). Under any other clock (`TestClock`), or past what a
 * timer can hold, it is `Effect.timeoutTo` itself. Both paths are tested: the default clock by `it.live` tests
 * in real time, `TestClock` by `it.effect` tests.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

/** The clock every fiber has unless another is provided. */
const defaultClock = Effect.runSync(Effect.clock)

/** The longest delay `setTimeout` keeps (a longer one fires at once). */
const maxTimerMillis = 2 ** 31 - 1

/** Whether `work` finished before `millis` passed; the timer and the observer are gone when the wait ends, however it ends. */
const finishedWithin = (work: Fiber.RuntimeFiber<unknown, unknown>, millis: number): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    let settled = false
    const settle = (finished: boolean | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      work.removeObserver(observer)
      if (finished !== undefined) resume(Effect.succeed(finished))
    }
    const observer = () => settle(true)
    const timer = setTimeout(() => settle(false), millis)
    work.addObserver(observer)
    return Effect.sync(() => settle(undefined))
  })

/** `self` within `duration`, or (its fiber interrupted, and waited for until it stopped) `onTimeout()`. */
export const within = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2, R | R2> =>
  Effect.clockWith((clock) => {
    const millis = Duration.toMillis(duration)
    if (clock !== defaultClock || !(millis <= maxTimerMillis)) {
      return Effect.flatten(Effect.timeoutTo(Effect.interruptible(self), { duration, onSuccess: Effect.succeed<A | B>, onTimeout }))
    }
    // the timer bounds the wait, so waiting may stay in the caller's region; the work itself is always interruptible
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.fork(Effect.interruptible(self)), (work) =>
        Effect.flatMap(
          Effect.onInterrupt(restore(finishedWithin(work, millis)), () => Fiber.interrupt(work)),
          (finished): Effect.Effect<A | B, E | E2, R2> => finished ? Effect.flatten(Fiber.await(work)) : Effect.zipRight(Fiber.interrupt(work), onTimeout())
        ))
    )
  })

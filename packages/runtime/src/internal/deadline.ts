/**
 * The deadlines a turn runs under (the turn's own, each executor's time budget): `self`, or once `duration`
 * has passed, its fiber interrupted (and waited for until it stopped) and `onTimeout` instead, exactly as
 * `Effect.timeoutTo` does. With the default clock `self` is forked once and waited for beside a plain timer;
 * `Effect.timeoutTo` races two fibers, which costs a short turn a third of its time. Under any other clock
 * (`TestClock`), or past what a timer can hold, it is `Effect.timeoutTo` itself. With the default clock the
 * work's fiber-local changes (`FiberRef`s an executor sets) stay in its fiber instead of being copied back
 * into the caller's, which is a third of what joining costs.
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

/** `self` within `duration`, or (its fiber interrupted first) `onTimeout()`. */
export const within = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2, R | R2> =>
  Effect.clockWith((clock) => {
    const millis = Duration.toMillis(duration)
    if (clock !== defaultClock || !(millis <= maxTimerMillis)) {
      return Effect.flatten(Effect.timeoutTo(self, { duration, onSuccess: Effect.succeed<A | B>, onTimeout }))
    }
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.fork(restore(self)), (work) =>
        Effect.flatMap(
          Effect.onInterrupt(restore(finishedWithin(work, millis)), () => Fiber.interrupt(work)),
          (finished): Effect.Effect<A | B, E | E2, R2> => finished ? Effect.flatten(Fiber.await(work)) : Effect.zipRight(Fiber.interrupt(work), onTimeout())
        ))
    )
  })

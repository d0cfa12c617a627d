/**
 * The deadlines a turn runs under (the turn's own, each executor's and each undo's time budget, the
 * compensation's): `Effect.timeoutTo` over the work made interruptible. The work is interruptible whatever
 * region its caller is in: a send made inside an uninterruptible region (an `acquireRelease` acquire, the
 * compensation of a failed turn, which runs in a finalizer) still has its deadlines, instead of waiting for
 * ever on work that cannot be stopped.
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** `self` within `duration`, or (its fiber interrupted, and waited for until it stopped) `onTimeout()`. */
export const within = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2, R | R2> =>
  Effect.flatten(Effect.timeoutTo(Effect.interruptible(self), { duration, onSuccess: Effect.succeed<A | B>, onTimeout }))

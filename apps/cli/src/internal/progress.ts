/**
 * A line on stderr while a command waits on something slow, so a silent terminal never looks hung.
 *
 * @internal
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

/** Prints `… message` on stderr when `effect` takes longer than a second (then `… still message` every five seconds). */
export const withProgress = <A, E, R>(message: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const note = yield* Effect.fork(
      Effect.sleep("1 second").pipe(
        Effect.zipRight(Console.error(`… ${message}`)),
        Effect.zipRight(Effect.forever(Effect.sleep("5 seconds").pipe(Effect.zipRight(Console.error(`… still ${message}`)))))
      )
    )
    return yield* effect.pipe(Effect.ensuring(Fiber.interrupt(note)))
  })


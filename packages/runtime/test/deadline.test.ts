import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, FastCheck as fc, Fiber, TestClock } from "effect"
import * as Deadline from "../src/internal/deadline.js"

const timedOut = () => Effect.succeed("timed out" as const)

/** An outcome a piece of work may have: a value, a failure, a defect or its own interruption, at once or after a yield. */
const outcome = fc.record({
  kind: fc.constantFrom("succeed", "fail", "die", "interrupt"),
  value: fc.integer(),
  later: fc.boolean()
}).map(({ kind, later, value }) => {
  const end = kind === "succeed" ? Effect.succeed(value) : kind === "fail" ? Effect.fail(`e${value}`) : kind === "die" ? Effect.die(value) : Effect.interrupt
  return later ? Effect.zipRight(Effect.yieldNow(), end) : end
})

/** The exit with interruption fiber ids forgotten (the work runs in a fiber of its own). */
const shape = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.match(exit, { onSuccess: (a) => ({ ok: a }), onFailure: (c) => ({ failures: [...Cause.failures(c)], defects: [...Cause.defects(c)], interrupted: Cause.isInterrupted(c) }) })

describe("Deadline.within", () => {
  it.live("work that finishes in time answers as it would alone: value, failure, defect, interruption (real clock)", () =>
    Effect.gen(function*() {
      const samples = fc.sample(outcome, 60)
      for (const work of samples) {
        const alone = yield* Effect.exit(work)
        const within = yield* Effect.exit(Deadline.within(work, Duration.seconds(5), timedOut))
        assert.deepStrictEqual(shape(within), shape(alone))
      }
    }))

  it.effect("under TestClock: the same answers, and the deadline passes when the clock is adjusted", () =>
    Effect.gen(function*() {
      for (const work of fc.sample(outcome, 30)) {
        assert.deepStrictEqual(shape(yield* Effect.exit(Deadline.within(work, Duration.seconds(5), timedOut))), shape(yield* Effect.exit(work)))
      }
      const stopped: Array<string> = []
      const fiber = yield* Effect.fork(Deadline.within(Effect.onInterrupt(Effect.never, () => Effect.sync(() => stopped.push("work"))), Duration.seconds(5), timedOut))
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "timed out")
      assert.deepStrictEqual(stopped, ["work"])
    }))

  it.live("past the deadline the work is interrupted, and stopped, before onTimeout answers (real clock)", () =>
    Effect.gen(function*() {
      const order: Array<string> = []
      const work = Effect.onInterrupt(Effect.never, () => Effect.sync(() => order.push("work stopped")))
      const answer = yield* Deadline.within(work, Duration.millis(10), () => Effect.sync(() => (order.push("timed out"), "late")))
      assert.strictEqual(answer, "late")
      assert.deepStrictEqual(order, ["work stopped", "timed out"])
      // a failing onTimeout fails the whole
      const failed = yield* Effect.flip(Deadline.within(Effect.never, Duration.millis(5), () => Effect.fail("deadline")))
      assert.strictEqual(failed, "deadline")
    }))

  it.live("interrupting the caller interrupts the work and waits until it stopped (real clock)", () =>
    Effect.gen(function*() {
      const stopped: Array<string> = []
      const work = Effect.onInterrupt(Effect.never, () => Effect.sync(() => stopped.push("work")))
      const caller = yield* Effect.fork(Deadline.within(work, Duration.seconds(60), timedOut))
      yield* Effect.sleep(Duration.millis(5))
      const exit = yield* Fiber.interrupt(caller)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.deepStrictEqual(stopped, ["work"])
    }))

  it.live("a deadline longer than a timer holds never fires", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Deadline.within(Effect.succeed(1), Duration.days(30), timedOut), 1)
      assert.strictEqual(yield* Deadline.within(Effect.succeed(2), Duration.infinity, timedOut), 2)
    }))

  it.live("inside an uninterruptible region (a finalizer, an acquireRelease acquire) the work is still stopped at the deadline", () =>
    Effect.gen(function*() {
      const stopped: Array<string> = []
      const work = Effect.onInterrupt(Effect.never, () => Effect.sync(() => stopped.push("work")))
      const inFinalizer = yield* Effect.uninterruptible(Deadline.within(work, Duration.millis(20), timedOut)).pipe(
        Effect.disconnect,
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "hung" })
      )
      assert.strictEqual(inFinalizer, "timed out")
      const acquired = yield* Effect.scoped(Effect.acquireRelease(Deadline.within(work, Duration.millis(20), timedOut), () => Effect.void)).pipe(
        Effect.disconnect,
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "hung" })
      )
      assert.strictEqual(acquired, "timed out")
      assert.deepStrictEqual(stopped, ["work", "work"])
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Exit, FastCheck as fc, Layer } from "effect"
import { Errors, RepairBudget, RunLimits } from "@toolgate/runtime"

const issue = (field: string) => ({ path: `/${field}`, field, keyword: "type", expected: "string", message: `Argument \`${field}\` must be a string.` })

const limits = (maxToolArgumentRepairs: number, maxProviderRoundTrips: number): RunLimits.Limits => ({ maxToolArgumentRepairs, maxProviderRoundTrips })

describe("RepairBudget", () => {
  it.effect("a repair costs one repair and one round-trip slot, never two", () =>
    Effect.gen(function*() {
      const budget = yield* RepairBudget.make(limits(1, 2))
      yield* budget.roundTrip() // the first request
      yield* budget.repair([issue("city")]) // its calls were invalid
      assert.deepStrictEqual(yield* budget.usage(), { roundTrips: 1, repairs: 1, invalidRounds: 1 })
      yield* budget.roundTrip() // the request carrying the repair back: the second and last slot
      assert.deepStrictEqual(yield* budget.usage(), { roundTrips: 2, repairs: 1, invalidRounds: 1 })
      const third = yield* Effect.flip(budget.roundTrip())
      assert.instanceOf(third, Errors.RoundTripLimitExceeded)
      assert.strictEqual(third.limit, 2)
    }))

  it.effect("several invalid calls of one round spend one repair; their issues are the round's", () =>
    Effect.gen(function*() {
      const budget = yield* RepairBudget.make(limits(1, 10))
      yield* budget.roundTrip()
      yield* budget.repair([issue("a")])
      yield* budget.repair([issue("b")])
      assert.deepStrictEqual(yield* budget.usage(), { roundTrips: 1, repairs: 1, invalidRounds: 1 })
      yield* budget.roundTrip()
      const e = yield* Effect.flip(budget.repair([issue("c")]))
      assert.instanceOf(e, Errors.ToolArgumentRepairExhausted)
      assert.deepStrictEqual([e.limit, e.attempts, e.lastIssues.map((i) => i.field)], [1, 2, ["c"]])
      const again = yield* Effect.flip(budget.repair([issue("d")]))
      assert.deepStrictEqual(again.lastIssues.map((i) => i.field), ["c", "d"])
      assert.deepStrictEqual(yield* budget.usage(), { roundTrips: 2, repairs: 1, invalidRounds: 2 })
    }))

  it.effect("concurrent repairs of one round spend one repair", () =>
    Effect.gen(function*() {
      const budget = yield* RepairBudget.make(limits(1, 10))
      yield* budget.roundTrip()
      yield* Effect.all(Array.from({ length: 20 }, (_, i) => budget.repair([issue(`f${i}`)])), { concurrency: "unbounded" })
      assert.deepStrictEqual(yield* budget.usage(), { roundTrips: 1, repairs: 1, invalidRounds: 1 })
    }))

  it.effect("fresh call ids cannot reset it: a budget is per turn, and each turn makes its own", () =>
    Effect.gen(function*() {
      const turn1 = yield* RepairBudget.make(limits(0, 10))
      yield* turn1.roundTrip()
      const e = yield* Effect.flip(turn1.repair([issue("x")]))
      assert.deepStrictEqual([e.limit, e.attempts], [0, 1])
      const turn2 = yield* RepairBudget.make(limits(1, 10))
      yield* turn2.roundTrip()
      yield* turn2.repair([issue("x")])
      assert.deepStrictEqual((yield* turn2.usage()).repairs, 1)
    }))

  it.effect("fromRunLimits reads the application's limits", () =>
    Effect.gen(function*() {
      const budget = yield* RepairBudget.fromRunLimits
      for (let i = 0; i < 10; i++) yield* budget.roundTrip()
      assert.isTrue(Exit.isFailure(yield* Effect.exit(budget.roundTrip())))
    }).pipe(Effect.provide(RunLimits.layer)))

  /** A round: for each call, the issues of its arguments ([] = valid). */
  const round = fc.array(fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 2 }), { minLength: 1, maxLength: 4 })

  it.effect.prop(
    "for any rounds with fresh call ids, repairs never exceed the limit and exhaustion carries that round's issues",
    [fc.array(round, { maxLength: 12 }), fc.nat({ max: 3 }), fc.integer({ min: 1, max: 15 })],
    ([rounds, maxRepairs, maxTrips]) =>
      Effect.gen(function*() {
        const budget = yield* RepairBudget.make(limits(maxRepairs, maxTrips))
        let invalidRounds = 0
        for (const [r, calls] of rounds.entries()) {
          const trip = yield* Effect.either(budget.roundTrip())
          if (Either.isLeft(trip)) {
            assert.strictEqual(r, maxTrips) // every round, repair or not, spent exactly one slot
            return
          }
          // fresh call ids every round: the budget never sees them, only the round's issues
          const issues = calls.flatMap((fields, i) => fields.map((f) => ({ ...issue(f), message: `call_${r}_${i}: ${f}` })))
          if (issues.length === 0) continue
          invalidRounds++
          const spent = yield* Effect.either(budget.repair(issues))
          const usage = yield* budget.usage()
          assert.isAtMost(usage.repairs, maxRepairs)
          if (Either.isLeft(spent)) {
            assert.strictEqual(invalidRounds, maxRepairs + 1)
            assert.deepStrictEqual(spent.left.lastIssues, issues)
            assert.deepStrictEqual([spent.left.limit, spent.left.attempts], [maxRepairs, maxRepairs + 1])
            return
          }
          assert.isAtMost(invalidRounds, maxRepairs)
        }
      })
  )
})

describe("RunLimits", () => {
  it("make fills defaults and rejects hostile limits without throwing", () => {
    assert.deepStrictEqual(RunLimits.make(), Either.right(RunLimits.defaults))
    assert.deepStrictEqual(RunLimits.make({ maxToolArgumentRepairs: 3 }), Either.right({ maxToolArgumentRepairs: 3, maxProviderRoundTrips: 10 }))
    const bad: ReadonlyArray<unknown> = [
      { maxToolArgumentRepairs: -1 },
      { maxToolArgumentRepairs: 1.5 },
      { maxProviderRoundTrips: 0 },
      { maxProviderRoundTrips: Number.POSITIVE_INFINITY },
      { maxToolArgumentRepairs: "2" },
      null,
      new Proxy({}, {
        get: () => { throw new Error("trap") },
        has: () => { throw new Error("trap") },
        ownKeys: () => { throw new Error("trap") },
        getOwnPropertyDescriptor: () => { throw new Error("trap") }
      })
    ]
    for (const [i, u] of bad.entries()) {
      const r = RunLimits.make(u as RunLimits.Input)
      assert.isTrue(Either.isLeft(r) && r.left instanceof Errors.InvalidRunLimits, `case ${i}`)
    }
    const polluted = RunLimits.make(JSON.parse("{\"__proto__\":{\"maxToolArgumentRepairs\":99}}"))
    assert.deepStrictEqual(polluted, Either.right(RunLimits.defaults))
  })

  const fromMap = (entries: ReadonlyArray<readonly [string, string]>) => Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))

  it.effect("layerConfig reads both limits, with defaults", () =>
    Effect.gen(function*() {
      const read = (entries: ReadonlyArray<readonly [string, string]>) =>
        Effect.either(Effect.provide(RunLimits.RunLimits, RunLimits.layerEnv.pipe(Layer.provide(fromMap(entries)))))
      assert.deepStrictEqual(yield* read([]), Either.right(RunLimits.defaults))
      assert.deepStrictEqual(
        yield* read([["TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS", "2"], ["TOOLGATE_MAX_PROVIDER_ROUND_TRIPS", "4"]]),
        Either.right(limits(2, 4))
      )
      assert.isTrue(Either.isLeft(yield* read([["TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS", "-1"]])))
      assert.isTrue(Either.isLeft(yield* read([["TOOLGATE_MAX_PROVIDER_ROUND_TRIPS", "0"]])))
      assert.isTrue(Either.isLeft(yield* read([["TOOLGATE_MAX_PROVIDER_ROUND_TRIPS", "ten"]])))
      assert.deepStrictEqual(yield* read([["TOOLGATE_MAX_TOOL_CALLS_PER_TURN", "3"]]), Either.right({ ...RunLimits.defaults, maxToolCallsPerTurn: 3 }))
      assert.isTrue(Either.isLeft(yield* read([["TOOLGATE_MAX_TOOL_CALLS_PER_TURN", "-1"]])))
    }))

  it.effect("layerWith gives limits directly, or a typed error", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.provide(RunLimits.RunLimits, RunLimits.layerWith({ maxProviderRoundTrips: 3 })), limits(1, 3))
      const e = yield* Effect.flip(Effect.provide(RunLimits.RunLimits, RunLimits.layerWith({ maxProviderRoundTrips: -1 })))
      assert.instanceOf(e, Errors.InvalidRunLimits)
    }))
})

/**
 * `RunLimits.layerConfig` under keys the app names: unset keys take the defaults, values are decoded by the
 * same `Limits` Schema as limits given directly (a property pins that), and a value it refuses fails the
 * build as `InvalidRunLimits` naming the key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Config, ConfigError, ConfigProvider, ConfigProviderPathPatch, Effect, Either, FastCheck as fc, HashSet, Layer } from "effect"
import * as RunLimits from "../src/RunLimits.js"

const keys = {
  maxToolArgumentRepairs: Config.integer("APP_REPAIRS"),
  maxProviderRoundTrips: Config.integer("APP_ROUNDS"),
  maxToolResultBytes: Config.integer("APP_RESULT_BYTES")
}

const read = (entries: ReadonlyArray<readonly [string, string]>) =>
  Effect.either(Effect.provide(
    RunLimits.RunLimits,
    RunLimits.layerConfig(keys).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))))
  ))

describe("RunLimits.layerConfig", () => {
  it.effect("the app's keys set the limits; a key left unset takes the default", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* read([["APP_REPAIRS", "3"], ["APP_RESULT_BYTES", "2048"]]),
        Either.right({ ...RunLimits.defaults, maxToolArgumentRepairs: 3, maxToolResultBytes: 2048 })
      )
      assert.deepStrictEqual(yield* read([]), Either.right(RunLimits.defaults))
      // a TOOLGATE_* name means nothing to a layer whose keys the app named
      assert.deepStrictEqual(yield* read([["TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS", "7"]]), Either.right(RunLimits.defaults))
    }))

  it.effect("a value the Limits Schema refuses, or that is no integer, is InvalidRunLimits naming the app's key", () =>
    Effect.gen(function*() {
      for (const [key, value] of [["APP_REPAIRS", "-1"], ["APP_ROUNDS", "0"], ["APP_RESULT_BYTES", "1000"], ["APP_ROUNDS", "ten"], ["APP_REPAIRS", "1.5"]] as const) {
        const outcome = yield* read([[key, value]])
        assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "InvalidRunLimits" && outcome.left.detail.includes(key), `${key}=${value}: ${String(outcome)}`)
      }
    }))

  it.effect("the config is read while the layer is built: a failing source is a ConfigError, not a default", () =>
    Effect.gen(function*() {
      const failing = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
        load: (path) => Effect.fail(ConfigError.SourceUnavailable([...path], "vault sealed", Cause.empty)),
        enumerateChildren: () => Effect.succeed(HashSet.empty<string>()),
        patch: ConfigProviderPathPatch.empty
      }))
      const outcome = yield* Effect.either(Effect.provide(RunLimits.RunLimits, RunLimits.layerConfig(keys).pipe(Layer.provide(Layer.setConfigProvider(failing)))))
      assert.isTrue(Either.isLeft(outcome) && ConfigError.isConfigError(outcome.left), String(outcome))
    }))

  it.effect.prop("a value from config decodes exactly as the same value given directly", [fc.integer({ min: -3, max: 5000 })], ([n]) =>
    Effect.gen(function*() {
      for (const key of ["APP_REPAIRS", "APP_ROUNDS", "APP_RESULT_BYTES"] as const) {
        const option = key === "APP_REPAIRS" ? "maxToolArgumentRepairs" : key === "APP_ROUNDS" ? "maxProviderRoundTrips" : "maxToolResultBytes"
        const fromConfig = yield* read([[key, String(n)]])
        const given = RunLimits.make({ [option]: n })
        assert.strictEqual(Either.isRight(fromConfig), Either.isRight(given), `${key}=${n}`)
        if (Either.isRight(fromConfig) && Either.isRight(given)) assert.deepStrictEqual(fromConfig.right, given.right)
      }
    }), { timeout: 60_000, fastCheck: { numRuns: 40 } })

  it.effect("layerEnv reads the TOOLGATE_* names of EnvConfig", () =>
    Effect.gen(function*() {
      const limits = yield* Effect.provide(
        RunLimits.RunLimits,
        RunLimits.layerEnv.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["TOOLGATE_TURN_DEADLINE_MS", "1500"]])))))
      )
      assert.deepStrictEqual(limits, { ...RunLimits.defaults, turnDeadlineMillis: 1500 })
    }))
})

/**
 * `ArgumentValidator.layerConfig` under keys the app names: the policy, per-tool overrides, tool chaining and
 * the depth limit reach `prepare`; a value the options' Schema refuses fails the build as `InvalidOptions`
 * naming the key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Either, Layer } from "effect"
import { ArgumentValidator, Tool } from "@toolgate/runtime"
import * as Policies from "../src/internal/argumentPolicy.js"

const weather = Tool.make("get_weather", {
  description: "w",
  parameters: { type: "object", properties: { days: { type: "integer" } }, required: ["days"], additionalProperties: false },
  execute: () => Effect.succeed("sunny")
})

const keys = {
  policy: Config.literal("lenient", "strict")("APP_POLICY"),
  policies: Config.string("APP_OVERRIDES").pipe(Config.mapOrFail(Policies.parseOverrides)),
  maxArgumentDepth: Config.integer("APP_DEPTH")
}

const built = (entries: ReadonlyArray<readonly [string, string]>) =>
  ArgumentValidator.layerConfig(keys).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))))

/** Whether `{ days: "3" }` (a string where an integer is due) is repaired: lenient, not strict. */
const lenientFor = (entries: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(ArgumentValidator.ArgumentValidator, (v) => Effect.either(v.prepare(weather, { days: "3" }, { callId: "c" }))).pipe(
    Effect.map(Either.isRight),
    Effect.provide(built(entries))
  )

describe("ArgumentValidator.layerConfig", () => {
  it.effect("the app's keys set the policy and the per-tool overrides; unset keys take the defaults", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* lenientFor([]))
      assert.isFalse(yield* lenientFor([["APP_POLICY", "strict"]]))
      assert.isTrue(yield* lenientFor([["APP_POLICY", "strict"], ["APP_OVERRIDES", "get_weather=lenient"]]))
      assert.isFalse(yield* lenientFor([["APP_OVERRIDES", "get_weather=strict"]]))
    }))

  it.effect("the depth limit from config reaches prepare", () =>
    Effect.gen(function*() {
      const deep = { days: 1, extra: { a: { b: { c: 1 } } } }
      const v = yield* Effect.provide(ArgumentValidator.ArgumentValidator, built([["APP_DEPTH", "2"]]))
      const error = yield* Effect.flip(v.prepare(weather, deep, { callId: "c" }))
      assert.strictEqual(error._tag, "InvalidToolArguments")
      assert.isTrue(error._tag === "InvalidToolArguments" && error.issues.some((i) => /deep|depth|nest/i.test(i.message)), JSON.stringify(error))
    }))

  it.effect("a value the Schema refuses, or malformed overrides, is InvalidOptions naming the app's key", () =>
    Effect.gen(function*() {
      for (
        const [entries, key] of [
          [[["APP_POLICY", "loose"]], "APP_POLICY"],
          [[["APP_OVERRIDES", "get_weather"]], "APP_OVERRIDES"],
          [[["APP_OVERRIDES", "a=STRICT"]], "APP_OVERRIDES"],
          [[["APP_DEPTH", "0"]], "APP_DEPTH"],
          [[["APP_DEPTH", "deep"]], "APP_DEPTH"]
        ] as const
      ) {
        const error = yield* Effect.flip(Effect.provide(ArgumentValidator.ArgumentValidator, built(entries)))
        assert.isTrue(error._tag === "InvalidOptions" && error.of === "ArgumentValidator" && error.detail.includes(key), String(error))
      }
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { EnvConfig, RunLimits } from "@toolgate/runtime"

/** Each limit's config key. */
const keys: { readonly [K in keyof typeof RunLimits.bounds]: string } = EnvConfig.names.RunLimits

/** The limits `layerEnv` reads when only `key` is set to `value`. */
const fromConfig = (key: string, value: number) =>
  RunLimits.RunLimits.pipe(
    Effect.provide(RunLimits.layerEnv),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([[key, String(value)]]))),
    Effect.either
  )

describe("RunLimits.bounds", () => {
  it.effect("the Schema and the config take each limit's least value and refuse one below it", () =>
    Effect.gen(function*() {
      for (const [name, least] of Object.entries(RunLimits.bounds) as ReadonlyArray<[keyof typeof RunLimits.bounds, number]>) {
        assert.isTrue(Either.isRight(RunLimits.make({ [name]: least })), name)
        const below = RunLimits.make({ [name]: least - 1 })
        assert.isTrue(Either.isLeft(below) && below.left._tag === "InvalidRunLimits", name)
        assert.isTrue(Either.isRight(yield* fromConfig(keys[name], least)), name)
        assert.isTrue(Either.isLeft(yield* fromConfig(keys[name], least - 1)), name)
      }
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { RunLimits } from "@toolgate/runtime"

/** Each limit's config key. */
const keys: { readonly [K in keyof typeof RunLimits.bounds]: string } = {
  maxToolArgumentRepairs: "TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS",
  maxProviderRoundTrips: "TOOLGATE_MAX_PROVIDER_ROUND_TRIPS",
  turnDeadlineMillis: "TOOLGATE_TURN_DEADLINE_MS",
  maxToolCallsPerTurn: "TOOLGATE_MAX_TOOL_CALLS_PER_TURN",
  maxToolCallsPerRound: "TOOLGATE_MAX_TOOL_CALLS_PER_ROUND",
  maxToolResultBytes: "TOOLGATE_MAX_TOOL_RESULT_BYTES"
}

const fromConfig = (key: string, value: number) =>
  Effect.either(Effect.withConfigProvider(RunLimits.config, ConfigProvider.fromMap(new Map([[key, String(value)]]))))

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

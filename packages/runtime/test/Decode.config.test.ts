/**
 * `Decode.fromConfig`: options read under the app's keys and checked field by field with the options' Schema.
 * Whatever a key holds, the answer is the options, a `ConfigError` or `InvalidOptions` naming the key: never a
 * defect, never a default taken in silence.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigError, ConfigProvider, Effect, Exit, FastCheck as fc, Schema } from "effect"
import * as Decode from "../src/Decode.js"

const Settings = Schema.Struct({
  baseUrl: Decode.HttpUrl,
  retries: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 5)), { exact: true }),
  timeout: Schema.optionalWith(Decode.PositiveDuration, { exact: true })
})

interface Options {
  readonly baseUrl: string
  readonly retries?: number
  readonly timeout?: string | number
}

const keys = { baseUrl: Config.string("SVC_URL"), retries: Config.integer("SVC_RETRIES") }

const read = (entries: ReadonlyArray<readonly [string, string]>, config: Config.Config.Wrap<Options> = keys) =>
  Decode.fromConfig<Options>("Svc", Settings, config).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries))))

describe("Decode.fromConfig", () => {
  it.effect("the values under the app's keys, unset optional keys left out (the Schema's defaults apply later)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read([["SVC_URL", "http://127.0.0.1:1"], ["SVC_RETRIES", "2"]]), { baseUrl: "http://127.0.0.1:1", retries: 2 })
      assert.deepStrictEqual(yield* read([["SVC_URL", "http://127.0.0.1:1"]]), { baseUrl: "http://127.0.0.1:1" })
    }))

  it.effect("a value the Schema refuses names the key and the option; a missing required key stays a ConfigError", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(read([["SVC_URL", "http://127.0.0.1:1"], ["SVC_RETRIES", "9"]]))
      assert.isTrue(refused._tag === "InvalidOptions" && refused.of === "Svc", String(refused))
      assert.include(String(refused), "SVC_RETRIES")
      assert.include(String(refused), "retries")
      const both = yield* Effect.flip(read([["SVC_URL", "mailto:x@y"], ["SVC_RETRIES", "-1"]]))
      assert.isTrue(both._tag === "InvalidOptions" && both.detail.includes("SVC_URL") && both.detail.includes("SVC_RETRIES"), String(both))
      const missing = yield* Effect.flip(read([["SVC_RETRIES", "1"]]))
      assert.isTrue(ConfigError.isConfigError(missing) && ConfigError.isMissingDataOnly(missing) && String(missing).includes("SVC_URL"))
    }))

  it.effect("one Config of all the options is read as given, for make to decode whole", () =>
    Effect.gen(function*() {
      const whole = Config.all({ baseUrl: Config.string("SVC_URL") })
      assert.deepStrictEqual(yield* read([["SVC_URL", "ftp://x"]], whole), { baseUrl: "ftp://x" })
    }))

  it.effect.prop("whatever text a key holds: the options or a typed error, never a defect", [fc.string({ maxLength: 64 }), fc.string({ maxLength: 16 })], ([url, retries]) =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(read([["SVC_URL", url], ["SVC_RETRIES", retries]]))
      if (Exit.isFailure(exit)) {
        assert.isFalse(exit.cause._tag === "Die", String(exit.cause))
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        assert.isTrue(failure !== undefined && (ConfigError.isConfigError(failure) || failure._tag === "InvalidOptions"), String(exit.cause))
      }
    }), { timeout: 60_000, fastCheck: { numRuns: 100 } })
})

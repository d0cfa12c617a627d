/**
 * `RelayProfileClient.layerConfig` under keys the app names: the values reach the probe (the request goes to
 * the configured relay and the answer is kept for the configured time), and a value the options' Schema
 * refuses fails the build as `InvalidOptions` naming the key.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { RelayProfile } from "@toolgate/runtime"
import { Config, ConfigError, ConfigProvider, Effect, Layer } from "effect"
import * as RelayProfileClient from "../src/RelayProfileClient.js"
import { answer, envelope, start } from "./support/relayDouble.js"

const keys = { baseUrl: Config.string("RELAY_BASE"), timeout: Config.duration("RELAY_WAIT"), timeToLive: Config.duration("RELAY_KEEP") }

const built = (entries: ReadonlyArray<readonly [string, string]>) =>
  RelayProfileClient.layerConfig(keys).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries))))
  )

describe("RelayProfileClient.layerConfig", () => {
  it.scopedLive("the app's keys reach the probe: its relay, and an answer kept for the time to live", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(envelope({ get_weather: { type: "object" } })))
      const probes = yield* Effect.flatMap(RelayProfile.RelayProfile, (p) => Effect.all([p.probe(), p.probe()])).pipe(
        Effect.provide(built([["RELAY_BASE", `${relay.url}/edge`], ["RELAY_WAIT", "2 seconds"], ["RELAY_KEEP", "1 hour"]]))
      )
      assert.deepStrictEqual(probes.map((p) => p._tag), ["Exported", "Exported"])
      assert.deepStrictEqual(relay.paths, ["/edge/v1/agent/capabilities"])
    }))

  it.scopedLive("a time to live of zero from config keeps nothing: every probe asks the relay", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(envelope({})))
      yield* Effect.flatMap(RelayProfile.RelayProfile, (p) => Effect.zipRight(p.probe(), p.probe())).pipe(
        Effect.provide(built([["RELAY_BASE", relay.url], ["RELAY_KEEP", "0 millis"]]))
      )
      assert.strictEqual(relay.requests(), 2)
    }))

  it.effect("a value the Schema refuses is InvalidOptions naming the app's key; a missing base URL is a ConfigError", () =>
    Effect.gen(function*() {
      for (
        const [entries, key] of [
          [[["RELAY_BASE", "gopher://relay"]], "RELAY_BASE"],
          [[["RELAY_BASE", "http://127.0.0.1:1"], ["RELAY_WAIT", "0 seconds"]], "RELAY_WAIT"],
          [[["RELAY_BASE", "http://127.0.0.1:1"], ["RELAY_WAIT", "Infinity"]], "RELAY_WAIT"],
          [[["RELAY_BASE", "http://127.0.0.1:1"], ["RELAY_KEEP", "a while"]], "RELAY_KEEP"]
        ] as const
      ) {
        const error = yield* Effect.flip(Effect.provide(RelayProfile.RelayProfile, built(entries)))
        assert.isTrue(error._tag === "InvalidOptions" && error.of === "RelayProfileClient" && error.detail.includes(key), String(error))
      }
      const missing = yield* Effect.flip(Effect.provide(RelayProfile.RelayProfile, built([])))
      assert.isTrue(ConfigError.isConfigError(missing) && String(missing).includes("RELAY_BASE"), String(missing))
    }))
})

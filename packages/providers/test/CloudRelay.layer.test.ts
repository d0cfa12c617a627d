import { assert, describe, it } from "@effect/vitest"
import { Provider, RelayProfile } from "@toolgate/runtime"
import { Config, ConfigError, ConfigProvider, Effect, Either, Exit, Layer, Stream } from "effect"
import * as CloudRelay from "../src/CloudRelay.js"
import * as RelayWire from "../src/RelayWire.js"
import type { Handler } from "./support/loopback.js"
import { answer, httpClient, start, stream } from "./support/loopback.js"
import { user } from "./support/messages.js"

const envelope = JSON.stringify({ capabilities_version: "1.0", tool_schemas: { get_weather: { type: "object" } } })

/** The profile endpoint answers the envelope; the turns endpoint answers with `turns`. */
const relay = (turns: Handler): Handler => (received, res, n) =>
  received.path.endsWith("/v1/agent/capabilities") ? answer(envelope, 200)(received, res, n) : turns(received, res, n)

const done = stream(RelayWire.encodeEvent({ _tag: "TextDelta", text: "hi" }), RelayWire.encodeEvent({ _tag: "Done" }))

/** Probes the relay profile and runs one round trip with the layer's services. */
const useBoth = Effect.gen(function*() {
  const probe = yield* (yield* RelayProfile.RelayProfile).probe()
  const provider = yield* Provider.Provider
  const events = yield* provider.stream({ messages: [user("hi")], tools: [], toolChoice: "auto" }).pipe(Stream.runCollect)
  return { probe, events: Array.from(events), name: provider.capabilities.name }
})

describe("CloudRelay layers", () => {
  it.scopedLive("layerWith: the provider and the relay profile probe, on the same base URL", () =>
    Effect.gen(function*() {
      const server = yield* start(relay(done))
      const layer = CloudRelay.layerWith({ baseUrl: `${server.url}/prefix` }).pipe(Layer.provide(httpClient))
      const { events, name, probe } = yield* useBoth.pipe(Effect.provide(layer))
      assert.strictEqual(name, "cloud-relay")
      assert.strictEqual(probe._tag, "Exported")
      assert.deepStrictEqual(events, [{ _tag: "TextDelta", text: "hi" }, { _tag: "Done" }])
      assert.deepStrictEqual(server.received.map((r) => r.path), ["/prefix/v1/agent/capabilities", "/prefix/v1/agent/turns"])
    }), 20_000)

  it.scopedLive("layerEnv reads TOOLGATE_RELAY_URL (and the timeouts) while the layer is built", () =>
    Effect.gen(function*() {
      const server = yield* start(relay((_received, _res) => {}))
      const config = ConfigProvider.fromMap(new Map([["TOOLGATE_RELAY_URL", server.url], ["TOOLGATE_RELAY_TIMEOUT", "300 millis"]]))
      const layer = CloudRelay.layerEnv.pipe(Layer.provide(httpClient), Layer.provide(Layer.setConfigProvider(config)))
      const outcome = yield* Effect.either(useBoth).pipe(Effect.provide(layer))
      // The turns endpoint never answers: the configured 300 ms bound it.
      assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "ProviderError")
      if (Either.isLeft(outcome) && outcome.left._tag === "ProviderError") {
        assert.strictEqual(outcome.left.reason, "the relay did not answer within 300ms")
        assert.isTrue(outcome.left.retryable)
      }
      assert.deepStrictEqual(server.received.map((r) => r.path), ["/v1/agent/capabilities", "/v1/agent/turns"])
    }), 20_000)

  it.scopedLive("layerEnv without TOOLGATE_RELAY_URL (a ConfigError), or with a value that is not one (InvalidOptions), fails naming the key", () =>
    Effect.gen(function*() {
      for (const entries of [[], [["TOOLGATE_RELAY_URL", "not a url"]], [["TOOLGATE_RELAY_URL", "http://127.0.0.1:1"], ["TOOLGATE_RELAY_TIMEOUT", "soon"]]] as const) {
        const config = ConfigProvider.fromMap(new Map(entries as ReadonlyArray<[string, string]>))
        const layer = CloudRelay.layerEnv.pipe(Layer.provide(httpClient), Layer.provide(Layer.setConfigProvider(config)))
        const exit = yield* Effect.exit(Effect.provide(Provider.Provider, layer))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(entries))
        if (Exit.isFailure(exit)) assert.include(String(exit.cause), "TOOLGATE_RELAY", JSON.stringify(entries))
      }
    }), 20_000)

  it.scopedLive("layerConfig: the app's keys reach the provider and the profile probe (its own timeout and time to live keys too)", () =>
    Effect.gen(function*() {
      const server = yield* start(relay((_received, _res) => {}))
      const config = ConfigProvider.fromMap(new Map([["APP_RELAY", `${server.url}/app`], ["APP_RELAY_WAIT", "300 millis"], ["APP_PROFILE_TTL", "1 hour"]]))
      const layer = CloudRelay.layerConfig(
        { baseUrl: Config.string("APP_RELAY"), timeout: Config.duration("APP_RELAY_WAIT") },
        { timeToLive: Config.duration("APP_PROFILE_TTL") }
      ).pipe(Layer.provide(httpClient), Layer.provide(Layer.setConfigProvider(config)))
      const outcome = yield* Effect.either(useBoth).pipe(Effect.provide(layer))
      assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "ProviderError" && outcome.left.reason === "the relay did not answer within 300ms")
      assert.deepStrictEqual(server.received.map((r) => r.path), ["/app/v1/agent/capabilities", "/app/v1/agent/turns"])
    }), 20_000)

  it.effect("layerConfig: a value its Schema refuses is InvalidOptions naming the app's key; a missing key is a ConfigError", () =>
    Effect.gen(function*() {
      const build = (entries: ReadonlyArray<readonly [string, string]>) =>
        Effect.flip(Effect.provide(
          Provider.Provider,
          CloudRelay.layerConfig(
            { baseUrl: Config.string("APP_RELAY"), maxRequestBytes: Config.integer("APP_MAX_BYTES") },
            { timeout: Config.duration("APP_PROFILE_WAIT") }
          ).pipe(Layer.provide(httpClient), Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))))
        ))
      for (
        const [entries, key] of [
          [[["APP_RELAY", "ftp://relay"]], "APP_RELAY"],
          [[["APP_RELAY", "http://127.0.0.1:1"], ["APP_MAX_BYTES", "12"]], "APP_MAX_BYTES"],
          [[["APP_RELAY", "http://127.0.0.1:1"], ["APP_PROFILE_WAIT", "0 seconds"]], "APP_PROFILE_WAIT"]
        ] as const
      ) {
        const error = yield* build(entries)
        assert.isTrue(error._tag === "InvalidOptions" && error.detail.includes(key), `${key}: ${String(error)}`)
      }
      const missing = yield* build([])
      assert.isTrue(ConfigError.isConfigError(missing) && ConfigError.isMissingDataOnly(missing) && String(missing).includes("APP_RELAY"))
    }))

  it.effect("layerWith on a base URL that cannot work fails as InvalidOptions while the layer is built", () =>
    Effect.gen(function*() {
      for (const baseUrl of ["ftp://relay", "relay:80", ""]) {
        const layer = CloudRelay.layerWith({ baseUrl }).pipe(Layer.provide(httpClient))
        const error = yield* Effect.flip(Effect.provide(Provider.Provider, layer))
        assert.strictEqual(error._tag, "InvalidOptions", baseUrl)
      }
    }))
})

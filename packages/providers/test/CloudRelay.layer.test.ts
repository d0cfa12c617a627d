import { assert, describe, it } from "@effect/vitest"
import { Provider, RelayProfile } from "@toolgate/runtime"
import { ConfigProvider, Effect, Either, Exit, Layer, Stream } from "effect"
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

  it.scopedLive("layerConfig reads TOOLGATE_RELAY_URL (and the timeouts) while the layer is built", () =>
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

  it.scopedLive("layerConfig without TOOLGATE_RELAY_URL, or with a URL that is not one, fails with a ConfigError", () =>
    Effect.gen(function*() {
      for (const entries of [[], [["TOOLGATE_RELAY_URL", "not a url"]], [["TOOLGATE_RELAY_URL", "http://127.0.0.1:1"], ["TOOLGATE_RELAY_TIMEOUT", "soon"]]] as const) {
        const config = ConfigProvider.fromMap(new Map(entries as ReadonlyArray<[string, string]>))
        const layer = CloudRelay.layerEnv.pipe(Layer.provide(httpClient), Layer.provide(Layer.setConfigProvider(config)))
        const exit = yield* Effect.exit(Effect.provide(Provider.Provider, layer))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(entries))
        if (Exit.isFailure(exit)) assert.include(String(exit.cause), "TOOLGATE_RELAY", JSON.stringify(entries))
      }
    }), 20_000)

  it.effect("layerWith on a base URL that cannot work fails as InvalidOptions while the layer is built", () =>
    Effect.gen(function*() {
      for (const baseUrl of ["ftp://relay", "relay:80", ""]) {
        const layer = CloudRelay.layerWith({ baseUrl }).pipe(Layer.provide(httpClient))
        const error = yield* Effect.flip(Effect.provide(Provider.Provider, layer))
        assert.strictEqual(error._tag, "InvalidOptions", baseUrl)
      }
    }))
})

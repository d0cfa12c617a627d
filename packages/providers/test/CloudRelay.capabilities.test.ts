import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Provider } from "@toolgate/runtime"
import * as CloudRelay from "../src/CloudRelay.js"
import * as Gemini from "../src/Gemini.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { httpClient } from "./support/loopback.js"

describe("CloudRelay capabilities", () => {
  it.effect("declares the defaults, and a relay whose model runs tools itself can say so", () =>
    Effect.gen(function*() {
      const plain = yield* CloudRelay.make({ baseUrl: "http://127.0.0.1:1" })
      assert.deepStrictEqual(plain.capabilities, { ...CloudRelay.capabilities, contextWindow: CloudRelay.contextWindowFor(CloudRelay.defaultMaxRequestBytes) })
      const driven = yield* CloudRelay.make({ baseUrl: "http://127.0.0.1:1", capabilities: { executionModel: "providerDriven" } })
      assert.strictEqual(driven.capabilities.executionModel, "providerDriven")
      assert.strictEqual(driven.capabilities.schemaDialect, "none")
      assert.strictEqual(CloudRelay.capabilities.executionModel, "appDriven")
    }).pipe(Effect.provide(httpClient)))

  it.effect("an override with an own __proto__ key stays data and pollutes nothing", () =>
    Effect.gen(function*() {
      const capabilities = JSON.parse(`{"__proto__":{"polluted":true},"maxTools":3}`)
      const provider = yield* CloudRelay.make({ baseUrl: "http://127.0.0.1:1", capabilities })
      assert.strictEqual(provider.capabilities.maxTools, 3)
      assert.isUndefined(({} as Record<string, unknown>).polluted)
    }).pipe(Effect.provide(httpClient)))

  it.effect("every provider decodes its capability overrides: a value of the wrong kind is InvalidOptions, never cast or defaulted", () =>
    Effect.gen(function*() {
      const hostile: ReadonlyArray<unknown> = [
        { supportsVision: "yes" },
        { executionModel: "sometimes" },
        { maxTools: -1 },
        { contextWindow: 1.5 },
        { toolDiscovery: { _tag: "SessionRebuild", maxRebuilds: "many" } },
        { name: 42 },
        "all of them",
        new Proxy({}, Object.fromEntries(["get", "has", "ownKeys", "getOwnPropertyDescriptor"].map((trap) => [trap, () => { throw new Error("trap") }])))
      ]
      const makes = [
        (capabilities: unknown) => CloudRelay.make({ baseUrl: "http://127.0.0.1:1", capabilities: capabilities as never }),
        (capabilities: unknown) => OpenAiCompatible.make({ baseUrl: "http://127.0.0.1:1/v1", model: "m", capabilities: capabilities as never }),
        (capabilities: unknown) => Gemini.make({ model: "gemini-2.5-flash", capabilities: capabilities as never })
      ]
      for (const make of makes) {
        for (const [i, capabilities] of hostile.entries()) {
          const error = yield* Effect.flip(make(capabilities))
          assert.strictEqual(error._tag, "InvalidOptions", `hostile override ${i}`)
        }
        const fine = yield* make({ supportsVision: true, maxTools: 7, name: "mine" })
        assert.deepInclude(fine.capabilities, { supportsVision: true, maxTools: 7, name: "mine" })
      }
    }).pipe(Effect.provide(httpClient)))

  it("Provider.capabilities fills in every capability a provider leaves out with its default", () => {
    const minimal = Provider.capabilities({ name: "minimal" })
    assert.deepStrictEqual(minimal, { name: "minimal", ...Provider.defaultCapabilities })
    assert.isTrue(minimal.requiresNetworking)
    assert.strictEqual(Provider.capabilities({ name: "x", requiresNetworking: false }).requiresNetworking, false)
  })
})

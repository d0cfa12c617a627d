import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as CloudRelay from "../src/CloudRelay.js"
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
})

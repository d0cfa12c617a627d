/**
 * Gemini's layers: `layerConfig` (the app's keys) and `layerEnv` (the `TOOLGATE_GEMINI_*` names) read the options while the layer is built and they reach the provider
 * (the request goes to the configured base URL, endpoint and model, with the configured credential);
 * missing config fails the build, not a request.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Config, ConfigProvider, Effect, Exit, Layer, Redacted, Stream } from "effect"
import { Provider } from "@toolgate/runtime"
import * as Gemini from "../src/Gemini.js"
import { fixture, replay, request, sent, start } from "./Gemini.support.js"

const oneRound = Effect.gen(function*() {
  const provider = yield* Provider.Provider
  return { name: provider.capabilities.name, events: Array.from(yield* Stream.runCollect(provider.stream(request()))) }
})

const configured = (map: ReadonlyArray<readonly [string, string]>) =>
  Gemini.layerEnv.pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(map)))))

describe("Gemini layers", () => {
  it.scopedLive("layerEnv: model, base URL and key from the TOOLGATE_GEMINI_* names reach every request", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const layer = configured([["TOOLGATE_GEMINI_MODEL", "gemini-2.5-pro"], ["TOOLGATE_GEMINI_BASE_URL", `${server.baseUrl}beta`], ["TOOLGATE_GEMINI_API_KEY", "from-config"]])
      const { events, name } = yield* oneRound.pipe(Effect.provide(layer))
      assert.strictEqual(name, "gemini")
      assert.strictEqual(events.at(-1)?._tag, "Done")
      assert.strictEqual(server.requests[0]!.path, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
      assert.strictEqual(server.requests[0]!.headers["x-goog-api-key"], "from-config")
    }))

  it.scopedLive("layerEnv: Cloud Code Assist with a token and a project from config", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("cca-claude-tool.txt")))
      const layer = configured([
        ["TOOLGATE_GEMINI_MODEL", "claude-sonnet-4-5"],
        ["TOOLGATE_GEMINI_ENDPOINT", "cloudCodeAssist"],
        ["TOOLGATE_GEMINI_BASE_URL", server.baseUrl],
        ["TOOLGATE_GEMINI_ACCESS_TOKEN", "ya29.config"],
        ["TOOLGATE_GEMINI_PROJECT", "proj-1"]
      ])
      const { events } = yield* oneRound.pipe(Effect.provide(layer))
      assert.strictEqual(events.at(-1)?._tag, "Done")
      assert.strictEqual(server.requests[0]!.path, "/v1/v1internal:streamGenerateContent?alt=sse")
      assert.strictEqual(server.requests[0]!.headers["authorization"], "Bearer ya29.config")
      assert.deepStrictEqual([sent(server).model, sent(server).project], ["claude-sonnet-4-5", "proj-1"])
    }))

  it.scopedLive("layerWith: options of the wrong type or shape fail the build with InvalidOptions and send nothing; valid ones reach the server", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const hostile: ReadonlyArray<unknown> = [
        null,
        42,
        "gemini-2.5-flash",
        [],
        { model: 42, baseUrl: server.baseUrl },
        { model: "   ", baseUrl: server.baseUrl },
        { model: "m", baseUrl: "javascript:alert(1)" },
        { model: "m", baseUrl: server.baseUrl, apiKey: "not redacted" },
        { model: "m", baseUrl: server.baseUrl, maxEventLength: -1 },
        JSON.parse(`{"__proto__":{"model":"m"},"baseUrl":"${server.baseUrl}"}`)
      ]
      for (const options of hostile) {
        const layer = Gemini.layerWith(options as Gemini.Options).pipe(Layer.provide(FetchHttpClient.layer))
        const error = yield* Effect.flip(oneRound.pipe(Effect.provide(layer)))
        assert.strictEqual(error._tag, "InvalidOptions", JSON.stringify(options))
      }
      assert.strictEqual(server.requests.length, 0)
      const layer = Gemini.layerWith({ model: "gemini-2.5-flash", baseUrl: server.baseUrl, apiKey: Redacted.make("k") }).pipe(Layer.provide(FetchHttpClient.layer))
      const { events } = yield* oneRound.pipe(Effect.provide(layer))
      assert.strictEqual(events.at(-1)?._tag, "Done")
      assert.strictEqual(server.requests.length, 1)
    }))

  it.effect("layerEnv without a model fails while the layer is built", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(oneRound.pipe(Effect.provide(configured([["TOOLGATE_GEMINI_API_KEY", "k"]]))))
      assert.isTrue(Exit.isFailure(exit))
    }))

  it.scopedLive("layerConfig: the app's keys reach every request", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const config = ConfigProvider.fromMap(new Map([["LLM_MODEL", "gemini-2.5-flash"], ["LLM_URL", `${server.baseUrl}beta`], ["LLM_KEY", "app-key"]]))
      const layer = Gemini.layerConfig({ model: Config.string("LLM_MODEL"), baseUrl: Config.string("LLM_URL"), apiKey: Config.redacted("LLM_KEY") }).pipe(
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.setConfigProvider(config))
      )
      const { events } = yield* oneRound.pipe(Effect.provide(layer))
      assert.strictEqual(events.at(-1)?._tag, "Done")
      assert.strictEqual(server.requests[0]!.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      assert.strictEqual(server.requests[0]!.headers["x-goog-api-key"], "app-key")
    }))

  it.effect("layerConfig: a blank model or a base URL that is not http(s) is InvalidOptions naming the app's key", () =>
    Effect.gen(function*() {
      for (const [entries, key] of [[[["LLM_MODEL", "  "]], "LLM_MODEL"], [[["LLM_MODEL", "m"], ["LLM_URL", "file:///etc"]], "LLM_URL"]] as const) {
        const layer = Gemini.layerConfig({ model: Config.string("LLM_MODEL"), baseUrl: Config.string("LLM_URL") }).pipe(
          Layer.provide(FetchHttpClient.layer),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries))))
        )
        const error = yield* Effect.flip(Effect.provide(Provider.Provider, layer))
        assert.isTrue(error._tag === "InvalidOptions" && error.of === "Gemini" && error.detail.includes(key), String(error))
      }
    }))
})

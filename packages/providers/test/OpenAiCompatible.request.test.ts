import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Config, ConfigProvider, Effect, Exit, JSONSchema, Layer, Redacted, Schema } from "effect"
import { Provider, ToolEnvelope } from "@toolgate/runtime"
import type { Message } from "@toolgate/runtime"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { collect, fixture, provider, replay, request, start } from "./OpenAiCompatible.support.js"
import type { Server } from "./OpenAiCompatible.support.js"

const ok = () => replay(fixture("openai-ollama-tools.txt"))

/** The JSON body of the server's `n`-th request (0-based). */
const sent = (server: Server, n = 0): Record<string, any> => JSON.parse(server.requests[n]!.body)

const weather: Provider.ToolDefinition = {
  name: "get_weather",
  description: "The weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true
}
const search: Provider.ToolDefinition = {
  name: "search",
  description: "Searches the web.",
  parameters: { type: "object", properties: { q: { type: "string" }, limit: { type: "integer" } }, required: ["q"] },
  strict: false
}

const success = ToolEnvelope.success({ temperature: 18, unit: "celsius" }, { tool: "get_weather" })
const failed = ToolEnvelope.failure("invalid_args", "`city` must be a string.", { tool: "get_weather" })

const history: ReadonlyArray<Message.Message> = [
  { _tag: "User", text: "Weather in Paris and Tokyo?" },
  {
    _tag: "Assistant",
    text: "",
    toolCalls: [
      { id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
      { id: "call_2", name: "get_weather", arguments: "{\"city\": 7}" },
      { id: "call_3", name: "clock" }
    ]
  },
  { _tag: "ToolResult", callId: "call_1", name: "get_weather", envelope: success },
  { _tag: "ToolResult", callId: "call_2", name: "get_weather", envelope: failed },
  { _tag: "ToolResult", callId: "call_3", name: "clock", envelope: ToolEnvelope.text("12:00") },
  { _tag: "Assistant", text: "Paris is 18°C.", toolCalls: [] },
  { _tag: "User", text: "And tomorrow?" }
]

describe("OpenAiCompatible: the request", () => {
  it.scopedLive("POSTs {baseUrl}/chat/completions streamed with usage, the model, JSON content and an event-stream accept", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      yield* collect(yield* provider({ ...server, baseUrl: `${server.baseUrl}//` }, { model: "qwen2.5:7b" }))
      const [req] = server.requests
      assert.strictEqual(req?.method, "POST")
      assert.strictEqual(req?.path, "/v1/chat/completions")
      assert.match(String(req?.headers["content-type"]), /^application\/json/)
      assert.match(String(req?.headers.accept), /text\/event-stream/)
      assert.isUndefined(req?.headers.authorization)
      const body = sent(server)
      assert.strictEqual(body.model, "qwen2.5:7b")
      assert.strictEqual(body.stream, true)
      assert.deepStrictEqual(body.stream_options, { include_usage: true })
      assert.deepStrictEqual(body.messages, [{ role: "user", content: "What is the weather in Paris and Tokyo?" }])
      for (const key of ["tools", "tool_choice", "response_format", "parallel_tool_calls"]) assert.notProperty(body, key)
    }), 30_000)

  it.scopedLive("maps the history: assistant tool_calls with arguments as JSON text, tool results as the envelope's JSON", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      yield* collect(yield* provider(server), request({ messages: history }))
      const messages = sent(server).messages
      assert.deepStrictEqual(messages[1], {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: "{\"city\": 7}" } },
          { id: "call_3", type: "function", function: { name: "clock", arguments: "{}" } }
        ]
      })
      assert.deepStrictEqual(messages.slice(2, 5).map((m: any) => [m.role, m.tool_call_id]), [["tool", "call_1"], ["tool", "call_2"], ["tool", "call_3"]])
      assert.strictEqual(messages[2].content, ToolEnvelope.encode(success))
      assert.deepStrictEqual(JSON.parse(messages[3].content), JSON.parse(ToolEnvelope.encode(failed)))
      assert.deepStrictEqual([JSON.parse(messages[3].content).ok, JSON.parse(messages[3].content).kind], [false, "invalid_args"])
      assert.deepStrictEqual(messages[5], { role: "assistant", content: "Paris is 18°C." })
      assert.deepStrictEqual(messages[6], { role: "user", content: "And tomorrow?" })
      assert.strictEqual(messages.length, 7)
    }), 30_000)

  it.scopedLive("tools as given, strict only when the definition says so; tool_choice only when not auto", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const p = yield* provider(server)
      for (const toolChoice of ["auto", "required", "none"] as const) yield* collect(p, request({ tools: [weather, search], toolChoice }))
      const [auto, required, none] = [0, 1, 2].map((n) => sent(server, n))
      assert.deepStrictEqual(auto!.tools, [
        { type: "function", function: { name: "get_weather", description: weather.description, parameters: weather.parameters, strict: true } },
        { type: "function", function: { name: "search", description: search.description, parameters: search.parameters } }
      ])
      assert.notProperty(auto!, "tool_choice")
      assert.strictEqual(required!.tool_choice, "required")
      assert.strictEqual(none!.tool_choice, "none")
      assert.notProperty(auto!, "parallel_tool_calls")
    }), 30_000)

  it.scopedLive("a provider declared without parallel calls asks for none", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const p = yield* provider(server, { capabilities: { supportsParallelToolCalls: false } })
      yield* collect(p, request({ tools: [weather] }))
      assert.strictEqual(sent(server).parallel_tool_calls, false)
    }), 30_000)

  it.scopedLive("structured output: response_format json_schema, strict only when the schema already is a strict one", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const p = yield* provider(server)
      const closed = JSONSchema.make(Schema.Struct({ city: Schema.String, celsius: Schema.Number }))
      const optional = JSONSchema.make(Schema.Struct({ city: Schema.String, celsius: Schema.optional(Schema.Number) }))
      yield* collect(p, request({ structuredOutput: closed as any }))
      yield* collect(p, request({ structuredOutput: optional as any }))
      const { $schema: _a, ...closedPlain } = closed as any
      const { $schema: _b, ...optionalPlain } = optional as any
      assert.deepStrictEqual(sent(server, 0).response_format, { type: "json_schema", json_schema: { name: "response", schema: closedPlain, strict: true } })
      assert.deepStrictEqual(sent(server, 1).response_format, { type: "json_schema", json_schema: { name: "response", schema: optionalPlain, strict: false } })
    }), 30_000)

  it.scopedLive("the API key is a bearer header", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      yield* collect(yield* provider(server, { apiKey: Redacted.make("sk-test-4f9a1c") }))
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-test-4f9a1c")
    }), 30_000)

  it.scopedLive("hostile: `__proto__` as a tool name, in arguments and in a schema stays data; 10,000-level parameters are sent", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      let deep: any = { type: "string" }
      for (let i = 0; i < 10_000; i++) deep = { type: "array", items: deep }
      const proto: Provider.ToolDefinition = {
        name: "__proto__",
        description: "constructor",
        parameters: JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":\"string\"},\"deep\":" + JSON.stringify({ type: "null" }) + "}}"),
        strict: false
      }
      const messages: ReadonlyArray<Message.Message> = [
        { _tag: "User", text: "go" },
        { _tag: "Assistant", text: "", toolCalls: [{ id: "__proto__", name: "__proto__", arguments: JSON.parse("{\"__proto__\":{\"polluted\":true}}") }] },
        { _tag: "ToolResult", callId: "__proto__", name: "__proto__", envelope: ToolEnvelope.success(JSON.parse("{\"__proto__\":1}")) }
      ]
      yield* collect(yield* provider(server), request({ messages, tools: [proto, { ...search, name: "deep", parameters: deep }] }))
      const body = server.requests[0]!.body
      assert.include(body, "\"arguments\":\"{\\\"__proto__\\\":{\\\"polluted\\\":true}}\"")
      const parsed = sent(server)
      assert.strictEqual(parsed.tools[0].function.name, "__proto__")
      assert.isTrue(Object.hasOwn(parsed.tools[0].function.parameters.properties, "__proto__"))
      assert.strictEqual(parsed.messages[2].tool_call_id, "__proto__")
      assert.isUndefined(({} as any).polluted)
      assert.strictEqual(body.split("\"items\"").length - 1, 10_000)
    }), 30_000)

  it.scopedLive("hostile: a request JSON cannot hold is a ProviderError (not retryable) and nothing is sent", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const cycle: any = { a: 1 }
      cycle.self = cycle
      const exit = yield* Effect.exit(collect(yield* provider(server), request({ tools: [{ ...search, parameters: cycle }] })))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      assert.include(String(error), "cannot be written as JSON")
      assert.strictEqual(server.requests.length, 0)
    }), 30_000)
})

describe("OpenAiCompatible: capabilities, tools and wiring", () => {
  it.effect("declares its capabilities; options override single flags", () =>
    Effect.gen(function*() {
      assert.strictEqual(OpenAiCompatible.capabilities.name, "openai-compatible")
      assert.strictEqual(OpenAiCompatible.capabilities.executionModel, "appDriven")
      assert.strictEqual(OpenAiCompatible.capabilities.schemaDialect, "openai-strict")
      assert.isFalse(OpenAiCompatible.capabilities.managedConversation)
      const p = yield* OpenAiCompatible.make({ baseUrl: "http://127.0.0.1:1/v1", model: "m", capabilities: { requiresNetworking: false, contextWindow: 8192 } }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      assert.deepStrictEqual(p.capabilities, { ...OpenAiCompatible.capabilities, model: "m", requiresNetworking: false, contextWindow: 8192 })
    }))

  it.effect("validateTools warns about names OpenAI refuses and passes the others", () =>
    Effect.gen(function*() {
      const p = yield* OpenAiCompatible.make({ baseUrl: "http://127.0.0.1:1/v1", model: "m" }).pipe(Effect.provide(FetchHttpClient.layer))
      const warnings = yield* p.validateTools!([weather, { ...search, name: "web.search" }, { ...search, name: "x".repeat(65) }, { ...search, name: "__proto__" }])
      assert.deepStrictEqual(warnings.map((w) => w.tool), ["web.search", "x".repeat(65)])
    }))

  it.effect("a base URL, timeout or limit that is not one fails as InvalidOptions while building", () =>
    Effect.gen(function*() {
      const bad = [{ baseUrl: "not a url" }, { baseUrl: "file:///etc/passwd" }, { baseUrl: 42 as any }, { timeout: 0 }, { timeout: Number.NaN }, {
        timeout: "soon" as any
      }, { model: "" }, { idleTimeout: -1 }, { maxRoundBytes: -5 }]
      for (const options of bad) {
        const error = yield* Effect.flip(OpenAiCompatible.make({ baseUrl: "http://127.0.0.1:1/v1", model: "m", ...options }).pipe(Effect.provide(FetchHttpClient.layer)))
        assert.strictEqual(error._tag, "InvalidOptions", JSON.stringify(options))
        assert.strictEqual(error.of, "OpenAiCompatible")
      }
    }))

  it.scopedLive("layerWith provides the provider for its options", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const live = OpenAiCompatible.layerWith({ baseUrl: server.baseUrl, model: "phi-4", capabilities: { name: "local-phi" } }).pipe(Layer.provide(FetchHttpClient.layer))
      const p = yield* Effect.provide(Provider.Provider, live)
      assert.strictEqual(p.capabilities.name, "local-phi")
      assert.strictEqual((yield* collect(p)).at(-1)?._tag, "Done")
      assert.strictEqual(sent(server).model, "phi-4")
    }), 30_000)

  it.scopedLive("layerEnv reads the base URL, the model and the redacted key while the layer is built", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const config = ConfigProvider.fromMap(new Map([
        ["TOOLGATE_OPENAI_BASE_URL", server.baseUrl],
        ["TOOLGATE_OPENAI_MODEL", "llama-3.1-8b"],
        ["TOOLGATE_OPENAI_API_KEY", "sk-config-77"]
      ]))
      const live = OpenAiCompatible.layerEnv.pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.setConfigProvider(config)))
      const p = yield* Effect.provide(Provider.Provider, live)
      yield* collect(p)
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-config-77")
      assert.strictEqual(sent(server).model, "llama-3.1-8b")
      const keyless = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["TOOLGATE_OPENAI_BASE_URL", server.baseUrl], ["TOOLGATE_OPENAI_MODEL", "m"]])))
      yield* collect(yield* Effect.provide(Provider.Provider, OpenAiCompatible.layerEnv.pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(keyless))))
      assert.isUndefined(server.requests[1]?.headers.authorization)
    }), 30_000)

  it.scopedLive("layerConfig: the app's keys reach the request, the key redacted", () =>
    Effect.gen(function*() {
      const server = yield* start(ok())
      const config = ConfigProvider.fromMap(new Map([["LLM_URL", server.baseUrl], ["LLM_MODEL", "qwen-3"], ["LLM_KEY", "sk-app-1"], ["LLM_WAIT", "30 seconds"]]))
      const live = OpenAiCompatible.layerConfig({
        baseUrl: Config.string("LLM_URL"),
        model: Config.string("LLM_MODEL"),
        apiKey: Config.redacted("LLM_KEY"),
        timeout: Config.duration("LLM_WAIT")
      }).pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.setConfigProvider(config)))
      yield* collect(yield* Effect.provide(Provider.Provider, live))
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-app-1")
      assert.strictEqual(sent(server).model, "qwen-3")
    }), 30_000)

  it.effect("layerConfig: a value its Schema refuses is InvalidOptions naming the app's key, never a default", () =>
    Effect.gen(function*() {
      for (
        const [entries, key] of [
          [[["LLM_URL", "ws://127.0.0.1:1"], ["LLM_MODEL", "m"]], "LLM_URL"],
          [[["LLM_URL", "http://127.0.0.1:1/v1"], ["LLM_MODEL", ""]], "LLM_MODEL"],
          [[["LLM_URL", "http://127.0.0.1:1/v1"], ["LLM_MODEL", "m"], ["LLM_WAIT", "0 millis"]], "LLM_WAIT"],
          [[["LLM_URL", "http://127.0.0.1:1/v1"], ["LLM_MODEL", "m"], ["LLM_WAIT", "soon"]], "LLM_WAIT"]
        ] as const
      ) {
        const live = OpenAiCompatible.layerConfig({ baseUrl: Config.string("LLM_URL"), model: Config.string("LLM_MODEL"), timeout: Config.duration("LLM_WAIT") }).pipe(
          Layer.provide(FetchHttpClient.layer),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries))))
        )
        const error = yield* Effect.flip(Effect.provide(Provider.Provider, live))
        assert.isTrue(error._tag === "InvalidOptions" && error.of === "OpenAiCompatible" && error.detail.includes(key), String(error))
      }
    }))

  it.effect("layerEnv without a model (a ConfigError) or with a base URL that is not a URL (InvalidOptions) fails naming the key", () =>
    Effect.gen(function*() {
      for (const entries of [[["TOOLGATE_OPENAI_BASE_URL", "http://127.0.0.1:1/v1"]], [["TOOLGATE_OPENAI_BASE_URL", "::nope"], ["TOOLGATE_OPENAI_MODEL", "m"]]] as const) {
        const live = OpenAiCompatible.layerEnv.pipe(
          Layer.provide(FetchHttpClient.layer),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries as ReadonlyArray<readonly [string, string]>))))
        )
        const exit = yield* Effect.exit(Effect.provide(Provider.Provider, live))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "TOOLGATE_OPENAI")
      }
    }))
})

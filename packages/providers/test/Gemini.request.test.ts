/**
 * What the Gemini provider sends, as a loopback server receives it: the path with `alt=sse`, the
 * credential header, `contents` (roles, merged function responses carrying envelopes), function
 * declarations on `parametersJsonSchema` in the google dialect, or on legacy `parameters` in the CCA
 * dialect for Claude on Cloud Code Assist (with the per-tool fallback reported by `validateTools`),
 * tool choice and structured output; and the capabilities and options it is built with.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Exit, Redacted } from "effect"
import { Normalize } from "@toolgate/json-schema"
import type { Message, Provider } from "@toolgate/runtime"
import * as Gemini from "../src/Gemini.js"
import { collect, fixture, provider, replay, request, sent, start } from "./Gemini.support.js"

const weather: Provider.ToolDefinition = {
  name: "get_weather",
  description: "The forecast for a city",
  parameters: {
    type: "object",
    properties: {
      city: { type: "string", minLength: 1 },
      days: { type: ["integer", "null"], format: "int32", minimum: 1 },
      units: { anyOf: [{ enum: ["c", "f"] }, { type: "null" }] }
    },
    required: ["city", "days"],
    additionalProperties: false
  },
  strict: false
}
/** A schema the CCA pipeline cannot keep (an unknown type name fails the 2020-12 meta-schema). */
const broken: Provider.ToolDefinition = {
  name: "broken",
  description: "Its schema names a type that does not exist",
  parameters: { type: "object", properties: { x: { type: "strnig" } } } as never,
  strict: false
}

const history: ReadonlyArray<Message.Message> = [
  { _tag: "User", text: "Weather in Paris and Tokyo?" },
  {
    _tag: "Assistant",
    text: "",
    toolCalls: [
      { id: "c1", name: "get_weather", arguments: { city: "Paris", days: 3 } },
      { id: "c2", name: "get_weather", arguments: "{\"city\":\"Tokyo\",\"days\":\"3\"}" }
    ]
  },
  { _tag: "ToolResult", callId: "c1", name: "get_weather", envelope: { ok: true, result: { celsius: 18 } } },
  {
    _tag: "ToolResult",
    callId: "c2",
    name: "get_weather",
    envelope: { ok: false, kind: "invalid_args", message: "days: expected integer", tool: "get_weather", retryable: true }
  },
  { _tag: "Assistant", text: "Paris is 18 °C.", toolCalls: [] },
  { _tag: "User", text: "Thanks" }
]

describe("Gemini request", () => {
  it.scopedLive("the Gemini API: path with alt=sse, x-goog-api-key, contents by role, envelopes in functionResponse, declarations on parametersJsonSchema", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      yield* collect(yield* provider(server), request({ messages: history, tools: [weather], toolChoice: "required" }))
      const received = server.requests[0]!
      assert.strictEqual(received.method, "POST")
      assert.strictEqual(received.path, "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      assert.strictEqual(received.headers["x-goog-api-key"], "AIzaSy-test-key-0123456789")
      assert.strictEqual(received.headers["authorization"], undefined)
      assert.strictEqual(received.headers["content-type"], "application/json")
      const body = sent(server)
      assert.deepStrictEqual(body.contents, [
        { role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] },
        {
          role: "model",
          parts: [
            { functionCall: { id: "c1", name: "get_weather", args: { city: "Paris", days: 3 } } },
            { functionCall: { id: "c2", name: "get_weather", args: { city: "Tokyo", days: "3" } } }
          ]
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "c1", name: "get_weather", response: { ok: true, result: { celsius: 18 } } } },
            {
              functionResponse: {
                id: "c2",
                name: "get_weather",
                response: { ok: false, kind: "invalid_args", message: "days: expected integer", tool: "get_weather", retryable: true }
              }
            }
          ]
        },
        { role: "model", parts: [{ text: "Paris is 18 °C." }] },
        { role: "user", parts: [{ text: "Thanks" }] }
      ])
      assert.deepStrictEqual(body.tools, [{
        functionDeclarations: [{ name: "get_weather", description: "The forecast for a city", parametersJsonSchema: Normalize.google(weather.parameters).schema }]
      }])
      // the google dialect: no additionalProperties, a nullable scalar type, constraints spilled into the description
      const days = body.tools[0].functionDeclarations[0].parametersJsonSchema.properties.days
      assert.deepStrictEqual([days.type, days.nullable, days.format], ["integer", true, undefined])
      assert.deepStrictEqual(body.toolConfig, { functionCallingConfig: { mode: "ANY" } })
      assert.isUndefined(body.generationConfig)
      assert.isUndefined(body.model)
    }))

  it.scopedLive("tool choices map to AUTO (left out), ANY and NONE; no tools, no tools field; structured output asks for JSON", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const gemini = yield* provider(server)
      for (const toolChoice of ["auto", "none"] as const) yield* collect(gemini, request({ tools: [weather], toolChoice }))
      yield* collect(gemini, request({ structuredOutput: { type: "object", properties: { answer: { type: "string", pattern: "^[A-Z]" } }, required: ["answer"] } }))
      assert.isUndefined(sent(server, 0).toolConfig)
      assert.deepStrictEqual(sent(server, 1).toolConfig, { functionCallingConfig: { mode: "NONE" } })
      const structured = sent(server, 2)
      assert.isUndefined(structured.tools)
      assert.deepStrictEqual(structured.generationConfig, {
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: { answer: { type: "string", description: "{pattern: \"^[A-Z]\"}" } }, required: ["answer"] }
      })
    }))

  it.scopedLive("Claude on Cloud Code Assist: /v1internal, a bearer token, { model, project, request }, Normalize.cca on legacy parameters; the fallback is a warning", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("cca-claude-tool.txt")))
      const claude = yield* provider(server, {
        endpoint: "cloudCodeAssist",
        model: "claude-sonnet-4-5",
        project: "toolgate-test",
        apiKey: undefined as never,
        accessToken: Redacted.make("ya29.test-token")
      })
      assert.isFalse(claude.capabilities.supportsStructuredOutput)
      assert.strictEqual(claude.capabilities.schemaDialect, "none")
      yield* collect(claude, request({ messages: history, tools: [weather, broken] }))
      const received = server.requests[0]!
      assert.strictEqual(received.path, "/v1/v1internal:streamGenerateContent?alt=sse")
      assert.strictEqual(received.headers["authorization"], "Bearer ya29.test-token")
      assert.strictEqual(received.headers["x-goog-api-key"], undefined)
      const body = sent(server)
      assert.deepStrictEqual(Object.keys(body).sort(), ["model", "project", "request"])
      assert.deepStrictEqual([body.model, body.project], ["claude-sonnet-4-5", "toolgate-test"])
      const declarations = body.request.tools[0].functionDeclarations
      assert.deepStrictEqual(declarations[0], { name: "get_weather", description: "The forecast for a city", parameters: Normalize.cca(weather.parameters).schema })
      // CCA: no nullable, no type arrays, no combiners; nullable properties leave `required`
      assert.deepStrictEqual(declarations[0].parameters.required, ["city"])
      assert.notInclude(JSON.stringify(declarations[0].parameters), "nullable")
      assert.deepStrictEqual(declarations[1], { name: "broken", description: "Its schema names a type that does not exist", parameters: { type: "object", properties: {} } })
      assert.isFalse(declarations.some((d: object) => "parametersJsonSchema" in d))
      assert.deepStrictEqual(body.request.contents.map((c: { role: string }) => c.role), ["user", "model", "user", "model", "user"])
      assert.strictEqual(body.request.contents[2].parts[1].functionResponse.response.kind, "invalid_args")

      const warnings = yield* claude.validateTools!([weather, broken])
      assert.deepStrictEqual(warnings.map((w) => w.tool), ["broken"])
      assert.include(warnings[0]!.message, "Claude via CCA cannot take this schema")
      // the google dialect keeps the broken schema as it is (Gemini judges it), so no warning there
      assert.deepStrictEqual(yield* (yield* provider(server)).validateTools!([weather, broken]), [])
    }))

  it.scopedLive("a system instruction and generation settings from the options go out with every request, beside structured output", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const gemini = yield* provider(server, {
        systemInstruction: "Answer in one sentence.",
        generationConfig: { temperature: 0.2, maxOutputTokens: 512, thinkingConfig: { thinkingBudget: 0 } }
      })
      yield* collect(gemini)
      yield* collect(gemini, request({ structuredOutput: { type: "object" } }))
      assert.deepStrictEqual(sent(server, 0).systemInstruction, { parts: [{ text: "Answer in one sentence." }] })
      assert.deepStrictEqual(sent(server, 0).generationConfig, { temperature: 0.2, maxOutputTokens: 512, thinkingConfig: { thinkingBudget: 0 } })
      assert.deepStrictEqual(sent(server, 1).generationConfig, {
        temperature: 0.2,
        maxOutputTokens: 512,
        thinkingConfig: { thinkingBudget: 0 },
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: {} }
      })
      const exit = yield* Effect.exit(provider(server, { generationConfig: { maxOutputTokens: -1 } }))
      assert.isTrue(Exit.isFailure(exit))
      // the session's system prompt follows the options' instruction; its sampling goes over the options' settings
      yield* collect(gemini, request({ systemPrompt: "You are terse.", sampling: { temperature: 0.9, topP: 0.5, maxTokens: 64 } }))
      assert.deepStrictEqual(sent(server, 2).systemInstruction, { parts: [{ text: "Answer in one sentence.\n\nYou are terse." }] })
      assert.deepStrictEqual(sent(server, 2).generationConfig, { temperature: 0.9, maxOutputTokens: 64, topP: 0.5, thinkingConfig: { thinkingBudget: 0 } })
      yield* collect(yield* provider(server), request({ systemPrompt: "Only this." }))
      assert.deepStrictEqual(sent(server, 3).systemInstruction, { parts: [{ text: "Only this." }] })
    }))

  it.scopedLive("Gemini 3: a model turn whose calls lost their thought signature gets Google's sentinel on its first call; Gemini 2.5 gets none", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      for (const model of ["gemini-3-pro-preview", "gemini-2.5-flash"]) yield* collect(yield* provider(server, { model }), request({ messages: history }))
      const calls = (n: number) => sent(server, n).contents[1].parts.map((p: { thoughtSignature?: string }) => p.thoughtSignature)
      assert.deepStrictEqual(calls(0), ["skip_thought_signature_validator", undefined])
      assert.deepStrictEqual(calls(1), [undefined, undefined])
    }))

  it.scopedLive("Gemini models on Cloud Code Assist keep the google dialect on parametersJsonSchema", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("cca-claude-tool.txt")))
      const gemini = yield* provider(server, { endpoint: "cloudCodeAssist", model: "gemini-2.5-pro" })
      yield* collect(gemini, request({ tools: [weather] }))
      const declaration = sent(server).request.tools[0].functionDeclarations[0]
      assert.deepStrictEqual(declaration.parametersJsonSchema, Normalize.google(weather.parameters).schema)
      assert.isUndefined(declaration.parameters)
      assert.isUndefined(sent(server).project)
    }))

  it("argumentsObject: truncated or non-object JSON text and wrong types are {}; a __proto__ key stays an own key; 10,000 levels parse", () => {
    const hostile: ReadonlyArray<unknown> = ["{\"city\":", "", "null", "[1,2]", "\"text\"", "42", `{"a":"${"x".repeat(1_000_000)}`, 42, null, undefined, [{ a: 1 }], true]
    for (const args of hostile) assert.deepStrictEqual(Gemini.argumentsObject(args as never), {}, String(args).slice(0, 30))
    const proto = Gemini.argumentsObject("{\"__proto__\":{\"polluted\":true}}")
    assert.deepStrictEqual(Object.keys(proto), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(proto), Object.prototype)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    const deep = Gemini.argumentsObject(`{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)
    assert.deepStrictEqual(Object.keys(deep), ["x"])
    const given = { city: "Oslo" }
    assert.strictEqual(Gemini.argumentsObject(given), given)
  })

  it.scopedLive("path: a model name with ../, ?, # and % stays one encoded segment under the base URL, on the wire too; hostile argument text goes as {}", () =>
    Effect.gen(function*() {
      const model = "models/../../evil?key=1#frag%2F"
      const expected = "/models/..%2F..%2Fevil%3Fkey%3D1%23frag%252F:streamGenerateContent?alt=sse"
      assert.strictEqual(Gemini.path("gemini", model), expected)
      assert.strictEqual(Gemini.path("cloudCodeAssist", model), "/v1internal:streamGenerateContent?alt=sse")
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const gemini = yield* provider(server, { model })
      const calls = [
        { id: "c1", name: "t", arguments: "{\"city\":" },
        { id: "c2", name: "t", arguments: "{\"__proto__\":{\"polluted\":true}}" }
      ]
      const messages: ReadonlyArray<Message.Message> = [
        { _tag: "User", text: "hi" },
        { _tag: "Assistant", text: "", toolCalls: calls },
        ...calls.map((c): Message.Message => ({ _tag: "ToolResult", callId: c.id, name: c.name, envelope: { ok: true, result: null } }))
      ]
      yield* collect(gemini, request({ messages }))
      assert.strictEqual(server.requests[0]!.path, `${new URL(server.baseUrl).pathname}${expected}`)
      const args = sent(server).contents[1].parts.map((p: { functionCall: { args: unknown } }) => p.functionCall.args)
      assert.deepStrictEqual(args, [{}, JSON.parse("{\"__proto__\":{\"polluted\":true}}")])
    }))

  it.effect("capabilities, tool-name warnings and options decoded once", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        [Gemini.capabilities.executionModel, Gemini.capabilities.supportsParallelToolCalls, Gemini.capabilities.supportsToolChoice, Gemini.capabilities.schemaDialect],
        ["appDriven", true, true, "none"]
      )
      assert.strictEqual(Gemini.dialect("cloudCodeAssist", "claude-opus-4-1"), "cca")
      assert.strictEqual(Gemini.dialect("gemini", "claude-opus-4-1"), "google")
      assert.strictEqual(Gemini.path("gemini", "models/gemini-2.5-flash"), "/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      const server = { baseUrl: "http://127.0.0.1:9/v1", requests: [] }
      const gemini = yield* provider(server, { capabilities: { contextWindow: 1_048_576 } })
      assert.strictEqual(gemini.capabilities.contextWindow, 1_048_576)
      const warnings = yield* gemini.validateTools!([{ ...weather, name: "9lives" }, weather])
      assert.deepStrictEqual(warnings.map((w) => w.tool), ["9lives"])
      for (const bad of [{ model: "" }, { baseUrl: "ftp://example.com" }, { timeout: "soon" }, { maxRoundBytes: 0 }, { endpoint: "vertex" }] as const) {
        const made = Gemini.make({ baseUrl: server.baseUrl, model: "gemini-2.5-flash", ...bad } as Gemini.Options)
        const error = yield* Effect.flip(made.pipe(Effect.provide(FetchHttpClient.layer)))
        assert.strictEqual(error._tag, "InvalidOptions", JSON.stringify(bad))
        assert.strictEqual(error.of, "Gemini")
      }
    }))
})

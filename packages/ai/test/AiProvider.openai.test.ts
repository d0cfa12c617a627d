/**
 * `AiProvider` over the real `OpenAiLanguageModel` (`@effect/ai-openai`, the Responses API) against a
 * loopback server replaying recorded Responses streams, through `AgentSession`, with the `openAi`
 * declaration: tools go out in the `openai-strict` dialect with `strict: true` (as `OpenAiLanguageModel`
 * sends them), a `null` for an optional property comes back and is dropped, `days: "15"` runs as 15.
 */
import { assert, describe, it } from "@effect/vitest"
import { AgentSession, ArgumentValidator, Tool, Toolkit } from "@toolgate/runtime"
import { Effect } from "effect"
import { AiProvider } from "../src/index.js"
import { hang, json, serve, sse } from "./support/loopback.js"
import * as Responses from "./support/responses.js"
import { forecastTool, languageModel } from "./support/session.js"

const { completed, created, functionCall, message } = Responses

const session = (url: string, toolkit: Toolkit.Toolkit<never>) =>
  Effect.gen(function*() {
    const model = yield* languageModel(Responses.model(url))
    return yield* AgentSession.make({ provider: AiProvider.fromLanguageModel(model, AiProvider.openAi), toolkit, mode: "local" })
  })

describe("AiProvider over OpenAiLanguageModel (Responses streaming wire on loopback)", () => {
  it.scopedLive("strict tools out, days \"15\" and a null optional back: the tool runs with { city, days: 15 }", () =>
    Effect.gen(function*() {
      const server = yield* serve([
        sse(...created(), ...functionCall(0, "call_1", "get_forecast", "{\"city\":\"Oslo\",", "\"days\":\"15\",\"units\":null}"), ...completed(300, 25)),
        sse(...created(), ...message(0, "Oslo: sunny ", "for 15 days."), ...completed(420, 9))
      ])
      const { ran, toolkit } = forecastTool()
      const turn = yield* (yield* session(server.url, yield* toolkit)).send("Forecast for Oslo, 15 days?")

      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }])
      assert.strictEqual(turn.text, "Oslo: sunny for 15 days.")
      assert.deepStrictEqual([turn.usage.inputTokens, turn.usage.outputTokens, turn.usage.repairs], [720, 34, 0])

      const [first, second] = server.requests
      assert.strictEqual(first!.path, "/v1/responses")
      const tool = first!.body.tools[0]
      assert.deepStrictEqual([tool.type, tool.name, tool.strict], ["function", "get_forecast", true])
      assert.deepStrictEqual(tool.parameters.required, ["city", "days", "units"]) // strict: every property required…
      assert.isFalse(tool.parameters.additionalProperties)
      assert.include(JSON.stringify(tool.parameters.properties.units), "null") // …and the optional one nullable
      assert.strictEqual(first!.body.tool_choice, "auto")
      const output = second!.body.input.find((item: any) => item.type === "function_call_output")
      assert.strictEqual(output.call_id, "call_1")
      assert.deepStrictEqual(JSON.parse(output.output), turn.calls[0]!.envelope)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("a tool whose schema cannot be made strict is refused before any request (OpenAI would answer 400)", () =>
    Effect.gen(function*() {
      const server = yield* serve([])
      const tags = Tool.make("set_tags", {
        description: "Tags as a map of name to value",
        parameters: { type: "object", additionalProperties: { type: "string" } },
        execute: () => Effect.void
      })
      const error = yield* Effect.flip((yield* session(server.url, yield* Toolkit.make(tags))).send("Tag it."))
      assert.strictEqual(error._tag, "ToolsRejected")
      assert.isTrue(error._tag === "ToolsRejected" && error.tool === "set_tags" && error.provider === "openai")
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("HTTP 429 is a retryable ProviderError with the server's message", () =>
    Effect.gen(function*() {
      const server = yield* serve([json({ error: { message: "Rate limit reached for gpt-4.1", type: "requests" } }, 429)])
      const { toolkit } = forecastTool()
      const error = yield* Effect.flip((yield* session(server.url, yield* toolkit)).send("Forecast?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "HTTP 429")
      assert.include(error.message, "Rate limit reached")
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("arguments that are not JSON: OpenAiLanguageModel fails the round (MalformedOutput), not retryable, nothing runs", () =>
    Effect.gen(function*() {
      const server = yield* serve([sse(...created(), ...functionCall(0, "call_1", "get_forecast", "{\"city\":\"Oslo\",\"days\":"), ...completed(10, 5))])
      const { ran, toolkit } = forecastTool()
      const error = yield* Effect.flip((yield* session(server.url, yield* toolkit)).send("Forecast?"))
      assert.isTrue(error._tag === "ProviderError" && !error.retryable)
      assert.include(error.message, "could not be read")
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("a server that stops after its headers and first events (silent, or trickling keep-alive comments): the turn deadline ends it with TurnDeadlineExceeded, nothing runs", () =>
    Effect.gen(function*() {
      for (const trickleMs of [undefined, 50]) {
        const server = yield* serve([hang([...created(), ...functionCall(0, "call_1", "get_forecast", "{\"city\":").slice(0, -1)], trickleMs)])
        const { ran, toolkit } = forecastTool()
        const model = yield* languageModel(Responses.model(server.url))
        const provider = AiProvider.fromLanguageModel(model, AiProvider.openAi)
        const s = yield* AgentSession.make({ provider, toolkit: yield* toolkit, mode: "local", limits: { turnDeadlineMillis: 500 } })
        const error = yield* Effect.flip(s.send("Forecast for Oslo?"))
        assert.strictEqual(error._tag, "TurnDeadlineExceeded", `${String(trickleMs)}: ${error.message}`)
        assert.strictEqual(error._tag === "TurnDeadlineExceeded" ? error.limitMillis : 0, 500)
        assert.deepStrictEqual(ran, [])
        assert.strictEqual(server.requests.length, 1)
      }
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("one event past @effect/ai's 10 MiB SSE bound ends the turn with a ProviderError that is not retried, not a defect", () =>
    Effect.gen(function*() {
      const server = yield* serve([sse(...created(), ...message(0, "x".repeat(11 * 1024 * 1024)), ...completed(1, 1))])
      const { ran, toolkit } = forecastTool()
      const error = yield* Effect.flip((yield* session(server.url, yield* toolkit)).send("Say a lot."))
      assert.strictEqual(error._tag, "ProviderError", error.message)
      if (error._tag !== "ProviderError") return
      assert.isFalse(error.retryable)
      assert.match(error.message, /the model library failed while reading the answer/)
      assert.match(error.cause ?? "", /maximum size/)
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(ArgumentValidator.layer)))
})

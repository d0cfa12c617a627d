/**
 * `AiProvider` over the real `@effect/ai-anthropic` against a loopback server speaking the Anthropic
 * Messages streaming wire (recorded event sequences), through `AgentSession`: the prototype's coercion,
 * a repair, what goes out (tools, tool choice, tool results as envelopes), usage, and every way a
 * stream can fail: a malformed event, an HTTP error, an `error` event, a connection cut mid-stream.
 */
import { assert, describe, it } from "@effect/vitest"
import { AgentSession, ArgumentValidator, ToolEnvelope } from "@toolgate/runtime"
import { Effect, Schema } from "effect"
import { AiProvider } from "../src/index.js"
import * as Anthropic from "./support/anthropic.js"
import { cut, json, serve, sse } from "./support/loopback.js"
import { forecastTool, languageModel } from "./support/session.js"

const { recorded, start, stop, textBlock, toolUse } = Anthropic

/** The model asks for the forecast with `days` as a string, then answers from the result. */
const coercion = [
  sse(...recorded(
    start("msg_1", 412),
    textBlock(0, "Let me check."),
    toolUse(1, "toolu_01", "get_forecast", "", "{\"city\": \"Os", "lo\", \"da", "ys\": \"15\"}"),
    stop("tool_use", 38)
  )),
  sse(...recorded(start("msg_2", 503), textBlock(0, "Oslo: sunny ", "for 15 days."), stop("end_turn", 11)))
]

/** A session over `AnthropicLanguageModel` against `url`. */
const session = (url: string, toolkit: ReturnType<typeof forecastTool>["toolkit"]) =>
  Effect.gen(function*() {
    const model = yield* languageModel(Anthropic.model(url))
    const provider = AiProvider.fromLanguageModel(model, AiProvider.anthropic)
    return yield* AgentSession.make({ provider, toolkit: yield* toolkit, mode: "local" })
  })

describe("AiProvider over AnthropicLanguageModel (Messages streaming wire on loopback)", () => {
  it.scopedLive("the prototype: the model sends days: \"15\", toolgate coerces it to 15 and the tool runs", () =>
    Effect.gen(function*() {
      const server = yield* serve(coercion)
      const { ran, toolkit } = forecastTool()
      const turn = yield* (yield* session(server.url, toolkit)).send("Forecast for Oslo, 15 days?")

      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }])
      assert.strictEqual(turn.text, "Oslo: sunny for 15 days.")
      assert.strictEqual(turn.calls.length, 1)
      assert.deepStrictEqual(turn.calls[0]!.envelope, { ok: true, tool: "get_forecast", result: { city: "Oslo", days: 15, sky: "sunny" } })
      assert.strictEqual(turn.usage.repairs, 0)
      assert.strictEqual(turn.usage.inputTokens, 412 + 503)
      assert.strictEqual(turn.usage.outputTokens, 38 + 11)

      // what went out: the tool's JSON Schema as input_schema, tool choice auto, then the envelope as tool_result
      const [first, second] = server.requests
      assert.strictEqual(first!.path, "/v1/messages")
      assert.isTrue(first!.body.stream)
      assert.deepStrictEqual(first!.body.tool_choice, { type: "auto" })
      assert.strictEqual(first!.body.tools[0].name, "get_forecast")
      assert.strictEqual(first!.body.tools[0].description, "Weather forecast for a city")
      const inputSchema = first!.body.tools[0].input_schema // the session's JSON Schema, `$defs` and all
      assert.deepStrictEqual(inputSchema.required, ["city", "days"])
      assert.deepStrictEqual([inputSchema.properties.days.minimum, inputSchema.properties.days.maximum], [1, 16])
      assert.strictEqual(inputSchema.$defs[inputSchema.properties.days.$ref.slice("#/$defs/".length)].type, "integer")
      assert.deepStrictEqual(first!.body.messages, [{ role: "user", content: [{ type: "text", text: "Forecast for Oslo, 15 days?" }] }])
      const [, assistant, results] = second!.body.messages
      assert.strictEqual(assistant.role, "assistant")
      assert.deepStrictEqual(assistant.content.map((c: any) => c.type), ["text", "tool_use"])
      assert.deepStrictEqual(assistant.content[1].input, { city: "Oslo", days: "15" }) // the call as the model made it
      assert.strictEqual(results.role, "user")
      assert.strictEqual(results.content[0].type, "tool_result")
      assert.strictEqual(results.content[0].tool_use_id, "toolu_01")
      assert.isFalse(results.content[0].is_error)
      assert.deepStrictEqual(JSON.parse(results.content[0].content), turn.calls[0]!.envelope)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("an out-of-range argument is repaired: the invalid_args envelope goes back as an error tool_result", () =>
    Effect.gen(function*() {
      const server = yield* serve([
        sse(...recorded(start("msg_1", 40), toolUse(0, "toolu_01", "get_forecast", "{\"city\":\"Oslo\",\"days\":40}"), stop("tool_use", 9))),
        sse(...recorded(start("msg_2", 60), toolUse(0, "toolu_02", "get_forecast", "{\"city\":\"Oslo\",\"days\":16}"), stop("tool_use", 9))),
        sse(...recorded(start("msg_3", 80), textBlock(0, "Sunny."), stop("end_turn", 2)))
      ])
      const { ran, toolkit } = forecastTool()
      const turn = yield* (yield* session(server.url, toolkit)).send("Forecast for Oslo, 40 days?")

      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 16 }])
      assert.strictEqual(turn.usage.repairs, 1)
      const invalid = turn.calls[0]!.envelope
      assert.isTrue(!invalid.ok && invalid.kind === "invalid_args" && invalid.field === "days")
      const fedBack = server.requests[1]!.body.messages[2].content[0]
      assert.isTrue(fedBack.is_error)
      assert.deepStrictEqual(JSON.parse(fedBack.content), JSON.parse(ToolEnvelope.encode(invalid)))
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("tool choice: required is Anthropic's `any`, none sends no tools", () =>
    Effect.gen(function*() {
      const answer = sse(...recorded(start("msg_1", 5), textBlock(0, "Hi."), stop("end_turn", 1)))
      const server = yield* serve([answer, answer])
      const s = yield* session(server.url, forecastTool().toolkit)
      yield* s.send("Hello", { toolChoice: "required" })
      yield* s.send("Hello again", { toolChoice: "none" })
      assert.deepStrictEqual(server.requests[0]!.body.tool_choice, { type: "any" })
      assert.isUndefined(server.requests[1]!.body.tools)
      assert.isUndefined(server.requests[1]!.body.tool_choice)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("structured output: generate() is one non-streamed request with a forced tool, its input the answer", () =>
    Effect.gen(function*() {
      const server = yield* serve([json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id: "toolu_01", name: "structured_output", input: { city: "Oslo", high: 21 } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 12 }
      })])
      const s = yield* session(server.url, forecastTool().toolkit)
      const value = yield* s.generate(Schema.Struct({ city: Schema.String, high: Schema.Number }), "Oslo's high tomorrow?")
      assert.deepStrictEqual(value, { city: "Oslo", high: 21 })
      const body = server.requests[0]!.body
      assert.notStrictEqual(body.stream, true)
      assert.deepStrictEqual(body.tool_choice, { type: "tool", name: "structured_output", disable_parallel_tool_use: true })
      assert.deepStrictEqual(body.tools.map((t: any) => t.name), ["structured_output"])
      assert.deepStrictEqual(body.tools[0].input_schema.required, ["city", "high"])
    }).pipe(Effect.provide(ArgumentValidator.layer)))
})

describe("AiProvider over AnthropicLanguageModel: failures are ProviderErrors the session reports", () => {
  const failing = (replies: Parameters<typeof serve>[0]) =>
    Effect.gen(function*() {
      const server = yield* serve(replies)
      const { ran, toolkit } = forecastTool()
      const s = yield* session(server.url, toolkit)
      const error = yield* Effect.flip(s.send("Forecast for Oslo?"))
      const history = yield* s.history
      return { error, ran, history }
    }).pipe(Effect.provide(ArgumentValidator.layer))

  it.scopedLive("a malformed event (data that is not JSON) is not retryable", () =>
    Effect.gen(function*() {
      const { error, history, ran } = yield* failing([
        sse(...start("msg_1", 10), ["content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"])
      ])
      assert.strictEqual(error._tag, "ProviderError")
      assert.isTrue(error._tag === "ProviderError" && error.provider === "anthropic" && !error.retryable)
      assert.include(error.message, "could not be read")
      assert.deepStrictEqual(history.map((m) => m._tag), ["User"])
      assert.deepStrictEqual(ran, [])
    }))

  it.scopedLive("HTTP 529 (overloaded) is retryable, with the server's message; 400 is not", () =>
    Effect.gen(function*() {
      const overloaded = yield* failing([json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, 529)])
      assert.isTrue(overloaded.error._tag === "ProviderError" && overloaded.error.retryable)
      assert.include(overloaded.error.message, "HTTP 529")
      assert.include(overloaded.error.message, "Overloaded")
      const bad = yield* failing([json({ type: "error", error: { type: "invalid_request_error", message: "max_tokens: too large" } }, 400)])
      assert.isTrue(bad.error._tag === "ProviderError" && !bad.error.retryable)
      assert.include(bad.error.message, "HTTP 400")
      assert.include(bad.error.message, "max_tokens: too large")
    }))

  it.scopedLive("an `error` event mid-stream fails the round; overloaded_error is retryable", () =>
    Effect.gen(function*() {
      const { error, ran } = yield* failing([
        sse(...start("msg_1", 10), ...textBlock(0, "Let me"), ["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }])
      ])
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "overloaded_error")
      assert.deepStrictEqual(ran, [])
    }))

  it.scopedLive("a connection cut mid-stream (inside a tool_use block) is retryable and runs nothing", () =>
    Effect.gen(function*() {
      const { error, history, ran } = yield* failing([
        cut(...start("msg_1", 10), ...toolUse(0, "toolu_01", "get_forecast", "{\"city\": \"Os").slice(0, 2))
      ])
      assert.strictEqual(error._tag, "ProviderError")
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "broke off")
      assert.deepStrictEqual(ran, [])
      assert.deepStrictEqual(history.map((m) => m._tag), ["User"])
    }))

  it.scopedLive("a stream that ends cleanly before message_stop is retryable (no finish part)", () =>
    Effect.gen(function*() {
      const { error } = yield* failing([sse(...start("msg_1", 10), ...textBlock(0, "Half an answer"))])
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "no finish part")
    }))
})

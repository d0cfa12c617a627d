/**
 * `AiProvider` over the real `OpenAiLanguageModel` (`@effect/ai-openai` 0.41, the Responses API) against
 * the relay's `POST /v1/responses`, over a real socket, through `AgentSession`, declared `AiProvider.openAi`.
 * The relay's script plays the prototype: `days: "15"` coerced to 15, the tool run, its envelope sent back
 * as the `function_call_output`, usage summed; the persona and tool names reach the scripted model; a
 * structured answer comes back non-streamed; and the failures: a failure round, arguments that are not
 * JSON, a cut, a malformed event.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Script } from "@toolgate/providers"
import { Relay } from "@toolgate/relay"
import { AgentSession, ArgumentValidator, ToolEnvelope } from "@toolgate/runtime"
import { Effect, Logger, LogLevel, Schema } from "effect"
import { AiProvider } from "../src/index.js"
import * as Responses from "./support/responses.js"
import { forecastTool, languageModel } from "./support/session.js"

const profile = { capabilities_version: "1.0", tool_schemas: {} }

const callRound: Script.Round = [
  { _tag: "TextDelta", text: "Checking. " },
  { _tag: "ToolCallComplete", id: "call_1", name: "get_forecast", arguments: "{\"city\":\"Oslo\",\"days\":\"15\"}" },
  { _tag: "Usage", inputTokens: 20, outputTokens: 8 },
  { _tag: "Done" }
]

const script: Script.Script = {
  turns: [
    [callRound, [{ _tag: "TextDelta", text: "Oslo: sunny for 15 days." }, { _tag: "Usage", inputTokens: 40, outputTokens: 7 }, { _tag: "Done" }]],
    [{ fail: { reason: "overloaded", retryable: true } }]
  ]
}

/** A relay for the surrounding scope (request log lines off) and a session over the bridge to its `/v1`. */
const setup = (options?: { readonly script?: Script.Script; readonly faults?: string; readonly persona?: string }) =>
  Effect.gen(function*() {
    const relay = { profile, script: options?.script ?? script, faultHeaders: true }
    const { url } = yield* Relay.start(relay).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
    const model = yield* languageModel(Responses.model(url, { model: "scripted", ...(options?.faults === undefined ? {} : { faults: options.faults }) }))
    const provider = AiProvider.fromLanguageModel(model, { ...AiProvider.openAi, capabilities: { ...AiProvider.openAi.capabilities, name: "relay" } })
    const { ran, toolkit } = forecastTool()
    const persona = options?.persona === undefined ? {} : { persona: options.persona }
    const session = yield* AgentSession.make({ provider, toolkit: yield* toolkit, mode: "local", ...persona })
    return { ran, session }
  }).pipe(Effect.provide(ArgumentValidator.layer))

describe("AiProvider over OpenAiLanguageModel against the relay's Responses API", () => {
  it.scopedLive("the prototype through AgentSession: days \"15\" runs as 15, the envelope goes back, usage is summed", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup()
      const turn = yield* session.send("Forecast for Oslo, 15 days?")
      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }])
      assert.strictEqual(turn.text, "Oslo: sunny for 15 days.")
      assert.deepStrictEqual(turn.calls[0]!.envelope, { ok: true, tool: "get_forecast", result: { city: "Oslo", days: 15, sky: "sunny" } })
      assert.deepStrictEqual([turn.usage.roundTrips, turn.usage.inputTokens, turn.usage.outputTokens], [2, 60, 15])
      const history = yield* session.history
      assert.deepStrictEqual(history.map((m) => m._tag), ["User", "Assistant", "ToolResult", "Assistant"])
      const call = history[1]!._tag === "Assistant" ? history[1]!.toolCalls[0] : undefined
      assert.deepStrictEqual(call?.arguments, { city: "Oslo", days: "15" }) // recorded as the model sent it
      const result = history[2]!
      assert.isTrue(result._tag === "ToolResult" && ToolEnvelope.isSuccess(result.envelope))
    }))

  it.scopedLive("the scripted model sees the persona (a system message) and the tool names OpenAiLanguageModel sent", () =>
    Effect.gen(function*() {
      const seeing: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "[{{systemPrompt}}] [{{tools}}]" }, { _tag: "Done" }]]] }
      const { session } = yield* setup({ script: seeing, persona: "You are a terse forecaster." })
      const turn = yield* session.send("Forecast?")
      assert.strictEqual(turn.text, "[You are a terse forecaster.] [get_forecast]")
    }))

  it.scopedLive("structured output: generate() is one non-streamed request; the response's text is the answer", () =>
    Effect.gen(function*() {
      const answer: Script.Script = {
        turns: [[[{ _tag: "TextDelta", text: "{\"city\":\"Oslo\",\"high\":21}" }, { _tag: "Usage", inputTokens: 9, outputTokens: 4 }, { _tag: "Done" }]]]
      }
      const { session } = yield* setup({ script: answer })
      const value = yield* session.generate(Schema.Struct({ city: Schema.String, high: Schema.Number }), "Oslo's high tomorrow?")
      assert.deepStrictEqual(value, { city: "Oslo", high: 21 })
    }))

  it.scopedLive("a failure round (503) is a retryable ProviderError; the session keeps only the user's message", () =>
    Effect.gen(function*() {
      const { session } = yield* setup()
      yield* session.send("Forecast for Oslo, 15 days?")
      const error = yield* Effect.flip(session.send("And for Bergen?"))
      assert.isTrue(error._tag === "ProviderError" && error.provider === "relay" && error.retryable)
      assert.include(error.message, "HTTP 503")
      assert.include(error.message, "overloaded")
      assert.deepStrictEqual((yield* session.history).map((m) => m._tag).slice(-2), ["Assistant", "User"])
    }))

  it.scopedLive("arguments that are not JSON: OpenAiLanguageModel fails the round (MalformedOutput), not retryable, nothing runs", () =>
    Effect.gen(function*() {
      const truncated: Script.Script = {
        turns: [[[{ _tag: "ToolCallComplete", id: "call_1", name: "get_forecast", arguments: "{\"city\":\"Oslo\",\"days\":" }, { _tag: "Done" }]]]
      }
      const { ran, session } = yield* setup({ script: truncated })
      const error = yield* Effect.flip(session.send("Forecast for Oslo?"))
      assert.isTrue(error._tag === "ProviderError" && !error.retryable)
      assert.include(error.message, "could not be read")
      assert.deepStrictEqual(ran, [])
    }))

  it.scopedLive("the relay cuts the connection after the first event: retryable, nothing runs", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup({ faults: "drop" })
      const error = yield* Effect.flip(session.send("Forecast for Oslo, 15 days?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.deepStrictEqual(ran, [])
    }))

  it.scopedLive("a malformed event (data that is not JSON): @effect/ai-openai skips it, the round has no finish, retryable", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup({ faults: "garbage" })
      const error = yield* Effect.flip(session.send("Forecast for Oslo, 15 days?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "no finish part")
      assert.deepStrictEqual(ran, [])
    }))

  it.scopedLive("a round the relay never finishes (no Done): no response.completed, a retryable ProviderError", () =>
    Effect.gen(function*() {
      const unfinished: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "Half an answer" }]]] }
      const { session } = yield* setup({ script: unfinished })
      const error = yield* Effect.flip(session.send("Forecast?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "no finish part")
    }))
})

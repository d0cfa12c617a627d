/**
 * `AiProvider` against the relay's Chat Completions endpoint, over a real socket, through `AgentSession`:
 * the model is an @effect/ai `LanguageModel` on `@effect/ai-openai`'s `OpenAiClient` (its HTTP client,
 * SSE parsing and `AiError`s; see support/chatCompletions.ts for why not `OpenAiLanguageModel`). The
 * relay's script plays the prototype: `days: "15"` coerced to 15, the tool run, its envelope sent back as
 * the `tool` message, usage summed; and the relay's faults: a failure round, a cut, a malformed event.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Script } from "@toolgate/providers"
import { Relay } from "@toolgate/relay"
import { AgentSession, ArgumentValidator, ToolEnvelope } from "@toolgate/runtime"
import { Effect, Logger, LogLevel } from "effect"
import { AiProvider } from "../src/index.js"
import * as ChatCompletions from "./support/chatCompletions.js"
import { forecastTool, languageModel } from "./support/session.js"

const profile = { capabilities_version: "1.0", tool_schemas: {} }

const script: Script.Script = {
  turns: [
    [
      [
        { _tag: "TextDelta", text: "Checking. " },
        { _tag: "ToolCallComplete", id: "call_1", name: "get_forecast", arguments: "{\"city\":\"Oslo\",\"days\":\"15\"}" },
        { _tag: "Usage", inputTokens: 20, outputTokens: 8 },
        { _tag: "Done" }
      ],
      [{ _tag: "TextDelta", text: "Oslo: sunny for 15 days." }, { _tag: "Usage", inputTokens: 40, outputTokens: 7 }, { _tag: "Done" }]
    ],
    [{ fail: { reason: "overloaded", retryable: true } }]
  ]
}

/** A relay for the surrounding scope (request log lines off) and a session over the bridge to its `/v1`. */
const setup = (faults?: string) =>
  Effect.gen(function*() {
    const { url } = yield* Relay.start({ profile, script, faultHeaders: true }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
    const model = yield* languageModel(ChatCompletions.layer(`${url}/v1`, faults))
    const provider = AiProvider.fromLanguageModel(model, { capabilities: { name: "relay" } })
    const { ran, toolkit } = forecastTool()
    const session = yield* AgentSession.make({ provider, toolkit: yield* toolkit, mode: "local" })
    return { ran, session }
  })

describe("AiProvider over @effect/ai-openai's client against the relay's Chat Completions", () => {
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
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("a failure round (503) is a retryable ProviderError; the session keeps only the user's message", () =>
    Effect.gen(function*() {
      const { session } = yield* setup()
      yield* session.send("Forecast for Oslo, 15 days?")
      const error = yield* Effect.flip(session.send("And for Bergen?"))
      assert.isTrue(error._tag === "ProviderError" && error.provider === "relay" && error.retryable)
      assert.include(error.message, "HTTP 503")
      assert.include(error.message, "overloaded")
      assert.deepStrictEqual((yield* session.history).map((m) => m._tag).slice(-2), ["Assistant", "User"])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("the relay cuts the connection after the first event: retryable, nothing runs", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup("drop")
      const error = yield* Effect.flip(session.send("Forecast for Oslo, 15 days?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("a malformed event (data that is not JSON): @effect/ai-openai skips it, the round has no finish, retryable", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup("garbage")
      const error = yield* Effect.flip(session.send("Forecast for Oslo, 15 days?"))
      assert.isTrue(error._tag === "ProviderError" && error.retryable)
      assert.include(error.message, "no finish part")
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(ArgumentValidator.layer)))
})

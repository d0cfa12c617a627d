/**
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` with `@toolgate/providers`' `Gemini` through
 * `AgentSession`, over a real socket: a near-miss argument coerced and run, parallel calls answered
 * together (their function responses in one user content) and the next round picked, the system
 * instruction, sampling and declarations (names, and parameters as sent) seen by the script, failures as Google errors, the relay's faults.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Gemini, type Script } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, Tool, Toolkit } from "@toolgate/runtime"
import { Effect, Layer, Redacted, Schema } from "effect"
import { profile, start } from "./fixtures.js"

const forecast = () => {
  const ran: Array<{ readonly city: string; readonly days: number }> = []
  const tool = Tool.make("get_forecast", {
    description: "Weather forecast for a city",
    parameters: Schema.Struct({ city: Schema.String, days: Schema.Int.pipe(Schema.between(1, 16)) }),
    execute: (args) => Effect.sync(() => (ran.push(args), { city: args.city, days: args.days, sky: "sunny" }))
  })
  return { ran, toolkit: Toolkit.make(tool) }
}

const script: Script.Script = {
  turns: [
    [
      [
        { _tag: "TextDelta", text: "Checking. " },
        { _tag: "ToolCallComplete", id: "call_1", name: "get_forecast", arguments: { city: "Oslo", days: "15" } },
        { _tag: "ToolCallComplete", id: "call_2", name: "get_forecast", arguments: "{\"city\":\"Bergen\",\"days\":3}" },
        { _tag: "Usage", inputTokens: 20, outputTokens: 8 },
        { _tag: "Done" }
      ],
      [{ _tag: "TextDelta", text: "Oslo and Bergen: sunny." }, { _tag: "Usage", inputTokens: 40, outputTokens: 7 }, { _tag: "Done" }]
    ],
    [{ fail: { reason: "the model is overloaded", retryable: true } }]
  ]
}

/** A relay and a session over `Gemini` at its `/v1beta`, for the surrounding scope (the HTTP client's too). */
const setup = (relay: { readonly script: Script.Script; readonly profile?: unknown }, options?: { readonly persona?: string; readonly temperature?: number }) =>
  Effect.gen(function*() {
    const { url } = yield* start({ profile: relay.profile ?? profile, script: relay.script })
    const context = yield* Layer.build(Layer.merge(NodeHttpClient.layerUndici, ArgumentValidator.layer))
    const gemini = Gemini.make({ baseUrl: `${url}/v1beta`, model: "gemini-2.5-flash", apiKey: Redacted.make("not-a-key"), timeout: "5 seconds" })
    const provider = yield* Effect.provide(gemini, context)
    const { ran, toolkit } = forecast()
    const session = yield* Effect.provide(AgentSession.make({
      provider,
      toolkit: yield* toolkit,
      mode: "local",
      ...(options?.persona === undefined ? {} : { persona: options.persona }),
      ...(options?.temperature === undefined ? {} : { sampling: { temperature: options.temperature } })
    }), context)
    return { ran, session, url }
  })

describe("Gemini against the relay's streamGenerateContent, through AgentSession", () => {
  it.scopedLive("two calls in one round (days \"15\" coerced to 15, JSON-text arguments as an object), then the answer", () =>
    Effect.gen(function*() {
      const { ran, session } = yield* setup({ script })
      const turn = yield* session.send("Forecast for Oslo (15 days) and Bergen?")
      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }, { city: "Bergen", days: 3 }])
      assert.strictEqual(turn.text, "Oslo and Bergen: sunny.")
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["call_1", "call_2"])
      assert.deepStrictEqual([turn.usage.roundTrips, turn.usage.inputTokens, turn.usage.outputTokens], [2, 60, 15])
      assert.deepStrictEqual((yield* session.history).map((m) => m._tag), ["User", "Assistant", "ToolResult", "ToolResult", "Assistant"])
    }))

  it.scopedLive("a failure round is a 503 UNAVAILABLE (retryable, the script's reason); merged user contents count as user messages", () =>
    Effect.gen(function*() {
      const { session } = yield* setup({ script })
      yield* session.send("Forecast for Oslo (15 days) and Bergen?")
      const error = yield* Effect.flip(session.send("And tomorrow?"))
      assert.isTrue(error._tag === "ProviderError" && error.provider === "gemini" && error.retryable)
      assert.include(error.message, "HTTP 503")
      assert.include(error.message, "UNAVAILABLE: the model is overloaded")
      // the failed turn left its user message: Gemini merges it with the next one into one content, whose two
      // text parts are two user messages to the script (turn 3, which it does not have)
      const third = yield* Effect.flip(session.send("And the day after?"))
      assert.isTrue(third._tag === "ProviderError" && !third.retryable)
      assert.include(third.message, "INVALID_ARGUMENT: no scripted round 1 of turn 3")
    }))

  it.scopedLive("the script sees the system instruction (the persona), the sampling and the declarations' names", () =>
    Effect.gen(function*() {
      const seeing: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "[{{systemPrompt}}] [{{sampling}}] [{{tools}}]" }, { _tag: "Done" }]]] }
      const { session } = yield* setup({ script: seeing }, { persona: "You are terse.", temperature: 0.2 })
      const turn = yield* session.send("Forecast?")
      assert.strictEqual(turn.text, "[You are terse.] [temperature=0.2] [get_forecast]")
    }))

  it.scopedLive("the script sees the function declarations as sent: Google's dialect on parametersJsonSchema (bounds as prose, no legacy parameters)", () =>
    Effect.gen(function*() {
      const seeing: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "{{functionDeclarations}}" }, { _tag: "Done" }]]] }
      const { session } = yield* setup({ script: seeing })
      const declared = JSON.parse((yield* session.send("Forecast?")).text) as Array<Record<string, unknown>>
      assert.deepStrictEqual(declared.map((d) => [d["name"], Object.keys(d)]), [["get_forecast", ["name", "parametersJsonSchema"]]])
      const sent = JSON.stringify(declared[0]!["parametersJsonSchema"])
      assert.notMatch(sent, /"(minimum|maximum|additionalProperties|\$schema)":/, "Normalize.google took them out")
      assert.include(sent, "maximum: 16", "the bound went into the description")
    }))

  it.scopedLive("the relay's garbage fault is a malformed event (not retryable); drop cuts the round (nothing runs)", () =>
    Effect.gen(function*() {
      for (const fault of ["garbage", "drop"]) {
        const { ran, session } = yield* setup({ script, profile: { ...profile, faults: [fault] } })
        const error = yield* Effect.flip(session.send("Forecast for Oslo (15 days) and Bergen?"))
        if (fault === "garbage") assert.isTrue(error._tag === "ProviderError" && !error.retryable && error.message.includes("malformed event"), error.message)
        else assert.isTrue(error._tag === "ProviderError" && error.retryable, error.message)
        assert.deepStrictEqual(ran, [], fault)
      }
    }))

  it.scopedLive("a round without Done ends without a finish reason: the session reports the missing Done", () =>
    Effect.gen(function*() {
      const { session } = yield* setup({ script: { turns: [[[{ _tag: "TextDelta", text: "Half an answer" }]]] } })
      const error = yield* Effect.flip(session.send("Forecast?"))
      assert.include(JSON.stringify(error), "missing_done")
    }))
})

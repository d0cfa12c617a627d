/**
 * The scripted model sees what a request carries besides its messages (system prompt, sampling, the
 * tool-call cap, the tool names) as `{{fields}}` in its text, and counts a text-routed session's
 * `<tool_response>` messages as tool results, not turns: each through a real `AgentSession` over a real relay.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CloudRelay, OpenAiCompatible, type Script } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, Provider, Tool, Toolkit } from "@toolgate/runtime"
import { Effect, Layer, Schema } from "effect"
import * as ModelView from "../src/internal/modelView.js"
import { profile, start } from "./fixtures.js"

const text = (t: string) => ({ _tag: "TextDelta" as const, text: t })
const done = { _tag: "Done" as const }

const echo: Script.Script = {
  turns: [[[text("system: {{systemPrompt}} | sampling: {{sampling}} | cap: {{maxToolCallsPerTurn}} | tools: {{tools}} | {{unknown}}"), done]]]
}

const ran: Array<unknown> = []
const getWeather = Tool.make("get_weather", {
  description: "The weather in a city.",
  parameters: Schema.Struct({ city: Schema.String, days: Schema.optional(Schema.Int) }),
  execute: (args) => Effect.sync(() => {
    ran.push(args)
    return { city: args.city, sky: "sunny" }
  })
})

/** A session over `provider` (a layer), sending `prompt` with `options`; the committed turn. */
const turn = (
  provider: Layer.Layer<Provider.Provider, unknown>,
  make: Partial<Omit<AgentSession.Options<never>, "mode">>,
  prompt: string,
  options?: AgentSession.SendOptions
) =>
  Effect.gen(function*() {
    const toolkit = yield* Toolkit.make(getWeather)
    const session = yield* AgentSession.make({ toolkit, mode: "local", ...make } as AgentSession.Options<never> & { readonly mode: "local" })
    return yield* session.send(prompt, options)
  }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(ArgumentValidator.layer, provider)))

const cloud = (baseUrl: string, capabilities: Provider.CapabilityOverrides = {}) =>
  Layer.effect(Provider.Provider, CloudRelay.make({ baseUrl, timeout: "5 seconds", idleTimeout: "5 seconds", capabilities })).pipe(
    Layer.orDie,
    Layer.provide(NodeHttpClient.layerUndici)
  )

describe("the scripted model sees the request's other fields", () => {
  it.scopedLive("CloudRelay: the persona and directives (system prompt), the sampling and the tool names", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script: echo })
      const committed = yield* turn(cloud(url), { persona: "You are WeatherBot.", sampling: { temperature: 0.2 } }, "hi", {
        directives: "Answer in one line.",
        sampling: { maxTokens: 50 }
      })
      assert.match(committed.text, /^system: You are WeatherBot\.[\s\S]*Answer in one line\. \| /)
      assert.include(committed.text, "| sampling: temperature=0.2, maxTokens=50 |")
      assert.include(committed.text, "| cap: (none) |")
      assert.include(committed.text, "| tools: get_weather | {{unknown}}")
    }))

  it.scopedLive("CloudRelay, provider-driven: the tool-call cap the session's limits set", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script: echo })
      const committed = yield* turn(cloud(url, { executionModel: "providerDriven" }), { limits: { maxToolCallsPerTurn: 3 } }, "hi")
      assert.include(committed.text, "| cap: 3 |")
      assert.include(committed.text, "system: (none) | sampling: (none)")
    }))

  it.scopedLive("OpenAiCompatible: the system message, temperature / top_p / max_tokens and the declared tools", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script: echo })
      const openai = Layer.effect(Provider.Provider, OpenAiCompatible.make({ baseUrl: `${url}/v1`, model: "scripted", timeout: "5 seconds" })).pipe(
        Layer.orDie,
        Layer.provide(NodeHttpClient.layerUndici)
      )
      const committed = yield* turn(openai, { persona: "Be brief." }, "hi", { sampling: { temperature: 0.5, topP: 0.9 } })
      assert.match(committed.text, /^system: Be brief\. \| sampling: temperature=0\.5, topP=0\.9 \| cap: \(none\) \| tools: get_weather/)
    }))

  it.scopedLive("a text-routed session: the tools ride the system prompt, results come back as <tool_response> text, and the script still counts one turn", () =>
    Effect.gen(function*() {
      ran.length = 0
      const script: Script.Script = {
        turns: [[
          [text("Checking. <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": \"2\"}}</tool_call>"), done],
          // (not `{{systemPrompt}}` here: it holds the convention's example block, which the session would parse as a call)
          [text("Oslo is sunny. (native tools: {{tools}})"), done]
        ]]
      }
      const { url } = yield* start({ profile, script })
      const committed = yield* turn(cloud(url, { supportsToolCalling: false }), {}, "Weather in Oslo?")
      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 2 }], "the call was parsed from the text and coerced")
      assert.strictEqual(committed.text, "Oslo is sunny. (native tools: (none))")
    }))
})

describe("text-routed over Chat Completions", () => {
  it.scopedLive("OpenAiCompatible declared without tool calling: no tools field, the <tool_response> user message does not start a turn", () =>
    Effect.gen(function*() {
      ran.length = 0
      const script: Script.Script = {
        turns: [[
          [text("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>"), done],
          [text("Rome is sunny. (tools field: {{tools}})"), done]
        ]]
      }
      const { url } = yield* start({ profile, script })
      const openai = Layer.effect(
        Provider.Provider,
        OpenAiCompatible.make({ baseUrl: `${url}/v1`, model: "scripted", timeout: "5 seconds", capabilities: { supportsToolCalling: false } })
      ).pipe(Layer.orDie, Layer.provide(NodeHttpClient.layerUndici))
      const committed = yield* turn(openai, {}, "Weather in Rome?")
      assert.deepStrictEqual(ran, [{ city: "Rome" }])
      assert.strictEqual(committed.text, "Rome is sunny. (tools field: (none))")
    }))
})

describe("ModelView", () => {
  it("fill: only the four {{fields}} of TextDelta events; other events untouched", () => {
    const round = [text("{{tools}} {{sampling}} {{{{tools}}}}"), { _tag: "ToolCallComplete" as const, id: "c", name: "{{tools}}", arguments: {} }, done]
    const filled = ModelView.fill(round, { tools: ["a", "b"], sampling: {} })
    assert.deepStrictEqual(filled[0], text("a, b (none) {{a, b}}"))
    assert.strictEqual(filled[1], round[1])
  })
})

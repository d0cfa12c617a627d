import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { OpenAiCompatible } from "@toolgate/providers"
import type { Message, Provider } from "@toolgate/runtime"
import { Chunk, Effect, Stream } from "effect"
import { afterTool, firstTurn, parisArguments, profile, script, start } from "./fixtures.js"

/** One round trip of the providers' OpenAI-compatible client against the relay's Chat Completions. */
const roundTrip = (url: string, messages: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const provider = yield* OpenAiCompatible.make({ baseUrl: `${url}/v1`, model: "scripted", timeout: "3 seconds" })
    const request: Provider.CompletionRequest = {
      messages: messages as ReadonlyArray<Message.Message>,
      tools: [{ name: "get_weather", description: "The weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
      toolChoice: "auto"
    }
    return yield* Stream.runCollect(provider.stream(request)).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either)
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

describe("the OpenAI-compatible provider against the relay (Chat Completions, both ends)", () => {
  it.scopedLive("a tool call round: the call complete with the scripted arguments, usage, done", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const events = yield* roundTrip(url, firstTurn)
      assert.isTrue(events._tag === "Right", JSON.stringify(events))
      const list = events._tag === "Right" ? events.right : []
      const complete = list.find((e) => e._tag === "ToolCallComplete")
      assert.isTrue(complete !== undefined && complete.id === "call_1" && complete.name === "get_weather")
      const args = complete?.arguments
      assert.deepStrictEqual(typeof args === "string" ? JSON.parse(args) : args, JSON.parse(JSON.stringify(parisArguments)))
      assert.strictEqual(list.filter((e) => e._tag === "TextDelta").map((e) => e._tag === "TextDelta" ? e.text : "").join(""), "Checking the weather. ")
      assert.strictEqual(list.at(-1)?._tag, "Done")
    }))

  it.scopedLive("the tool result goes back as OpenAI messages and selects round 2", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const events = yield* roundTrip(url, afterTool)
      const list = events._tag === "Right" ? events.right : []
      assert.strictEqual(list.filter((e) => e._tag === "TextDelta").map((e) => e._tag === "TextDelta" ? e.text : "").join(""), "It is sunny in Paris.")
      assert.isFalse(list.some((e) => e._tag === "ToolCallComplete"))
    }))

  it.scopedLive("a failure round is a retryable ProviderError", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const failing = [...afterTool, { _tag: "Assistant", text: "It is sunny in Paris.", toolCalls: [] }, { _tag: "User", text: "again" }]
      const events = yield* roundTrip(url, failing)
      assert.isTrue(events._tag === "Left" && events.left.retryable, JSON.stringify(events))
    }))
})

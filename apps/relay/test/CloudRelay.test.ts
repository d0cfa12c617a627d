import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CloudRelay } from "@toolgate/providers"
import type { Message, Provider } from "@toolgate/runtime"
import { Chunk, Effect, Stream } from "effect"
import { afterTool, firstTurn, profile, script, start } from "./fixtures.js"

/** One round trip of the providers' cloud-relay client against a relay. */
const roundTrip = (url: string, messages: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const provider = yield* CloudRelay.make({ baseUrl: url, timeout: "3 seconds", idleTimeout: "3 seconds" })
    const request: Provider.CompletionRequest = {
      messages: messages as ReadonlyArray<Message.Message>,
      tools: [{ name: "get_weather", description: "", parameters: { type: "object" }, strict: false }],
      toolChoice: "auto"
    }
    return yield* Stream.runCollect(provider.stream(request)).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either)
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

describe("the cloud-relay provider against the relay (the turns wire, both ends)", () => {
  it.scopedLive("streams the scripted rounds, round 2 after the tool result", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const first = yield* roundTrip(url, firstTurn)
      assert.isTrue(first._tag === "Right")
      assert.deepStrictEqual(first._tag === "Right" ? first.right : [], script.turns[0]![0] as ReadonlyArray<unknown>)
      const second = yield* roundTrip(url, afterTool)
      assert.deepStrictEqual(second._tag === "Right" ? second.right.map((e) => e._tag) : [], ["TextDelta", "TextDelta", "Usage", "Done"])
    }))

  it.scopedLive("a failure round, a missing round and each failing fault end in the ProviderError they stand for", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const failing = [...afterTool, { _tag: "Assistant", text: "", toolCalls: [] }, { _tag: "User", text: "again" }]
      const failure = yield* roundTrip(url, failing)
      assert.isTrue(failure._tag === "Left" && failure.left.retryable && failure.left.reason === "the model is overloaded")
      const missing = yield* roundTrip(url, [...afterTool, { _tag: "Assistant", text: "", toolCalls: [] }])
      assert.isTrue(missing._tag === "Left" && !missing.left.retryable && /no scripted round/.test(missing.left.reason))
      const expected = { fail: true, drop: true, garbage: false } as const
      for (const [fault, retryable] of Object.entries(expected)) {
        const relay = yield* start({ profile: { ...profile, faults: [fault] }, script })
        const result = yield* roundTrip(relay.url, firstTurn)
        assert.isTrue(result._tag === "Left", fault)
        assert.strictEqual(result._tag === "Left" ? result.left.retryable : undefined, retryable, `${fault}: ${JSON.stringify(result)}`)
      }
    }))
})

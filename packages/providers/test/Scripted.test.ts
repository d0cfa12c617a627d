import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import type { JsonValue } from "@toolgate/json-schema"
import { AgentSession, ArgumentValidator, type Provider, type StreamEvent, Tool, Toolkit } from "@toolgate/runtime"
import type * as Script from "../src/Script.js"
import * as Scripted from "../src/Scripted.js"
import { assistant, result, user } from "./support/messages.js"

const request = (messages: Provider.CompletionRequest["messages"]): Provider.CompletionRequest => ({
  messages,
  tools: [],
  toolChoice: "auto"
})

const run = (provider: Scripted.Scripted, messages: Provider.CompletionRequest["messages"]) =>
  provider.stream(request(messages)).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)

const call: StreamEvent.StreamEvent = { _tag: "ToolCallComplete", id: "c1", name: "tool", arguments: "{\"n\":1}" }
const script: Script.Script = {
  turns: [
    [[{ _tag: "TextDelta", text: "looking" }, call, { _tag: "Usage", inputTokens: 3, outputTokens: 4 }, { _tag: "Done" }], [{ _tag: "TextDelta", text: "no done" }]],
    [{ fail: { reason: "rate limited", retryable: true } }],
    [{ fail: { reason: "bad request", retryable: false } }],
    // Breaks the contract on purpose: a terminal with no start, and an event after Done.
    [[{ _tag: "Done" }, { _tag: "ToolCallCancelled", id: "x" }]]
  ]
}

describe("Scripted", () => {
  it.effect("emits each round exactly as given, no Done added, nothing reordered", () =>
    Effect.gen(function*() {
      const provider = yield* Scripted.make(script)
      const first = yield* run(provider, [user("weather?")])
      assert.deepStrictEqual(first, Either.right(script.turns[0]![0] as ReadonlyArray<StreamEvent.StreamEvent>))
      const second = yield* run(provider, [user("weather?"), assistant("looking", 1), result("call_1")])
      assert.deepStrictEqual(second, Either.right([{ _tag: "TextDelta", text: "no done" }]))
      const broken = yield* run(provider, [user("1"), user("2"), user("3"), user("4")])
      assert.deepStrictEqual(broken, Either.right([{ _tag: "Done" }, { _tag: "ToolCallCancelled", id: "x" }]))
    }))

  it.effect("a Failure round fails with a ProviderError carrying its reason and retryable", () =>
    Effect.gen(function*() {
      const provider = yield* Scripted.make(script, { name: "my-model" })
      const retryable = yield* run(provider, [user("1"), user("2")])
      assert.isTrue(Either.isLeft(retryable))
      if (Either.isLeft(retryable)) {
        assert.strictEqual(retryable.left._tag, "ProviderError")
        assert.strictEqual(retryable.left.provider, "my-model")
        assert.strictEqual(retryable.left.reason, "rate limited")
        assert.isTrue(retryable.left.retryable)
      }
      const fatal = yield* run(provider, [user("1"), user("2"), user("3")])
      assert.isTrue(Either.isLeft(fatal) && fatal.left.reason === "bad request" && !fatal.left.retryable)
    }))

  it.effect("a round the script does not have is a ProviderError naming it", () =>
    Effect.gen(function*() {
      const provider = yield* Scripted.make(script)
      const missing = yield* run(provider, [user("w"), assistant(), assistant()])
      assert.isTrue(Either.isLeft(missing))
      if (Either.isLeft(missing)) {
        assert.strictEqual(missing.left.reason, "the script has no round 3 of turn 1 (turns[0][2])")
        assert.isFalse(missing.left.retryable)
        assert.strictEqual(missing.left.provider, "scripted")
      }
      const beyond = yield* run(provider, Array.from({ length: 9 }, (_, i) => user(String(i))))
      assert.isTrue(Either.isLeft(beyond) && beyond.left.reason.includes("turn 9"))
      const none = yield* run(provider, [])
      assert.isTrue(Either.isLeft(none) && none.left.reason.includes("turn 0"))
      const empty = yield* Scripted.make({ turns: [] })
      assert.isTrue(Either.isLeft(yield* run(empty, [user("hi")])))
    }))

  it.effect("records every request when its stream runs, in order", () =>
    Effect.gen(function*() {
      const provider = yield* Scripted.make(script)
      assert.deepStrictEqual(yield* provider.requests, [])
      const unrun = provider.stream(request([user("never run")]))
      assert.deepStrictEqual(yield* provider.requests, [])
      const a = request([user("a")])
      const b: Provider.CompletionRequest = { messages: [user("a"), assistant("", 1), result("call_1")], tools: [{ name: "tool", description: "d", parameters: { type: "object" }, strict: false }], toolChoice: "required" }
      yield* Stream.runDrain(provider.stream(a))
      yield* Effect.either(Stream.runDrain(provider.stream(request([]))))
      yield* Stream.runDrain(provider.stream(b))
      const seen = yield* provider.requests
      assert.strictEqual(seen.length, 3)
      assert.strictEqual(seen[0], a)
      assert.deepStrictEqual(seen[1]!.messages, [])
      assert.strictEqual(seen[2], b)
      yield* Stream.runDrain(unrun)
      assert.strictEqual((yield* provider.requests).length, 4)
      // The list handed out is a copy: changing it changes nothing.
      ;(seen as Array<Provider.CompletionRequest>).length = 0
      assert.strictEqual((yield* provider.requests).length, 4)
    }))

  it.effect("a send's images and model reach the recorded request; the script plays as written", () =>
    Effect.gen(function*() {
      const provider = yield* Scripted.make({ turns: [[[{ _tag: "TextDelta", text: "a cat" }, { _tag: "Done" }]]] })
      const s = yield* AgentSession.make({ provider, toolkit: Either.getOrThrow(Toolkit.make()), mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const image = { _tag: "ImageData", mediaType: "image/png", data: "iVBORw0KGgo=" } as const
      assert.strictEqual((yield* s.send("what?", { images: [image], model: "m2" })).text, "a cat")
      const [request] = yield* provider.requests
      assert.deepStrictEqual(request!.messages, [{ _tag: "User", text: "what?", images: [image] }])
      assert.strictEqual(request!.model, "m2")
    }))

  it.effect("declares its defaults, overridable; validateTools never warns", () =>
    Effect.gen(function*() {
      const plain = yield* Scripted.make(script)
      assert.deepStrictEqual(plain.capabilities, Scripted.defaults)
      assert.strictEqual(Scripted.defaults.executionModel, "appDriven")
      assert.strictEqual(Scripted.defaults.schemaDialect, "none")
      assert.isTrue(Scripted.defaults.supportsParallelToolCalls && Scripted.defaults.supportsToolChoice && Scripted.defaults.supportsStructuredOutput)
      assert.isTrue(Scripted.defaults.supportsVision === true && Scripted.defaults.modelSelection === "perRequest")
      const driven = yield* Scripted.make(script, { executionModel: "providerDriven", supportsToolChoice: false, maxTools: 2 })
      assert.strictEqual(driven.capabilities.executionModel, "providerDriven")
      assert.isFalse(driven.capabilities.supportsToolChoice)
      assert.strictEqual(driven.capabilities.maxTools, 2)
      assert.strictEqual(driven.capabilities.name, "scripted")
      assert.deepStrictEqual(yield* plain.validateTools!([{ name: "t", description: "", parameters: true, strict: false }]), [])
    }))

  it.effect("hostile: 10,000-level arguments pass through intact, 100,000 events, a 100,000-message request, __proto__ stays data", () =>
    Effect.gen(function*() {
      let deep: unknown = 0
      for (let i = 0; i < 10_000; i++) deep = { next: deep }
      const proto = JSON.parse("{\"__proto__\":{\"polluted\":true}}") as JsonValue.JsonValue
      const many: Array<StreamEvent.StreamEvent> = Array.from({ length: 100_000 }, (_, i) => ({ _tag: "TextDelta", text: String(i) }))
      const provider = yield* Scripted.make({
        turns: [[[{ _tag: "ToolCallComplete", id: "d", name: "t", arguments: deep as JsonValue.JsonValue }, { _tag: "ToolCallComplete", id: "p", name: "t", arguments: proto }]], [many]]
      })
      const events = yield* run(provider, [user("go")])
      assert.isTrue(Either.isRight(events))
      const got = Either.getOrThrow(events)
      assert.strictEqual((got[0] as StreamEvent.ToolCallComplete).arguments, deep)
      assert.isTrue(Object.hasOwn((got[1] as StreamEvent.ToolCallComplete).arguments as object, "__proto__"))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      const long = [user("a"), ...Array.from({ length: 100_000 }, () => result("c")), user("b")]
      const streamed = yield* run(provider, long)
      assert.strictEqual(Either.getOrThrow(streamed).length, 100_000)
    }))

  it.effect("hostile make: a script of the wrong shape answers with ProviderErrors; a __proto__ override stays data", () =>
    Effect.gen(function*() {
      for (const bad of [null, undefined, 42, {}, { turns: "x" }, { turns: [[null]] }, { turns: [[[null]]] }, { turns: [[{ fail: {} }]] }, { turns: [[[{ _tag: "Usage", inputTokens: -1, outputTokens: 0 }]]] }]) {
        const provider = yield* Scripted.make(bad as unknown as Script.Script)
        const outcome = yield* run(provider, [user("hi")])
        assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "ProviderError" && !outcome.left.retryable, JSON.stringify(bad))
      }
      const junk = yield* run(yield* Scripted.make({ turns: [[null]] } as unknown as Script.Script), [user("hi")])
      assert.isTrue(Either.isLeft(junk) && junk.left.reason === "the script holds something that is not a round 1 of turn 1 (turns[0][0])")
      const overrides = JSON.parse("{\"__proto__\":{\"name\":\"evil\",\"polluted\":true}}") as Provider.CapabilityOverrides
      const provider = yield* Scripted.make(script, overrides)
      assert.strictEqual(provider.capabilities.name, "scripted")
      assert.strictEqual(Object.getPrototypeOf(provider.capabilities), Object.prototype)
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }))

  it.effect("a text-routed session (no native tool calling) plays its script round by round: tool results in <tool_response> user messages start no turn", () =>
    Effect.gen(function*() {
      const ran: Array<number> = []
      const double = Tool.make("double", {
        description: "Doubles n.",
        parameters: Schema.Struct({ n: Schema.Int }),
        execute: ({ n }) => Effect.sync(() => (ran.push(n), n * 2))
      })
      const text = (t: string): ReadonlyArray<StreamEvent.StreamEvent> => [{ _tag: "TextDelta", text: t }, { _tag: "Done" }]
      const provider = yield* Scripted.make(
        { turns: [[text(`<tool_call>{"name": "double", "arguments": {"n": "21"}}</tool_call>`), text("It is 42.")], [text("Second turn.")]] },
        { supportsToolCalling: false }
      )
      const session = yield* AgentSession.make({ provider, toolkit: Either.getOrThrow(Toolkit.make(double)), mode: "local" })
        .pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual((yield* session.send("double 21")).text, "It is 42.")
      assert.strictEqual((yield* session.send("and now?")).text, "Second turn.")
      assert.deepStrictEqual(ran, [21])
    }))
})

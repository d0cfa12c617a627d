/**
 * The bridge's two mappings as properties, over a `LanguageModel` built with @effect/ai's own
 * `LanguageModel.make` (so @effect/ai's decoding of the parts, tools and `disableToolCallResolution` are
 * the real ones; only the model's answer is given): any JSON arguments reach the session untouched, text
 * and usage survive any chunking; and the history goes out as the `Prompt` a provider expects.
 */
import { LanguageModel, type Prompt, type Response } from "@effect/ai"
import { assert, describe, it } from "@effect/vitest"
import type { JsonValue } from "@toolgate/json-schema"
import type { Message, StreamEvent } from "@toolgate/runtime"
import { Provider, ToolEnvelope } from "@toolgate/runtime"
import { Chunk, Effect, FastCheck as fc, Layer, Stream } from "effect"
import { AiProvider } from "../src/index.js"

/** One round the model answers: text pieces, then calls (with any JSON arguments), then usage. */
interface Round {
  readonly text: ReadonlyArray<string>
  readonly calls: ReadonlyArray<{ readonly name: "a" | "b"; readonly params: JsonValue.JsonValue }>
  readonly usage: { readonly input: number; readonly output: number }
}

const round: fc.Arbitrary<Round> = fc.record({
  text: fc.array(fc.string(), { maxLength: 5 }),
  calls: fc.array(fc.record({ name: fc.constantFrom("a" as const, "b" as const), params: fc.jsonValue({ maxDepth: 3 }).map((v): JsonValue.JsonValue => JSON.parse(JSON.stringify(v))) }), { maxLength: 3 }),
  usage: fc.record({ input: fc.nat(100_000), output: fc.nat(100_000) })
})

const parts = (r: Round): Array<Response.StreamPartEncoded> => [
  ...r.text.map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "t", delta })),
  ...r.calls.map((c, i): Response.StreamPartEncoded => ({ type: "tool-call", id: `call_${i}`, name: c.name, params: c.params })),
  { type: "finish", reason: r.calls.length > 0 ? "tool-calls" : "stop", usage: { inputTokens: r.usage.input, outputTokens: r.usage.output, totalTokens: r.usage.input + r.usage.output } }
]

/** A model answering `answer`, recording the provider options of every request. */
const model = (answer: Array<Response.StreamPartEncoded>, seen: Array<LanguageModel.ProviderOptions>) =>
  LanguageModel.make({
    streamText: (options) => (seen.push(options), Stream.fromIterable(answer)),
    generateText: () => Effect.dieMessage("not used: the bridge streams")
  })

const tool = (name: string): Provider.ToolDefinition => ({ name, description: `tool ${name}`, parameters: { type: "object", properties: { n: { type: "integer" } } }, strict: false })

const request = (messages: ReadonlyArray<Message.Message>): Provider.CompletionRequest => ({
  messages,
  tools: [tool("a"), tool("b")],
  toolChoice: "required"
})

const collect = (provider: Provider.AgentProvider, r: Provider.CompletionRequest) =>
  Effect.map(Stream.runCollect(provider.stream(r)), (c): ReadonlyArray<StreamEvent.StreamEvent> => Chunk.toReadonlyArray(c))

describe("AiProvider: the model's answer as StreamEvents", () => {
  it.effect.prop("any JSON arguments arrive untouched; text, calls and usage survive; Done comes last, once", [round], ([r]) =>
    Effect.gen(function*() {
      const seen: Array<LanguageModel.ProviderOptions> = []
      const provider = AiProvider.fromLanguageModel(yield* model(parts(r), seen))
      const events = yield* collect(provider, request([{ _tag: "User", text: "go" }]))
      assert.strictEqual(events.filter((e) => e._tag === "TextDelta").map((e) => e._tag === "TextDelta" ? e.text : "").join(""), r.text.join(""))
      assert.deepStrictEqual(
        events.flatMap((e) => e._tag === "ToolCallComplete" ? [{ name: e.name, params: e.arguments }] : []),
        r.calls.map((c) => ({ name: c.name, params: c.params }))
      )
      assert.deepStrictEqual(events.filter((e) => e._tag === "Usage"), [{ _tag: "Usage", inputTokens: r.usage.input, outputTokens: r.usage.output }])
      assert.strictEqual(events.at(-1)?._tag, "Done")
      assert.strictEqual(events.filter((e) => e._tag === "Done").length, 1)
      // what @effect/ai's provider was given: both tools with their JSON Schema, the tool choice
      const options = seen[0]!
      assert.deepStrictEqual(options.tools.map((t) => t.name), ["a", "b"])
      assert.strictEqual(options.toolChoice, "required")
    }), { timeout: 60_000, fastCheck: { numRuns: 50 } })

  it.effect("streamed arguments become ToolCallPartials named by their tool-params-start", () =>
    Effect.gen(function*() {
      const provider = AiProvider.fromLanguageModel(yield* model([
        { type: "tool-params-start", id: "c1", name: "a" },
        { type: "tool-params-delta", id: "c1", delta: "{\"n\":" },
        { type: "tool-params-delta", id: "c1", delta: "\"3\"}" },
        { type: "tool-params-end", id: "c1" },
        { type: "tool-call", id: "c1", name: "a", params: { n: "3" } },
        { type: "finish", reason: "tool-calls", usage: { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined } }
      ], []))
      const events = yield* collect(provider, request([{ _tag: "User", text: "go" }]))
      assert.deepStrictEqual(events, [
        { _tag: "ToolCallPartial", id: "c1", name: "a", argsDelta: "{\"n\":" },
        { _tag: "ToolCallPartial", id: "c1", name: "a", argsDelta: "\"3\"}" },
        { _tag: "ToolCallComplete", id: "c1", name: "a", arguments: { n: "3" } },
        { _tag: "Done" }
      ])
    }))
})

describe("AiProvider layers", () => {
  it.effect("layerWith makes the LanguageModel in context the Provider, declared as asked; layer with the generic flags", () =>
    Effect.gen(function*() {
      const Model = Layer.effect(LanguageModel.LanguageModel, model(parts({ text: ["hi"], calls: [], usage: { input: 2, output: 1 } }), []))
      const openAi = yield* Effect.provide(Provider.Provider, AiProvider.layerWith(AiProvider.openAi).pipe(Layer.provide(Model)))
      assert.deepStrictEqual(
        [openAi.capabilities.name, openAi.capabilities.schemaDialect, openAi.capabilities.maxTools, openAi.capabilities.supportsParallelToolCalls],
        ["openai", "openai-strict", 128, true]
      )
      const generic = yield* Effect.provide(Provider.Provider, AiProvider.layer.pipe(Layer.provide(Model)))
      assert.deepStrictEqual(generic.capabilities, AiProvider.capabilities)
      const events = yield* collect(generic, request([{ _tag: "User", text: "go" }]))
      assert.deepStrictEqual(events, [{ _tag: "TextDelta", text: "hi" }, { _tag: "Usage", inputTokens: 2, outputTokens: 1 }, { _tag: "Done" }])
    }))
})

describe("AiProvider: tool names are data", () => {
  it.effect("tools named __proto__ and constructor go out and their calls come back", () =>
    Effect.gen(function*() {
      const seen: Array<LanguageModel.ProviderOptions> = []
      const provider = AiProvider.fromLanguageModel(yield* model([
        { type: "tool-call", id: "c1", name: "__proto__", params: { n: 1 } },
        { type: "tool-call", id: "c2", name: "constructor", params: {} },
        { type: "finish", reason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
      ], seen))
      const events = yield* collect(provider, { messages: [{ _tag: "User", text: "go" }], tools: [tool("__proto__"), tool("constructor")], toolChoice: "auto" })
      assert.deepStrictEqual(seen[0]!.tools.map((t) => t.name).sort(), ["__proto__", "constructor"])
      assert.deepStrictEqual(events.flatMap((e) => e._tag === "ToolCallComplete" ? [e.name] : []), ["__proto__", "constructor"])
    }))
})

/** A history: users, assistants with calls (arguments as JSON text or values), and their results. */
const history: fc.Arbitrary<ReadonlyArray<Message.Message>> = fc.array(
  fc.oneof(
    fc.string().map((text): Message.Message => ({ _tag: "User", text })),
    fc.record({
      text: fc.string(),
      args: fc.array(fc.oneof(fc.dictionary(fc.string(), fc.integer()), fc.dictionary(fc.string(), fc.integer()).map((o) => JSON.stringify(o))), { maxLength: 2 }),
      ok: fc.boolean()
    }).map(({ args, ok, text }): ReadonlyArray<Message.Message> => {
      const calls = args.map((a, i) => ({ id: `call_${i}`, name: "a", arguments: a }))
      return [
        { _tag: "Assistant", text, toolCalls: calls },
        ...calls.map((c): Message.Message => ({
          _tag: "ToolResult",
          callId: c.id,
          name: c.name,
          envelope: ok ? ToolEnvelope.success({ n: 1 }, { tool: "a" }) : ToolEnvelope.failure("invalid_args", "no", { tool: "a" })
        }))
      ]
    })
  ),
  { maxLength: 6 }
).map((xs) => xs.flat())

describe("AiProvider: the history as a Prompt", () => {
  it.effect.prop("every message in order; calls with their arguments as values; results as envelopes, failures marked", [history], ([messages]) =>
    Effect.gen(function*() {
      const seen: Array<LanguageModel.ProviderOptions> = []
      const provider = AiProvider.fromLanguageModel(yield* model(parts({ text: ["ok"], calls: [], usage: { input: 1, output: 1 } }), seen))
      yield* collect(provider, request(messages))
      const prompt: Prompt.Prompt = seen[0]!.prompt
      // flatten back: one entry per toolgate message (a tool message holds the run of results)
      const back = prompt.content.flatMap((m): Array<unknown> => {
        switch (m.role) {
          case "user":
            return [{ _tag: "User", text: m.content.map((p) => p.type === "text" ? p.text : "").join("") }]
          case "assistant":
            return [{
              _tag: "Assistant",
              text: m.content.map((p) => p.type === "text" ? p.text : "").join(""),
              calls: m.content.flatMap((p) => p.type === "tool-call" ? [{ id: p.id, name: p.name, params: p.params }] : [])
            }]
          case "tool":
            return m.content.map((p) => ({ _tag: "ToolResult", id: p.id, isFailure: p.isFailure, result: p.result }))
          default:
            return [m]
        }
      })
      const expected = messages.map((m) => {
        switch (m._tag) {
          case "User":
            return { _tag: "User", text: m.text }
          case "Assistant":
            return {
              _tag: "Assistant",
              text: m.text,
              calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, params: typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments }))
            }
          case "ToolResult":
            return { _tag: "ToolResult", id: m.callId, isFailure: !m.envelope.ok, result: JSON.parse(ToolEnvelope.encode(m.envelope)) }
        }
      })
      assert.deepStrictEqual(back, expected)
      // consecutive results share one tool message
      for (let i = 1; i < prompt.content.length; i++) assert.isFalse(prompt.content[i]!.role === "tool" && prompt.content[i - 1]!.role === "tool")
    }), { timeout: 60_000, fastCheck: { numRuns: 50 } })

  it.effect("the session's system prompt leads the prompt as a system message", () =>
    Effect.gen(function*() {
      const seen: Array<LanguageModel.ProviderOptions> = []
      const provider = AiProvider.fromLanguageModel(yield* model(parts({ text: ["ok"], calls: [], usage: { input: 1, output: 1 } }), seen))
      yield* collect(provider, { ...request([{ _tag: "User", text: "hi" }]), systemPrompt: "You are terse." })
      const prompt: Prompt.Prompt = seen[0]!.prompt
      assert.deepStrictEqual(prompt.content.map((m) => m.role), ["system", "user"])
      assert.strictEqual(prompt.content[0]!.role === "system" ? prompt.content[0]!.content : "", "You are terse.")
    }))
})

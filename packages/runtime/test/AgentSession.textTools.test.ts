import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { AgentSession, ArgumentValidator, type Provider, type StreamEvent, Tool, Toolkit } from "../src/index.js"
import * as TextTools from "../src/internal/textTools.js"
import { call, done, make, text } from "./support/scriptedProvider.js"

/** A tool that counts its runs and answers `n * 2`. */
const doubler = () => {
  const ran: Array<number> = []
  const tool = Tool.make("double", {
    description: "Doubles a number.",
    parameters: Schema.Struct({ n: Schema.Int }),
    execute: ({ n }) => Effect.sync(() => (ran.push(n), n * 2))
  })
  return { ran, toolkit: Either.getOrThrow(Toolkit.make(tool)) }
}

const block = (body: string) => `<tool_call>\n${body}\n</tool_call>`
const reply = (...parts: ReadonlyArray<string>): ReadonlyArray<StreamEvent.StreamEvent> => [text(parts.join("\n")), done]
const textOnly: Provider.CapabilityOverrides = { supportsToolCalling: false }

const sessionOver = (provider: Provider.AgentProvider, toolkit: Toolkit.Toolkit<never>) =>
  AgentSession.make({ provider, toolkit, mode: "local", persona: "You help." }).pipe(Effect.provide(ArgumentValidator.layer))

describe("text-routed tool calling (supportsToolCalling: false)", () => {
  it.effect("the tools ride the system prompt, a <tool_call> block runs with coerced arguments, results go back as <tool_response> text", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = doubler()
      const provider = make([
        reply("Let me compute.", block(`{"name": "double", "arguments": {"n": "21"}}`)),
        reply("It is 42.")
      ], textOnly)
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("double 21")
      assert.deepStrictEqual(ran, [21])
      assert.strictEqual(turn.text, "It is 42.")
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope), [{ ok: true, tool: "double", result: 42 }])
      for (const request of provider.requests) {
        assert.deepStrictEqual(request.tools, [])
        assert.isTrue(request.systemPrompt!.startsWith("You help.\n\n# Tools"))
        assert.include(request.systemPrompt!, `"name":"double"`)
        assert.include(request.systemPrompt!, "<tool_call>")
      }
      assert.deepStrictEqual(provider.requests[1]!.messages, [
        { _tag: "User", text: "double 21" },
        { _tag: "Assistant", text: `Let me compute.\n<tool_call>\n{"name":"double","arguments":{"n":"21"}}\n</tool_call>`, toolCalls: [] },
        { _tag: "User", text: `<tool_response>\n{"name":"double","content":{"ok":true,"tool":"double","result":42}}\n</tool_response>` }
      ])
      // history keeps the calls as calls: the text route is only how requests show them
      const history = yield* s.history
      assert.deepStrictEqual(history[1], { _tag: "Assistant", text: "Let me compute.", toolCalls: [{ id: "text_call_1_1", name: "double", arguments: { n: "21" } }] })
      assert.strictEqual(history[2]!._tag, "ToolResult")
    }))

  it.effect("a malformed block is an invalid_args repair, not a crash; nothing of that round runs", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = doubler()
      const provider = make([
        reply(block(`{"name": "double", "arguments": {"n": 2}`), block(`{"name": "double", "arguments": {"n": 3}}`)),
        reply(block(`{"name": "double", "arguments": {"n": 2}}`)),
        reply("done")
      ], textOnly)
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual(ran, [2])
      assert.deepStrictEqual(turn.usage.repairs, 1)
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok ? "ok" : c.envelope.kind), ["invalid_args", "rejected", "ok"])
      assert.include(provider.requests[1]!.messages.at(-1)!._tag === "User" ? (provider.requests[1]!.messages.at(-1) as { text: string }).text : "", "invalid_args")
    }))

  it.effect("repairs are bounded like native ones: a model that keeps writing broken blocks exhausts the budget", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = doubler()
      const broken = reply(block(`{"name": "double", "arguments": {"n": "many"}}`))
      const s = yield* sessionOver(make([broken, broken, broken], textOnly), toolkit)
      const e = yield* Effect.flip(s.send("go"))
      assert.strictEqual(e._tag, "ToolArgumentRepairExhausted")
      assert.deepStrictEqual(ran, [])
    }))

  it.effect("a ToolCallComplete event from a provider without native tool calling is a contract violation; nothing runs", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = doubler()
      const s = yield* sessionOver(make([[call("c1", "double", { n: 1 }), done]], textOnly), toolkit)
      const e = yield* Effect.flip(s.send("go"))
      assert.deepStrictEqual([e._tag, e._tag === "ProviderEventContractViolation" ? e.rule : ""], ["ProviderEventContractViolation", "tool_call_without_tool_calling"])
      assert.deepStrictEqual(ran, [])
    }))

  it.effect("a native provider never has its text parsed", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = doubler()
      const provider = make([reply(block(`{"name": "double", "arguments": {"n": 1}}`))])
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual([ran, turn.calls.length], [[], 0])
      assert.include(turn.text, "<tool_call>")
      assert.isFalse(provider.requests[0]!.systemPrompt!.includes("# Tools"))
    }))

  it.effect.prop(
    "a text-routed session answers exactly what a native one answers, call for call (layers 2 and 3 alike)",
    [fc.array(fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom<unknown>("7", "x", null, 1.5)), { minLength: 1, maxLength: 3 }), { maxLength: 4 })],
    ([rounds]) =>
      Effect.gen(function*() {
        const run = (routed: boolean) =>
          Effect.gen(function*() {
            const { ran, toolkit } = doubler()
            const scripted = rounds.map((args, r) =>
              routed
                ? reply(...args.map((n) => block(JSON.stringify({ name: "double", arguments: { n } }))))
                : [...args.map((n, i) => call(`c${r}_${i}`, "double", { n })), done]
            )
            const provider = make([...scripted, reply("end")], routed ? textOnly : {})
            const s = yield* AgentSession.make({ provider, toolkit, mode: "local", limits: { maxToolArgumentRepairs: 2 } }).pipe(
              Effect.provide(ArgumentValidator.layer)
            )
            const outcome = yield* Effect.either(s.send("go"))
            return {
              ran,
              outcome: Either.isRight(outcome) ? outcome.right.calls.map((c) => c.envelope) : outcome.left._tag
            }
          })
        assert.deepStrictEqual(yield* run(true), yield* run(false))
      }),
    { timeout: 60_000, fastCheck: { numRuns: 40 } }
  )
})

describe("TextTools.parse", () => {
  it("several blocks, the text around them, an unclosed last block", () => {
    const parsed = TextTools.parse(`Hi.\n${block(`{"name":"a","arguments":{"x":1}}`)}\nand\n<tool_call>{"name":"b"}`, 3)
    assert.deepStrictEqual(parsed, {
      text: "Hi.\n\nand",
      calls: [{ id: "text_call_3_1", name: "a", arguments: { x: 1 } }, { id: "text_call_3_2", name: "b" }]
    })
  })

  it("no block: the reply is the text, untouched; a block without a readable name keeps its text as arguments", () => {
    assert.deepStrictEqual(TextTools.parse("  plain  ", 1), { text: "  plain  ", calls: [] })
    assert.deepStrictEqual(TextTools.parse(block("not json"), 1).calls, [{ id: "text_call_1_1", name: "", arguments: "not json" }])
    assert.deepStrictEqual(TextTools.parse(block(`{"name": "a", "arguments": `), 1).calls, [{ id: "text_call_1_1", name: "a", arguments: `{"name": "a", "arguments":` }])
  })

  it("hostile replies: __proto__ keys stay data, a huge reply of blocks parses linearly", () => {
    const parsed = TextTools.parse(block(`{"name":"a","arguments":{"__proto__":{"polluted":1}}}`), 1)
    const args = parsed.calls[0]!.arguments as Record<string, unknown>
    assert.isTrue(Object.hasOwn(args, "__proto__"))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    const many = Array.from({ length: 20_000 }, (_, i) => block(`{"name":"t","arguments":{"i":${i}}}`)).join("")
    assert.strictEqual(TextTools.parse(many, 1).calls.length, 20_000)
    assert.strictEqual(TextTools.parse("<tool_call>".repeat(50_000), 1).calls.length, 1)
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import type { Message } from "@toolgate/runtime"
import * as Script from "../src/Script.js"
import { assistant, result, user } from "./support/messages.js"

const text = (t: string) => [{ _tag: "TextDelta" as const, text: t }, { _tag: "Done" as const }]

const script: Script.Script = {
  turns: [
    [[{ _tag: "ToolCallComplete", id: "c1", name: "tool", arguments: { n: 1 } }, { _tag: "Done" }], text("turn 1 done")],
    [{ fail: { reason: "overloaded", retryable: true } }],
    [text("turn 3")]
  ]
}

describe("Script.position", () => {
  it("counts User messages for the turn and Assistant messages after the last User for the round", () => {
    assert.deepStrictEqual(Script.position([]), { turn: -1, round: 0 })
    assert.deepStrictEqual(Script.position([user("hi")]), { turn: 0, round: 0 })
    const oneCall = [user("hi"), assistant("", 1), result("call_1")]
    assert.deepStrictEqual(Script.position(oneCall), { turn: 0, round: 1 })
    const twoRounds = [...oneCall, assistant("", 2), result("call_1"), result("call_2")]
    assert.deepStrictEqual(Script.position(twoRounds), { turn: 0, round: 2 })
    const committed = [...oneCall, assistant("it is sunny")]
    assert.deepStrictEqual(Script.position([...committed, user("and tomorrow?")]), { turn: 1, round: 0 })
    assert.deepStrictEqual(Script.position([...committed, user("again"), assistant("", 1), result("call_1")]), { turn: 1, round: 1 })
  })

  it("a User message made only of <tool_response> blocks (text-routed tool results) starts no turn", () => {
    const responses = user("<tool_response>\n{\"name\":\"t\",\"content\":{\"ok\":true}}\n</tool_response>\n\n<tool_response>\n{}\n</tool_response>\n")
    const textRouted = [user("hi"), assistant("<tool_call>{\"name\":\"t\",\"arguments\":{}}</tool_call>"), responses]
    assert.deepStrictEqual(Script.position(textRouted), { turn: 0, round: 1 })
    assert.deepStrictEqual(Script.position([...textRouted, assistant("done"), user("next")]), { turn: 1, round: 0 })
    // text around the blocks, an unclosed block, or no block: the user speaking
    for (const text of ["see <tool_response>x</tool_response>", "<tool_response>x", "", "  ", "<tool_response>x</tool_response> and more"]) {
      assert.isFalse(Script.isToolResponses(text), text)
    }
    assert.isTrue(Script.isToolResponses(" <tool_response></tool_response>\r\n"))
    assert.isFalse(Script.isToolResponses(42))
    // one pass: 100,000 unclosed openings are refused after a single search for the closing tag
    assert.isFalse(Script.isToolResponses("<tool_response>".repeat(100_000)))
  })

  it("a rolled-back turn keeps its User message, so the next send is the next turn", () => {
    // Turn 1 failed: the session kept only its user message; turn 2 follows it directly.
    const history = [user("first"), user("second")]
    assert.deepStrictEqual(Script.position(history), { turn: 1, round: 0 })
    assert.strictEqual(Script.select(script, history), script.turns[1]![0])
  })

  it("Assistant messages before any User message do not make a round", () => {
    assert.deepStrictEqual(Script.position([assistant("preamble"), assistant("x")]), { turn: -1, round: 0 })
    assert.deepStrictEqual(Script.position([assistant("preamble"), user("hi")]), { turn: 0, round: 0 })
  })

  it.prop(
    "matches a direct count over any conversation",
    [FastCheck.array(FastCheck.constantFrom("User", "Assistant", "ToolResult"), { maxLength: 60 })],
    ([tags]) => {
      const messages: Array<Message.Message> = tags.map((t) => t === "User" ? user("u") : t === "Assistant" ? assistant() : result("c"))
      const last = tags.lastIndexOf("User")
      const expected = {
        turn: tags.filter((t) => t === "User").length - 1,
        round: last === -1 ? 0 : tags.slice(last).filter((t) => t === "Assistant").length
      }
      assert.deepStrictEqual(Script.position(messages), expected)
    }
  )

  it("hostile lists: wrong types and inherited tags are not counted, nothing throws, a million messages are fine", () => {
    const inherited = Object.create({ _tag: "User" }) as Message.Message
    const junk = [null, 42, "User", [], { _tag: 7 }, inherited, { ["__proto__"]: { _tag: "User" } }] as unknown as Array<Message.Message>
    assert.deepStrictEqual(Script.position(junk), { turn: -1, round: 0 })
    assert.deepStrictEqual(Script.position(null as unknown as Array<Message.Message>), { turn: -1, round: 0 })
    assert.deepStrictEqual(Script.position({ length: 5 } as unknown as Array<Message.Message>), { turn: -1, round: 0 })
    const huge: Array<Message.Message> = [user("go")]
    for (let i = 0; i < 1_000_000; i++) huge.push(assistant())
    assert.deepStrictEqual(Script.position(huge), { turn: 0, round: 1_000_000 })
    assert.isUndefined(({} as Record<string, unknown>)["_tag"])
  })
})

describe("Script.select", () => {
  it("picks turns[turn][round] of real conversations, undefined past the end", () => {
    assert.strictEqual(Script.select(script, [user("a")]), script.turns[0]![0])
    assert.strictEqual(Script.select(script, [user("a"), assistant("", 1), result("call_1")]), script.turns[0]![1])
    const afterTurn1 = [user("a"), assistant("", 1), result("call_1"), assistant("turn 1 done")]
    assert.strictEqual(Script.select(script, [...afterTurn1, user("b")]), script.turns[1]![0])
    assert.isUndefined(Script.select(script, [...afterTurn1, user("b"), assistant("x")]))
    assert.strictEqual(Script.select(script, [...afterTurn1, user("b"), user("c")]), script.turns[2]![0])
    assert.isUndefined(Script.select(script, [user("1"), user("2"), user("3"), user("4")]))
    assert.isUndefined(Script.select(script, []))
  })

  it("hostile scripts: missing or wrong-typed turns, sparse arrays, inherited indices", () => {
    const messages = [user("a")]
    for (const bad of [null, {}, { turns: null }, { turns: "ab" }, { turns: [null] }, { turns: [{ 0: [] }] }, { turns: [[]] }]) {
      assert.isUndefined(Script.select(bad as unknown as Script.Script, messages), JSON.stringify(bad))
    }
    const inherited = Object.assign(Object.create([[[{ _tag: "Done" }]]]) as object, { length: 0 })
    assert.isUndefined(Script.select({ turns: inherited } as unknown as Script.Script, messages))
  })
})

describe("Script.decode", () => {
  it("accepts the JSON shape: event rounds and failure rounds", () => {
    const json = JSON.parse(JSON.stringify(script)) as unknown
    const decoded = Script.decode(json)
    assert.isTrue(Either.isRight(decoded))
    assert.deepStrictEqual(Either.getOrThrow(decoded), script)
    assert.isTrue(Script.isFailure(script.turns[1]![0]!))
    assert.isFalse(Script.isFailure(script.turns[0]![0]!))
  })

  it("reports every error of a broken script", () => {
    const broken = {
      turns: [[[{ _tag: "TextDelta", text: 1 }], { fail: { reason: "x" } }], [[{ _tag: "Nope" }]]]
    }
    const decoded = Script.decode(broken)
    assert.isTrue(Either.isLeft(decoded))
    const message = Either.isLeft(decoded) ? decoded.left.message : ""
    assert.include(message, "text")
    assert.include(message, "retryable")
    assert.include(message, "Nope")
  })

  it("hostile input: wrong types, __proto__ keys (stay data), 10,000-level arguments, huge strings", () => {
    for (const bad of [null, undefined, 42, "turns", [], { turns: {} }, { turns: [[42]] }]) {
      assert.isTrue(Either.isLeft(Script.decode(bad)), String(bad))
    }
    const proto = JSON.parse(
      `{"turns":[[[{"_tag":"ToolCallComplete","id":"c","name":"t","arguments":{"__proto__":{"polluted":true}}}]]],"__proto__":{"polluted":true}}`
    ) as unknown
    const decoded = Script.decode(proto)
    assert.isTrue(Either.isRight(decoded))
    const event = Either.isRight(decoded) ? (decoded.right.turns[0]![0] as ReadonlyArray<{ readonly arguments?: unknown }>)[0] : undefined
    assert.isTrue(Object.hasOwn(event?.arguments as object, "__proto__"))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    let deep: unknown = "leaf"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const deepScript = { turns: [[[{ _tag: "ToolCallComplete", id: "c", name: "t", arguments: deep }]]] }
    assert.isTrue(Either.isRight(Script.decode(deepScript)))
    const big = { turns: [[[{ _tag: "TextDelta", text: "x".repeat(5_000_000) }]]] }
    assert.isTrue(Either.isRight(Script.decode(big)))
  })
})

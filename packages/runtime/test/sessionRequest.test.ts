import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck } from "effect"
import { type JsonSchema, JsonValue as J, Normalize, RefAware, Validator } from "@toolgate/json-schema"
import { tools as corpusTools } from "@toolgate/test-support/corpus"
import type * as Message from "../src/Message.js"
import * as Provider from "../src/Provider.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { definitions, messages, unusableParameters } from "../src/internal/sessionRequest.js"

const caps = (over: Provider.CapabilityOverrides = {}): Provider.ProviderCapabilities =>
  Provider.capabilities({ name: "test-provider", supportsParallelToolCalls: true, supportsToolChoice: true, requiresNetworking: false, ...over })

const off = { toolChaining: false, strictDisabled: false } as const

const tool = (name: string, parameters: unknown) =>
  Tool.make(name, { description: `the ${name} tool`, parameters: parameters as JsonSchema.JsonSchema, execute: () => Effect.succeed(null) })

const kit = (...tools: ReadonlyArray<Tool.Tool<any, never>>) => Either.getOrThrow(Toolkit.make(...tools))

const weather = tool("weather", {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city"]
})

const dialects: ReadonlyArray<Provider.SchemaDialect> = ["openai-strict", "google", "cca", "mcp", "none"]

// The shared corpus, every tool under a unique name (the corpus repeats names across sources).
const corpus = corpusTools().map((t, i) => ({ source: t, tool: tool(`t${i}`, t.parameters) }))
const corpusKit = kit(...corpus.map((c) => c.tool))

/** Lets the test worker answer its runner between slices of a long synchronous check. */
const breathe = (i: number): Promise<void> | undefined => i % 250 === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined

describe("definitions on the corpus (corpus/tools.jsonl)", () => {
  it("openai-strict: strict exactly when Normalize.openAiStrict enforced, with its schema; otherwise the schema as declared", () => {
    const defs = (definitions(corpusKit, caps({ schemaDialect: "openai-strict" }), off))
    assert.strictEqual(defs.tools.length, corpus.length)
    const problems: Array<string> = []
    let strict = 0
    for (const [i, { tool: t }] of corpus.entries()) {
      const d = defs.tools[i]!
      const expected = Normalize.openAiStrict(t.jsonSchema)
      if (d.name !== t.name || d.description !== t.description) problems.push(`${t.name}: renamed`)
      if (d.strict !== expected.strict) problems.push(`${t.name}: strict ${d.strict}, normaliser ${expected.strict}`)
      if (defs.strict.has(t.name) !== expected.strict) problems.push(`${t.name}: strict set disagrees`)
      if (J.stringify(d.parameters) !== J.stringify(expected.schema)) problems.push(`${t.name}: other parameters`)
      if (!expected.strict && d.parameters !== t.jsonSchema) problems.push(`${t.name}: non-strict is not the declared schema`)
      if (d.strict) strict++
    }
    assert.deepStrictEqual(problems, [])
    assert.strictEqual(defs.strict.size, strict)
    // both outcomes are exercised by real schemas
    assert.isAbove(strict, 1000)
    assert.isAbove(corpus.length - strict, 10)
  }, 120_000)

  it("openai-strict with strict mode disabled: nothing strict, every schema as declared", () => {
    const defs = (definitions(corpusKit, caps({ schemaDialect: "openai-strict" }), { toolChaining: false, strictDisabled: true }))
    assert.strictEqual(defs.strict.size, 0)
    assert.isTrue(defs.tools.every((d, i) => !d.strict && d.parameters === corpus[i]!.tool.jsonSchema))
  })

  it("google, cca and mcp: that normaliser's schema; none: the schema itself; never strict", () => {
    const normalisers = { google: Normalize.google, cca: Normalize.cca, mcp: Normalize.mcp }
    for (const dialect of ["google", "cca", "mcp"] as const) {
      const defs = (definitions(corpusKit, caps({ schemaDialect: dialect }), off))
      const wrong = defs.tools.filter((d, i) =>
        d.strict || J.stringify(d.parameters) !== J.stringify(normalisers[dialect](corpus[i]!.tool.jsonSchema).schema)
      )
      assert.deepStrictEqual(wrong.map((d) => d.name), [], dialect)
      assert.strictEqual(defs.strict.size, 0)
    }
    const none = (definitions(corpusKit, caps(), off))
    assert.isTrue(none.tools.every((d, i) => !d.strict && d.parameters === corpus[i]!.tool.jsonSchema))
  }, 120_000)

  it("chaining widens first: every dialect normalises the widened schema, strict decided on it", () => {
    const chain = { toolChaining: true, strictDisabled: false }
    const widened = corpus.map((c) => RefAware.widen(c.tool.jsonSchema))
    const strict = (definitions(corpusKit, caps({ schemaDialect: "openai-strict" }), chain))
    const problems: Array<string> = []
    for (const [i, d] of strict.tools.entries()) {
      const expected = Normalize.openAiStrict(widened[i]!)
      if (d.strict !== expected.strict || J.stringify(d.parameters) !== J.stringify(expected.schema)) problems.push(d.name)
    }
    const mcp = (definitions(corpusKit, caps({ schemaDialect: "mcp" }), chain))
    for (const [i, d] of mcp.tools.entries()) {
      if (J.stringify(d.parameters) !== J.stringify(Normalize.mcp(widened[i]!).schema)) problems.push(`mcp ${d.name}`)
    }
    const none = (definitions(corpusKit, caps(), chain))
    for (const [i, d] of none.tools.entries()) {
      if (J.stringify(d.parameters) !== J.stringify(widened[i])) problems.push(`none ${d.name}`)
    }
    assert.deepStrictEqual(problems, [])
  }, 120_000)

  it("widened mcp definitions of a third of the tools with examples keep them and accept a sentinel ref in the first property", async () => {
    const withExamples = corpus.filter((c) => c.source.examples.length > 0).filter((_, i) => i % 3 === 0)
    const defs = definitions(kit(...withExamples.map((c) => c.tool)), caps({ schemaDialect: "mcp" }), { toolChaining: true, strictDisabled: false })
    const problems: Array<string> = []
    let accepted = 0
    for (const [i, { source, tool: t }] of withExamples.entries()) {
      await breathe(i)
      const base = Validator.compile(t.jsonSchema)
      const sent = Validator.compile(defs.tools[i]!.parameters)
      if (Either.isLeft(base) || Either.isLeft(sent)) continue
      const props = typeof t.jsonSchema === "object" ? t.jsonSchema["properties"] : undefined
      const key = typeof props === "object" && props !== null && !Array.isArray(props) ? Object.keys(props)[0] : undefined
      for (const example of source.examples) {
        if (!base.right.isValid(example) || typeof example !== "object" || example === null || Array.isArray(example)) continue
        if (!sent.right.isValid(example)) problems.push(`${t.name}: lost an example`)
        if (key === undefined) continue
        if (sent.right.isValid({ ...example, [key]: { $tool: "call_1", $path: "result.value" } })) accepted++
        else problems.push(`${t.name}: refused a ref at ${key}`)
      }
    }
    assert.deepStrictEqual(problems, [])
    assert.isAbove(accepted, 700)
  }, 240_000)
})

describe("definitions: limits and flags", () => {
  const three = kit(weather, tool("b", { type: "object" }), tool("c", { type: "object" }))

  it("tool calling unsupported: the definitions are built all the same (the request leaves them out, or routes them through text)", () => {
    const native = definitions(three, caps({ schemaDialect: "mcp" }), off)
    assert.deepStrictEqual(definitions(three, caps({ supportsToolCalling: false, schemaDialect: "mcp" }), off), native)
  })

  it("a small schema under openai-strict: enforced and strict; strict disabled: the declared schema, not strict", () => {
    const strict = (definitions(kit(weather), caps({ schemaDialect: "openai-strict" }), off))
    const d = strict.tools[0]!
    assert.isTrue(d.strict)
    assert.deepStrictEqual([...strict.strict], ["weather"])
    assert.deepStrictEqual((d.parameters as { required: ReadonlyArray<string> }).required, ["city", "days"])
    assert.strictEqual((d.parameters as { additionalProperties: unknown }).additionalProperties, false)
    const loose = (definitions(kit(weather), caps({ schemaDialect: "openai-strict" }), { toolChaining: false, strictDisabled: true }))
    assert.strictEqual(loose.tools[0]!.parameters, weather.jsonSchema)
    assert.isFalse(loose.tools[0]!.strict)
  })

  it("a tool whose schema could not be built is listed with an empty object schema, never strict, never widened", () => {
    const broken = tool("broken", { get type(): string { throw new Error("hostile") } })
    assert.isDefined(broken.schemaError)
    for (const dialect of dialects) {
      const defs = (definitions(kit(weather, broken), caps({ schemaDialect: dialect }), { toolChaining: true, strictDisabled: false }))
      assert.deepStrictEqual(defs.tools.map((t) => t.name), ["weather", "broken"])
      assert.strictEqual(defs.tools[1]!.parameters, unusableParameters)
      assert.isFalse(defs.strict.has("broken"))
    }
    assert.deepStrictEqual(unusableParameters, { type: "object" })
  })

  it("hostile: __proto__ and constructor tool names, 10,000-level schemas, in every dialect, with chaining", () => {
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    const names = kit(tool("__proto__", weather.jsonSchema), tool("constructor", { type: "object" }), tool("deep", deep))
    for (const dialect of dialects) {
      for (const toolChaining of [false, true]) {
        const defs = (definitions(names, caps({ schemaDialect: dialect }), { toolChaining, strictDisabled: false }))
        assert.deepStrictEqual(defs.tools.map((t) => t.name), ["__proto__", "constructor", "deep"])
        if (dialect === "openai-strict") assert.isTrue(defs.strict.has("__proto__"))
      }
    }
    assert.isUndefined(({} as Record<string, unknown>)["city"])
    assert.strictEqual(Object.getPrototypeOf({}), Object.prototype)
  })
})

// ---------------------------------------------------------------------------------------------------------
// messages

const user = (text: string): Message.Message => ({ _tag: "User", text })
const assistant = (text: string, calls: ReadonlyArray<Message.ToolCall> = []): Message.Message => ({ _tag: "Assistant", text, toolCalls: calls })
const result = (callId: string): Message.Message => ({ _tag: "ToolResult", callId, name: "weather", envelope: { ok: true, result: { c: 21 } } })

/** One turn: a user message, a round with a call and its result, and the final answer. */
const turn = (n: number, size = 10): ReadonlyArray<Message.Message> => [
  user(`question ${n} ${"x".repeat(size)}`),
  assistant("", [{ id: `c${n}`, name: "weather", arguments: { city: "Oslo" } }]),
  result(`c${n}`),
  assistant(`answer ${n}`)
]

const estimate = (ms: ReadonlyArray<Message.Message>): number => J.stringify(ms)!.length / 4

describe("messages", () => {
  const history = [...turn(1), ...turn(2), ...turn(3)]
  const turnStart = 8

  it("no window, not managed: every message", () => {
    assert.deepStrictEqual(messages(caps(), history, turnStart, 0), history)
  })

  it("managed conversation: only what the provider has not seen", () => {
    const managed = caps({ managedConversation: true })
    assert.deepStrictEqual(messages(managed, history, turnStart, 5), history.slice(5))
    assert.deepStrictEqual(messages(managed, history, turnStart, history.length), [])
    assert.deepStrictEqual(messages(managed, history, turnStart, 99), [])
    // an index of the wrong kind never loses messages
    assert.deepStrictEqual(messages(managed, history, turnStart, -3), history)
    assert.deepStrictEqual(messages(managed, history, turnStart, Number.NaN), history)
    assert.deepStrictEqual(messages(caps(), history, turnStart, 5), history, "seen is ignored when not managed")
  })

  it("a window everything fits in keeps everything; a small one leaves out the oldest whole turns", () => {
    assert.deepStrictEqual(messages(caps({ contextWindow: 1_000_000 }), history, turnStart, 0), history)
    const twoTurns = estimate(history.slice(4))
    assert.deepStrictEqual(messages(caps({ contextWindow: Math.ceil(twoTurns) }), history, turnStart, 0), history.slice(4))
    assert.deepStrictEqual(messages(caps({ contextWindow: Math.ceil(twoTurns) - 1 }), history, turnStart, 0), history.slice(8))
  })

  it("the current turn is kept even when it alone exceeds the window", () => {
    const big = [...turn(1), ...turn(2, 100_000)]
    assert.deepStrictEqual(messages(caps({ contextWindow: 10 }), big, 4, 0), big.slice(4))
    assert.deepStrictEqual(messages(caps({ contextWindow: 0 }), big, 4, 0), big.slice(4))
    // mid-turn (rounds of the current turn already in history) it is kept whole too
    assert.deepStrictEqual(messages(caps({ contextWindow: 0 }), history, turnStart, 0), history.slice(turnStart))
  })

  it("managed slicing first, then the window on what is left (a slice opening mid-turn counts as one turn)", () => {
    const cut = messages(caps({ managedConversation: true, contextWindow: 0 }), history, turnStart, 2)
    assert.deepStrictEqual(cut, history.slice(turnStart))
    const fits = messages(caps({ managedConversation: true, contextWindow: Math.ceil(estimate(history.slice(2))) }), history, turnStart, 2)
    assert.deepStrictEqual(fits, history.slice(2))
    const partial = messages(caps({ managedConversation: true, contextWindow: Math.ceil(estimate(history.slice(4))) }), history, turnStart, 2)
    assert.deepStrictEqual(partial, history.slice(4))
    // seen past the current turn's start: only its unseen part, never trimmed
    assert.deepStrictEqual(messages(caps({ managedConversation: true, contextWindow: 0 }), history, turnStart, 10), history.slice(10))
  })

  const turnArb = FastCheck.tuple(
    FastCheck.string({ maxLength: 60 }),
    FastCheck.array(FastCheck.string({ maxLength: 30 }), { maxLength: 3 })
  ).map(([question, answers]): ReadonlyArray<Message.Message> => [user(question), ...answers.map((a) => assistant(a))])

  it.prop("window trimming: a suffix starting at a turn, fitting unless only the current turn is left, dropping no more than needed", [
    FastCheck.array(turnArb, { minLength: 1, maxLength: 8 }),
    FastCheck.integer({ min: 0, max: 200 })
  ], ([turns, window]) => {
    const all = turns.flat()
    const starts = turns.map((_, i) => turns.slice(0, i).flat().length)
    const current = starts[starts.length - 1]!
    const out = messages(caps({ contextWindow: window }), all, current, 0)
    const from = all.length - out.length
    assert.deepStrictEqual(out, all.slice(from))
    assert.include(starts, from)
    assert.isAtMost(from, current)
    if (from < current) assert.isAtMost(estimate(out), window)
    const previous = starts.filter((s) => s < from).pop()
    if (previous !== undefined) assert.isAbove(estimate(all.slice(previous)), window)
  })

  it.prop("managed then windowed is the window applied to the unseen messages, the current turn kept from where it is unseen", [
    FastCheck.array(turnArb, { minLength: 1, maxLength: 6 }),
    FastCheck.nat(30),
    FastCheck.integer({ min: 0, max: 150 })
  ], ([turns, seenSeed, window]) => {
    const all = turns.flat()
    const current = all.length - turns[turns.length - 1]!.length
    const seen = seenSeed % (all.length + 1)
    const managed = messages(caps({ managedConversation: true, contextWindow: window }), all, current, seen)
    const unseen = messages(caps({ contextWindow: window }), all.slice(seen), Math.max(0, current - seen), 0)
    assert.deepStrictEqual(managed, unseen)
    assert.isAtMost(managed.length, all.length - seen)
    const kept = all.slice(Math.max(seen, current))
    assert.deepStrictEqual(managed.slice(managed.length - kept.length), kept)
  })

  it("hostile: huge arguments, 10,000-level arguments, __proto__ ids, bad indices", () => {
    let deep: J.JsonValue = 1
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    const hostile = [
      user("old"),
      assistant("", [{ id: "__proto__", name: "constructor", arguments: deep }]),
      result("__proto__"),
      user("now"),
      assistant("", [{ id: "c", name: "weather", arguments: "x".repeat(1_000_000) }])
    ]
    assert.deepStrictEqual(messages(caps({ contextWindow: 100 }), hostile, 3, 0), hostile.slice(3))
    assert.deepStrictEqual(messages(caps({ contextWindow: 100 }), hostile, Number.NaN, 0), hostile)
    assert.deepStrictEqual(messages(caps({ contextWindow: 100 }), hostile, 999, 0), [])
    assert.deepStrictEqual(messages(caps({ contextWindow: Number.NaN }), hostile, 3, 0), hostile)
    assert.deepStrictEqual(messages(caps({ contextWindow: 100 }), [], 0, 0), [])
    assert.strictEqual(Object.getPrototypeOf({}), Object.prototype)
  })
})

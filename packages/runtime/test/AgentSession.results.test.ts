import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fc from "effect/FastCheck"
import { JsonValue as J } from "@toolgate/json-schema"
import * as Tool from "../src/Tool.js"
import * as ToolEnvelope from "../src/ToolEnvelope.js"
import * as Toolkit from "../src/Toolkit.js"
import { copyJson, forModel } from "../src/internal/toolOutcome.js"
import { utf8Length } from "../src/internal/text.js"
import { truncateBytesForModel } from "../src/internal/truncate.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

/** A tool that answers with `value()` and keeps what it returned, so the test can change it afterwards. */
const keeper = (value: () => unknown) => {
  const returned: Array<unknown> = []
  const tool = Tool.make("get", {
    description: "Gets a value.",
    parameters: { type: "object" },
    execute: () => Effect.sync(() => {
      const v = value()
      returned.push(v)
      return v
    })
  })
  return { returned, toolkit: Either.getOrThrow(Toolkit.make(tool)) }
}

type Mutation = (target: Record<string, unknown> & { list: Array<unknown> }) => void
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.string(), fc.jsonValue()).map(([k, v]): Mutation => (t) => void (t[k] = v)),
  fc.constant<Mutation>((t) => void delete t["name"]),
  fc.constant<Mutation>((t) => void (t["self"] = t)),
  fc.constant<Mutation>((t) => void (t["big"] = 10n)),
  fc.constant<Mutation>((t) => void (t["fn"] = () => 1)),
  fc.constant<Mutation>((t) => void t.list.push(t)),
  fc.constant<Mutation>((t) => void (t.list.length = 0)),
  fc.constant<Mutation>((t) => void ((t["nested"] as Record<string, unknown>)["deep"] = 10n))
)

describe("tool results are copied when they are produced", () => {
  it.effect.prop(
    "whatever an executor does to its returned value afterwards, history and the turn's calls are unchanged, and later sends work",
    [fc.jsonValue(), fc.array(mutation, { minLength: 1, maxLength: 5 })],
    ([extra, mutations]) =>
      Effect.gen(function*() {
        const { returned, toolkit } = keeper(() => ({ name: "n", list: [1, { a: "b" }], nested: { x: extra } }))
        const provider = make([[call("c1", "get", {}), done], answer("got it"), answer("again")])
        const s = yield* session(provider, toolkit)
        const turn = yield* s.send("get")
        const before = J.stringify(yield* s.history)
        const calls = J.stringify(turn.calls)
        for (const m of mutations) m(returned[0] as Record<string, unknown> & { list: Array<unknown> })
        assert.strictEqual(J.stringify(yield* s.history), before)
        assert.strictEqual(J.stringify(turn.calls), calls)
        assert.strictEqual((yield* s.send("more")).text, "again")
        assert.deepStrictEqual(J.stringify(provider.requests[2]!.messages.slice(0, 3)), J.stringify((yield* s.history).slice(0, 3)))
      }),
    { timeout: 60_000, fastCheck: { numRuns: 25 } }
  )

  const notJson: ReadonlyArray<readonly [string, () => unknown, string]> = [
    ["a cycle", () => { const o: Record<string, unknown> = {}; o["o"] = o; return o }, "cycle"],
    ["a bigint", () => ({ n: 1n }), "bigint"],
    ["a function", () => [() => 1], "function"],
    ["a class instance", () => ({ d: new Date(0) }), "not a plain object"],
    ["a getter", () => Object.defineProperty({}, "g", { get: () => 1, enumerable: true }), "not a plain data property"],
    ["a throwing Proxy", () => new Proxy({}, { ownKeys: () => { throw new Error("trap") } }), "could not be read"],
    ["NaN", () => ({ n: Number.NaN }), "NaN"],
    ["2,000 levels", () => { let v: unknown = 1; for (let i = 0; i < 2000; i++) v = [v]; return v }, "deeper than 1000"]
  ]
  for (const [name, value, says] of notJson) {
    it.effect(`a result holding ${name} is an execution_error envelope when it is produced; the turn goes on`, () =>
      Effect.gen(function*() {
        const { toolkit } = keeper(value)
        const s = yield* session(make([[call("c1", "get", {}), done], answer("sorry")]), toolkit)
        const turn = yield* s.send("get")
        const envelope = turn.calls[0]!.envelope
        assert.strictEqual(envelope.ok ? "ok" : envelope.kind, "execution_error")
        assert.include(envelope.ok ? "" : envelope.message, says)
        assert.strictEqual(turn.text, "sorry")
      }).pipe(Effect.catchAllCause(Effect.die)))
  }

  it("copyJson keeps a __proto__ key as an own key and copies shared members", () => {
    const shared = { v: 1 }
    const copied = copyJson(JSON.parse("{\"__proto__\":{\"polluted\":1},\"a\":[1]}"))
    assert.isTrue(Either.isRight(copied))
    assert.deepStrictEqual(Object.keys(Either.getOrThrow(copied) as object), ["__proto__", "a"])
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.deepStrictEqual(Either.getOrThrow(copyJson([shared, shared])), [{ v: 1 }, { v: 1 }])
  })
})

describe("tool results are bounded for the model (RunLimits.maxToolResultBytes)", () => {
  it.effect("a 1.2 MB result: the model and history get at most 100,000 bytes (head and tail), the turn's call keeps it whole", () =>
    Effect.gen(function*() {
      const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: "é row ".repeat(8) })) }
      const { toolkit } = keeper(() => big)
      const provider = make([[call("c1", "get", {}), done], answer("read it")])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("get")
      const sent = turn.calls[0]!
      assert.isAbove(utf8Length(J.stringify(big)!), 1_000_000)
      assert.isAtMost(utf8Length(ToolEnvelope.encode(sent.envelope)), 100_000)
      assert.isTrue(sent.envelope.ok && typeof sent.envelope.result === "string" && sent.envelope.result.includes("bytes omitted"))
      assert.isTrue(sent.envelope.ok && String(sent.envelope.result).startsWith("{\"rows\":[{\"id\":0"))
      assert.deepStrictEqual(sent.wholeEnvelope, { ok: true, tool: "get", result: big })
      const toModel = provider.requests[1]!.messages.at(-1)!
      assert.deepStrictEqual(toModel, { _tag: "ToolResult", callId: "c1", name: "get", envelope: sent.envelope })
    }))

  it.effect("a provider-driven call's result is bounded the same way in history; the turn's call keeps it whole", () =>
    Effect.gen(function*() {
      const { toolkit } = keeper(() => null)
      const big = { text: "x".repeat(300_000) }
      const provider = make([[
        { _tag: "ToolCallStarted", id: "p1", name: "get" },
        { _tag: "ToolCallCompleted", id: "p1", result: big },
        done
      ]], { executionModel: "providerDriven" })
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("get")
      const result = (yield* s.history).find((m) => m._tag === "ToolResult")
      assert.isTrue(result?._tag === "ToolResult" && utf8Length(ToolEnvelope.encode(result.envelope)) <= 100_000)
      assert.deepStrictEqual(result?._tag === "ToolResult" && result.envelope, turn.calls[0]!.envelope)
      assert.deepStrictEqual(turn.calls[0]!.wholeEnvelope, { ok: true, tool: "get", result: big })
    }))

  it.effect("the limit is decoded (at least 1,024) and applies to failures too", () =>
    Effect.gen(function*() {
      const loud = Tool.make("loud", { description: "Fails loudly.", parameters: { type: "object" }, execute: () => Tool.fail("rejected", "no ".repeat(10_000)) })
      const toolkit = Either.getOrThrow(Toolkit.make(loud))
      const s = yield* session(make([[call("c1", "loud", {}), done], answer("ok")]), toolkit, { limits: { maxToolResultBytes: 2048 } })
      const turn = yield* s.send("go")
      assert.isAtMost(utf8Length(ToolEnvelope.encode(turn.calls[0]!.envelope)), 2048)
      const whole = turn.calls[0]!.wholeEnvelope
      assert.isTrue(whole !== undefined && !whole.ok && whole.message.startsWith("no no") && utf8Length(whole.message) > 2048)
      for (const bad of [1023, 0, -5, 2.5]) {
        const e = yield* Effect.flip(session(make([]), toolkit, { limits: { maxToolResultBytes: bad } }))
        assert.strictEqual(e._tag, "InvalidOptions")
      }
    }))

  it.prop(
    "forModel: the envelope the model gets is at most maxBytes of UTF-8 JSON; one that fits is unchanged",
    [fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: "grapheme", maxLength: 3000 }), fc.integer({ min: 1024, max: 8192 })],
    ([value, text, maxBytes]) => {
      const envelope = ToolEnvelope.success({ value: value as J.JsonValue, text, more: text.repeat(3) }, { tool: "t" })
      const { envelope: sent, whole } = forModel(envelope, maxBytes)
      assert.isAtMost(utf8Length(J.stringify(sent)!), maxBytes)
      if (whole === undefined) assert.strictEqual(sent, envelope)
      else assert.strictEqual(whole, envelope)
    }
  )

  it.prop(
    "truncateBytesForModel: at most maxBytes, never a split surrogate pair, unchanged when it fits, idempotent",
    [fc.string({ unit: fc.oneof(fc.constant("a"), fc.constant("é"), fc.constant("€"), fc.constant("😀")), maxLength: 2000 }), fc.integer({ min: 0, max: 3000 })],
    ([text, maxBytes]) => {
      const cut = truncateBytesForModel(text, maxBytes)
      assert.isAtMost(utf8Length(cut), Math.max(maxBytes, 0))
      assert.isFalse(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(cut))
      if (utf8Length(text) <= maxBytes) assert.strictEqual(cut, text)
      assert.strictEqual(truncateBytesForModel(cut, maxBytes), cut)
    }
  )
})

import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as JsonValue from "../src/JsonValue.js"

const deep = (levels: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { a: [v] }
  return v
}

describe("JsonValue", () => {
  it("guards and type names", () => {
    assert.isTrue(JsonValue.isObject({}))
    assert.isFalse(JsonValue.isObject([]))
    assert.isFalse(JsonValue.isObject(null))
    assert.isTrue(JsonValue.isArray([]))
    assert.deepStrictEqual(
      [null, true, 1, 1.5, "s", [], {}].map((v) => JsonValue.typeOf(v as JsonValue.JsonValue)),
      ["null", "boolean", "integer", "number", "string", "array", "object"]
    )
  })

  it.prop("isJsonValue accepts what JSON.parse makes", [FastCheck.jsonValue()], ([v]) => {
    assert.isTrue(JsonValue.isJsonValue(JSON.parse(JSON.stringify(v))))
  })

  it("isJsonValue refuses what JSON cannot carry, without throwing", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const getter = Object.defineProperty({}, "x", { enumerable: true, get: () => { throw new Error("boom") } })
    const trap = new Proxy({}, { ownKeys: () => { throw new Error("trap") } })
    const hidden = Object.defineProperty({}, "x", { value: 1, enumerable: false })
    const holes = [1, , 3] // eslint-disable-line no-sparse-arrays
    for (const bad of [undefined, NaN, Infinity, () => 1, 1n, Symbol("s"), new Date(), new Map(), cyclic, getter, trap, hidden, holes, { [Symbol("k")]: 1 }, { a: undefined }, [NaN]]) {
      assert.isFalse(JsonValue.isJsonValue(bad), String(typeof bad))
    }
  })

  it("isJsonValue takes 10,000 levels, shared (not cyclic) members and __proto__ keys", () => {
    assert.isTrue(JsonValue.isJsonValue(deep(10_000)))
    const shared = { k: 1 }
    assert.isTrue(JsonValue.isJsonValue({ a: shared, b: [shared, shared] })) // a DAG is JSON; only a cycle is not
    assert.isTrue(JsonValue.isJsonValue(JSON.parse('{"__proto__": {"polluted": true}}')))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("fromEntries keeps __proto__ an own key and never touches a prototype", () => {
    const o = JsonValue.fromEntries([["__proto__", { polluted: true }], ["constructor", 1]])
    assert.deepStrictEqual(Object.keys(o), ["__proto__", "constructor"])
    assert.strictEqual(Object.getPrototypeOf(o), Object.prototype)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it.prop("equals is structural and ignores key order", [FastCheck.jsonValue(), FastCheck.jsonValue()], ([a, b]) => {
    const norm = (v: unknown) => JSON.parse(JSON.stringify(v)) as JsonValue.JsonValue
    assert.isTrue(JsonValue.equals(norm(a), structuredClone(norm(a))))
    assert.strictEqual(JsonValue.equals(norm(a), norm(b)), JsonValue.equals(norm(b), norm(a)))
  })

  it("equals: key order, arrays against objects, nested differences", () => {
    assert.isTrue(JsonValue.equals({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }))
    assert.isFalse(JsonValue.equals({ a: 1 }, { a: 1, b: 2 }))
    assert.isFalse(JsonValue.equals([1], { 0: 1 }))
    assert.isFalse(JsonValue.equals({ a: [1, 2] }, { a: [2, 1] }))
  })

  it("equals compares 10,000 and 100,000 levels without running out of stack, and own keys only", () => {
    for (const levels of [10_000, 100_000]) {
      const a = deep(levels) as JsonValue.JsonValue
      assert.isTrue(JsonValue.equals(a, deep(levels) as JsonValue.JsonValue))
      assert.isFalse(JsonValue.equals(a, deep(levels - 1) as JsonValue.JsonValue))
    }
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as JsonValue.JsonValue
    assert.isFalse(JsonValue.equals(withProto, {}))
    assert.isFalse(JsonValue.equals({}, withProto))
    assert.isTrue(JsonValue.equals(withProto, JSON.parse('{"__proto__": {"x": 1}}') as JsonValue.JsonValue))
    assert.isFalse(JsonValue.equals({ constructor: 1 }, { toString: 1 }))
    assert.isFalse(JsonValue.equals("7".repeat(10_000_000), "7".repeat(10_000_000 - 1) + "8"))
  })

  it("fromEntries answers wrong types with what it can read, never a throw", () => {
    const wrong: ReadonlyArray<unknown> = [null, undefined, 5, "ab", {}, [null, 1, ["k"], [2, 3], ["ok", 1]]]
    for (const w of wrong) assert.doesNotThrow(() => JsonValue.fromEntries(w as Iterable<readonly [string, JsonValue.JsonValue]>))
    assert.deepStrictEqual(JsonValue.fromEntries(wrong[5] as Iterable<readonly [string, JsonValue.JsonValue]>), { ok: 1 })
    assert.deepStrictEqual(JsonValue.fromEntries(null as never), {})
  })

  const wrapped = (levels: number, v: unknown): unknown => {
    let out = v
    for (let i = 0; i < levels; i++) out = i % 2 === 0 ? [out] : { a: out, skip: undefined }
    return out
  }
  const expected = (levels: number, inner: string): string => {
    let out = inner
    for (let i = 0; i < levels; i++) out = i % 2 === 0 ? `[${out}]` : `{"a":${out}}`
    return out
  }

  it.prop("stringify writes what JSON.stringify writes, also past the engine's stack (the iterative writer)", [FastCheck.jsonValue()], ([v]) => {
    assert.strictEqual(JsonValue.stringify(v), JSON.stringify(v))
    assert.strictEqual(JsonValue.stringify(wrapped(20_000, v)), expected(20_000, JSON.stringify(v)))
  }, { fastCheck: { numRuns: 20 } })

  it("stringify leaves out what JSON.stringify leaves out, and never throws", () => {
    const value = { a: undefined, b: [undefined, 1, () => 1], c: NaN, d: { e: Symbol("s") } }
    assert.strictEqual(JsonValue.stringify(value), JSON.stringify(value))
    assert.strictEqual(JsonValue.stringify(wrapped(20_000, value)), expected(20_000, JSON.stringify(value)))
    assert.isUndefined(JsonValue.stringify(undefined))
    assert.isUndefined(JsonValue.stringify(1n))
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    assert.isUndefined(JsonValue.stringify(cyclic))
    assert.isUndefined(JsonValue.stringify(wrapped(20_000, cyclic)))
    assert.isUndefined(JsonValue.stringify(wrapped(20_000, 1n)))
  })
})

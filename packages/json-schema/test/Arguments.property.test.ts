import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Arguments, Coercion, JsonValue } from "@toolgate/json-schema"
import { anyPair, hostile, type Name, schemas } from "./ArgumentsArbitrary.js"

const valid = (r: Arguments.Prepared): Arguments.Valid => {
  assert.strictEqual(r._tag, "Valid", JSON.stringify(r))
  return r as Arguments.Valid
}

const prototypesClean = () => {
  for (const proto of [Object.prototype, Array.prototype, Function.prototype]) {
    for (const k of ["x", "admin", "polluted", "city", "userId", "value"]) assert.isFalse(Object.hasOwn(proto, k), k)
  }
  assert.strictEqual(({} as Record<string, unknown>).constructor, Object)
}

describe("Arguments.prepare properties", () => {
  it.prop("a value the schema accepts comes back unchanged (same reference, no coercions)", [anyPair], ([[name, p]]) => {
    const r = valid(Arguments.prepare(schemas[name], p.accepted))
    assert.strictEqual(r.value, p.accepted)
    assert.strictEqual(r.coercions.length, 0)
  })

  it.prop("a near miss made of promised repairs comes back as the accepted value", [anyPair], ([[name, p]]) => {
    const r = valid(Arguments.prepare(schemas[name], p.miss))
    assert.deepStrictEqual(r.value, p.accepted)
    assert.strictEqual(r.coercions.length === 0, p.miss === p.accepted || JSON.stringify(p.miss) === JSON.stringify(p.accepted))
  })

  it.prop("the same holds for the JSON text a provider streams", [anyPair], ([[name, p]]) => {
    assert.deepStrictEqual(valid(Arguments.prepare(schemas[name], JSON.stringify(p.miss))).value, p.accepted)
  })

  it.prop("a parsed value and its JSON text prepare alike (the JSON proof's blank-string note never skips a drop)", [anyPair, hostile], ([[name, p], h]) => {
    // (a string is itself read as JSON text, so only non-string values have a text twin)
    for (const input of [p.miss, p.accepted, h].filter((v) => typeof v !== "string")) {
      for (const policy of ["lenient", "strict"] as const) {
        assert.deepStrictEqual(Arguments.prepare(schemas[name], input, { policy }), Arguments.prepare(schemas[name], JSON.stringify(input), { policy }))
      }
    }
  })

  it.prop("idempotence: preparing a prepared value changes nothing", [anyPair, hostile], ([[name, p], h]) => {
    for (const input of [p.miss, h]) {
      const first = Arguments.prepare(schemas[name], input)
      if (first._tag !== "Valid") continue
      const second = valid(Arguments.prepare(schemas[name], first.value))
      assert.strictEqual(second.value, first.value)
      assert.strictEqual(second.coercions.length, 0)
      assert.deepStrictEqual(Coercion.coerce(schemas[name], first.value), { value: first.value, coercions: [] })
    }
  })

  it.prop("idempotence with keepEmptyStrings, and no empty string is dropped under it", [anyPair, hostile], ([[name, p], h]) => {
    const keep = { keepEmptyStrings: true }
    for (const input of [p.accepted, p.miss, h]) {
      const first = Arguments.prepare(schemas[name], input, keep)
      if (first._tag !== "Valid") continue
      assert.isFalse(first.coercions.some((c) => c.rule === "drop-empty-optional"))
      const second = valid(Arguments.prepare(schemas[name], first.value, keep))
      assert.strictEqual(second.value, first.value)
      assert.strictEqual(second.coercions.length, 0)
      assert.deepStrictEqual(Coercion.coerce(schemas[name], first.value, keep), { value: first.value, coercions: [] })
      const again = Coercion.coerce(schemas[name], input as JsonValue.JsonValue, keep)
      assert.deepStrictEqual(Coercion.coerce(schemas[name], again.value, keep).value, again.value)
    }
  })

  it.prop("strict never changes anything", [anyPair, hostile], ([[name, p], h]) => {
    for (const input of [p.accepted, p.miss, h]) {
      const r = Arguments.prepare(schemas[name], input, { policy: "strict" })
      if (r._tag !== "Valid") continue
      assert.strictEqual(r.value, input)
      assert.strictEqual(r.coercions.length, 0)
    }
  })

  it.prop("no input throws, mutates the caller's value or pollutes a prototype", [fc.constantFrom(...(Object.keys(schemas) as Array<Name>)), hostile], ([name, h]) => {
    const before = JSON.stringify(h)
    for (const policy of ["lenient", "strict"] as const) {
      for (const raw of [h, before, before.slice(0, Math.floor(before.length / 2))]) {
        const r = Arguments.prepare(schemas[name], raw, { policy, fromStrictProvider: policy === "strict" })
        assert.include(["Valid", "Invalid"], r._tag)
      }
    }
    assert.strictEqual(JSON.stringify(h), before)
    prototypesClean()
  })

  it.prop(
    "a parsed value is accepted exactly when it is JSON (the quick check agrees with JsonValue.isJsonValue)",
    [fc.anything({
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withBigInt: true,
      withDate: true,
      withTypedArray: true,
      withSparseArray: true,
      withObjectString: true,
      maxDepth: 4
    }).filter((u) => typeof u !== "string" && u !== undefined)],
    ([u]) => {
      const r = Arguments.prepare(true, u)
      assert.strictEqual(r._tag === "Valid", JsonValue.isJsonValue(u))
    }
  )

  it.prop("arbitrary strings as raw arguments never throw", [fc.string({ maxLength: 64 })], ([raw]) => {
    const r = Arguments.prepare(schemas.search, raw)
    assert.include(["Valid", "Invalid"], r._tag)
  })
})

describe("Arguments.prepare on extreme input", () => {
  const nest = (depth: number, open: string, close: string, leaf: string) => open.repeat(depth) + leaf + close.repeat(depth)
  it("10,000 levels of arrays and objects, as text and parsed, for every schema and policy", () => {
    const texts = [nest(10_000, "[", "]", "1"), nest(10_000, "{\"city\":", "}", "\"x\""), nest(10_000, "{\"__proto__\":", "}", "{}")]
    for (const text of texts) {
      const parsed = JSON.parse(text) as JsonValue.JsonValue
      for (const name of Object.keys(schemas) as Array<Name>) {
        for (const policy of ["lenient", "strict"] as const) {
          for (const raw of [text, parsed]) assert.strictEqual(Arguments.prepare(schemas[name], raw, { policy })._tag, "Invalid")
        }
      }
    }
    prototypesClean()
  })
  it("10 MB strings in every position", () => {
    const big = "7".repeat(10 * 1024 * 1024)
    const r = Arguments.prepare(schemas.weather, { city: big, days: big, units: big })
    assert.strictEqual(r._tag, "Invalid")
    const ok = valid(Arguments.prepare(schemas.search, { filters: [], tags: [big] }))
    assert.strictEqual((ok.value as { tags: Array<string> }).tags[0], big)
  })
  it("a wide, hostile object: 50,000 keys, all named like prototype members", { timeout: 120_000 }, () => {
    const keys = ["__proto__", "constructor", "prototype", "toString"]
    const wide = JsonValue.fromEntries(Array.from({ length: 50_000 }, (_, i) => [i < 4 ? keys[i]! : `${keys[i % 4]}${i}`, { x: "1" }]))
    for (const name of Object.keys(schemas) as Array<Name>) Arguments.prepare(schemas[name], wide)
    const open = { type: "object", additionalProperties: { type: "object", properties: { x: { type: "integer" } } } } as const
    const r = valid(Arguments.prepare(open, wide))
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(r.value, "__proto__")?.value, { x: 1 })
    prototypesClean()
  })
})

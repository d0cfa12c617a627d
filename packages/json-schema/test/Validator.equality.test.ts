/**
 * Layer 2's `const`, `enum`, `uniqueItems` and `multipleOf`: JSON equality that no own key can break
 * (`toString`, `valueOf`, `__proto__`, `constructor`) and exact decimal `multipleOf`, through `Validator`
 * and through `Arguments.prepare`, with hostile examples and a fast-check property against a reference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arguments, type JsonSchema, Validator } from "@toolgate/json-schema"
import { Either, FastCheck } from "effect"
import type { JsonValue } from "../src/JsonValue.js"

type Schema = JsonSchema.JsonSchema

const compiled = (s: Schema) => {
  const c = Validator.compile(s)
  assert.isTrue(Either.isRight(c), JSON.stringify(s))
  return (c as Either.Right<never, Validator.Compiled>).right
}

/** The validator's answer, both ways (`isValid` must not throw, `validate` must agree). */
const valid = (s: Schema, v: unknown): boolean => {
  const c = compiled(s)
  const fast = c.isValid(v)
  assert.strictEqual(c.validate(v).length === 0, fast, JSON.stringify({ s, v }))
  return fast
}

const parsed = (text: string): JsonValue => JSON.parse(text) as JsonValue
const hostileKeys = ["toString", "valueOf", "__proto__", "constructor", "hasOwnProperty", "isPrototypeOf"]

describe("Validator: JSON equality for const, enum and uniqueItems", () => {
  it("own toString / valueOf keys neither throw nor read as a rejection (the prover's fuzz findings)", () => {
    assert.isTrue(valid({ oneOf: [{ type: "object" }, { type: "array", const: {} }] }, { toString: true }))
    assert.isTrue(valid({ anyOf: [{ type: "object" }, { enum: [{ a: 1 }] }] }, { valueOf: 1 }))
    assert.isTrue(valid({ anyOf: [{ properties: { n_1: { contains: { uniqueItems: true } } } }, true] }, { n_1: [[{}, { toString: {} }]] }))
    assert.isTrue(valid({ uniqueItems: true }, [{}, { toString: {} }]))
  })
  it("every hostile key, as a key of the value and of the constant, in both dialects", () => {
    for (const $schema of [undefined, "http://json-schema.org/draft-07/schema#"]) {
      for (const k of hostileKeys) {
        const v = parsed(`{${JSON.stringify(k)}: {"x": [1]}}`)
        const w = parsed(`{${JSON.stringify(k)}: {"x": [2]}}`)
        const base = $schema === undefined ? {} : { $schema }
        assert.isTrue(valid({ ...base, const: v }, parsed(JSON.stringify(v))), k)
        assert.isFalse(valid({ ...base, const: v }, w), k)
        assert.isFalse(valid({ ...base, const: {} }, v), k)
        assert.isTrue(valid({ ...base, enum: [1, { a: 1 }, v] }, parsed(JSON.stringify(v))), k)
        assert.isFalse(valid({ ...base, enum: [1, { a: 1 }, v] }, w), k)
        assert.isFalse(valid({ ...base, uniqueItems: true }, [v, parsed(JSON.stringify(v))]), k)
        assert.isTrue(valid({ ...base, uniqueItems: true }, [v, w, {}]), k)
        assert.isFalse(valid({ ...base, items: { type: "string" }, uniqueItems: true }, [k, k]), k)
      }
    }
  })
  it("equality is JSON's: key order ignored, 1 and \"1\" differ, 0 and -0 agree, arrays are ordered", () => {
    assert.isTrue(valid({ const: { a: 1, b: [1, 2] } }, { b: [1, 2], a: 1 }))
    assert.isFalse(valid({ const: { a: 1, b: [1, 2] } }, { a: 1, b: [2, 1] }))
    assert.isFalse(valid({ enum: [1] }, "1"))
    assert.isTrue(valid({ const: 0 }, -0))
    assert.isTrue(valid({ uniqueItems: true }, [1, "1", true, null, [1], { a: 1 }]))
    assert.isFalse(valid({ uniqueItems: true }, [0, -0]))
    assert.isFalse(valid({ uniqueItems: true }, [{ a: [1] }, { a: [1] }]))
  })
  it("issues keep their shape", () => {
    const [u] = compiled({ uniqueItems: true }).validate([1, 2, 1])
    assert.strictEqual(u?.keyword, "uniqueItems")
    assert.match(u?.message ?? "", /items 0 and 2 are equal/)
    const [e] = compiled({ enum: ["asc", "desc"] }).validate("up")
    assert.strictEqual(e?.expected, "one of: asc, desc")
    const [c] = compiled({ const: "x" }).validate("y")
    assert.strictEqual(c?.expected, "exactly \"x\"")
  })
  it.prop("agrees with a reference JSON equality on random values, hostile keys included", [
    FastCheck.letrec((tie) => ({
      v: FastCheck.oneof(
        { depthSize: "small" },
        FastCheck.constantFrom<JsonValue>(0, 1, "1", "", true, null, 2.5),
        FastCheck.array(tie("v") as FastCheck.Arbitrary<JsonValue>, { maxLength: 3 }),
        FastCheck.dictionary(FastCheck.constantFrom(...hostileKeys, "a"), tie("v") as FastCheck.Arbitrary<JsonValue>, { maxKeys: 3 })
      )
    })).v,
    FastCheck.nat(2)
  ], ([v, pick]) => {
    const text = JSON.stringify(v)
    const twin = parsed(text)
    assert.isTrue(valid({ const: v }, twin))
    assert.isTrue(valid({ enum: [v] }, twin))
    assert.strictEqual(valid({ uniqueItems: true }, [v, twin].slice(0, pick + 1)), pick === 0)
  })
})

describe("Validator: exact multipleOf", () => {
  it("decides on the decimals JSON writes", () => {
    assert.isTrue(valid({ multipleOf: 5 }, 5e21))
    assert.isTrue(valid({ multipleOf: 3 }, 3e21))
    assert.isTrue(valid({ multipleOf: 0.01 }, 19.99))
    assert.isTrue(valid({ multipleOf: 0.1 }, 0.3))
    assert.isTrue(valid({ multipleOf: 0.0001 }, 0.0075))
    assert.isTrue(valid({ multipleOf: 1e-8 }, 1.23456789))
    assert.isTrue(valid({ multipleOf: 1 }, 1e300))
    assert.isTrue(valid({ multipleOf: 0.5 }, -7.5))
    assert.isFalse(valid({ multipleOf: 0.01 }, 19.991))
    assert.isFalse(valid({ multipleOf: 3 }, 1e21))
    assert.isFalse(valid({ multipleOf: 3 }, 9007199254741000))
    assert.isTrue(valid({ multipleOf: 7 }, 7e22))
    assert.isFalse(valid({ multipleOf: 7 }, 1e22))
    assert.isFalse(valid({ multipleOf: 0.3 }, 0.5))
    assert.isTrue(valid({ multipleOf: 5 }, "not a number"))
  })
  it("through Arguments.prepare: valid amounts are not rejected", () => {
    const price: Schema = { type: "object", properties: { amount: { type: "number", multipleOf: 0.01 } }, required: ["amount"] }
    assert.strictEqual(Arguments.prepare(price, "{\"amount\": 19.99}")._tag, "Valid")
    assert.strictEqual(Arguments.prepare(price, "{\"amount\": 19.995}")._tag, "Invalid")
  })
})

describe("Arguments.prepare with hostile keys (layer 2)", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      mode: { enum: [{ kind: "a" }, "plain"] },
      opts: { const: { toString: 1 } },
      rows: { type: "array", uniqueItems: true }
    }
  }
  it("never throws, never misreads: {toString: true} and friends as arguments", () => {
    for (const k of hostileKeys) {
      for (const policy of ["lenient", "strict"] as const) {
        const raw = `{"mode": {${JSON.stringify(k)}: true}, "rows": [{${JSON.stringify(k)}: 1}, {${JSON.stringify(k)}: 1}]}`
        const r = Arguments.prepare(schema, raw, { policy })
        assert.strictEqual(r._tag, "Invalid", `${k} ${policy}`)
        const keywords = r._tag === "Invalid" ? r.issues.map((i) => i.keyword).sort() : []
        assert.deepStrictEqual(keywords, ["enum", "uniqueItems"], `${k} ${policy}`)
        const ok = Arguments.prepare(schema, `{"opts": {"toString": 1}, "rows": [{${JSON.stringify(k)}: 1}, {${JSON.stringify(k)}: 2}]}`, { policy })
        assert.strictEqual(ok._tag, "Valid", `${k} ${policy}`)
      }
    }
    assert.strictEqual(Arguments.prepare({ type: "object", anyOf: [{ type: "object" }, { enum: [{ a: 1 }] }] }, "{\"valueOf\": 1}")._tag, "Valid")
  })
})

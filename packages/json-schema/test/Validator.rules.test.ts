/**
 * `Validator.Rules`, the readings code outside the validator must share with it (the subschema prover's):
 * each agrees with what a compiled validator answers, so a proof that reads them answers as the executor does.
 */
import { assert, describe, it } from "@effect/vitest"
import { JsonSchema, JsonValue, Validator } from "@toolgate/json-schema"
import { Either, FastCheck } from "effect"

const accepts = (schema: JsonSchema.JsonSchema, value: unknown): boolean => {
  const c = Validator.compile(schema)
  assert.isTrue(Either.isRight(c), JSON.stringify(schema))
  return (c as Either.Right<never, Validator.Compiled>).right.isValid(value)
}

const { Rules } = Validator
const scalar = FastCheck.oneof(FastCheck.integer({ min: -3, max: 3 }), FastCheck.constantFrom("a", "b", "__proto__", "toString"), FastCheck.boolean(), FastCheck.constant(null))
const item = FastCheck.oneof(scalar, FastCheck.array(scalar, { maxLength: 2 }), FastCheck.dictionary(FastCheck.constantFrom("a", "constructor", "valueOf"), scalar, { maxKeys: 2 }))

describe("Validator.Rules", () => {
  it("duplicateItems finds a pair exactly where uniqueItems rejects", () => {
    FastCheck.assert(FastCheck.property(FastCheck.array(item, { maxLength: 6 }), (xs) => {
      const pair = Rules.duplicateItems(xs)
      assert.strictEqual(pair === undefined, accepts({ uniqueItems: true }, xs), JSON.stringify(xs))
      if (pair !== undefined) assert.isTrue(pair[1] < pair[0] && JsonValue.equals(xs[pair[0]]!, xs[pair[1]]!))
    }), { seed: 20_261_201, numRuns: 300 })
  })

  it("isMultipleOf answers as multipleOf does, exact in decimals", () => {
    assert.isTrue(Rules.isMultipleOf(19.99, 0.01))
    assert.isTrue(Rules.isMultipleOf(5e21, 5))
    const decimal = FastCheck.tuple(FastCheck.integer({ min: -100_000, max: 100_000 }), FastCheck.integer({ min: 0, max: 4 }))
      .map(([n, places]) => Number((n / 10 ** places).toFixed(places)))
    const step = FastCheck.constantFrom(0.01, 0.1, 0.5, 2, 3, 7, 0.25, 1e-3)
    FastCheck.assert(FastCheck.property(decimal, step, (x, m) => {
      assert.strictEqual(Rules.isMultipleOf(x, m), accepts({ multipleOf: m }, x), `${x} multipleOf ${m}`)
    }), { seed: 20_261_201, numRuns: 300 })
  })

  it("the format tables are the formats the validator enforces", () => {
    const strings = ["", "\u0000", "(", "{", " ", "a b", "%", "x", "2024-13-45"]
    for (const f of Rules.stringFormats) {
      const rejected = strings.filter((s) => !accepts({ format: f }, s))
      assert.strictEqual(rejected.length === 0, Rules.universalFormats.has(f), `format ${f} rejects ${JSON.stringify(rejected)}`)
    }
    for (const f of Rules.numberFormats) {
      const rejected = [2 ** 40, 2 ** 70, 0.5].filter((n) => !accepts({ format: f }, n))
      assert.strictEqual(rejected.length === 0, Rules.universalFormats.has(f), `format ${f} rejects ${JSON.stringify(rejected)}`)
    }
    for (const f of ["phone", "color", "int8"]) assert.isTrue(strings.every((s) => accepts({ format: f }, s)) && accepts({ format: f }, 2 ** 70), f)
  })

  it("prototypeNames are the names Object.prototype answers", () => {
    for (const n of ["constructor", "__proto__", "toString", "hasOwnProperty"]) assert.isTrue(Rules.prototypeNames.has(n), n)
    assert.isFalse(Rules.prototypeNames.has("city"))
  })

  it("metaCheck gives compile's verdict on the schema's meta-schema, by content when asked", () => {
    assert.strictEqual(Rules.metaCheck({ type: "string" }, "2020-12"), "valid")
    const bad = Rules.metaCheck({ type: 12 }, "2020-12")
    assert.isTrue(typeof bad === "object" && bad.path === "/type", JSON.stringify(bad))
    assert.isTrue(Either.isLeft(Validator.compile({ type: 12 })))
    const schema = { properties: { a: { minimum: "5" } } }
    const key = JsonSchema.stableKey(schema)
    assert.deepStrictEqual(Rules.metaCheck(schema, "draft-07", key), Rules.metaCheck(structuredClone(schema), "draft-07", key))
    assert.notStrictEqual(Rules.metaCheck(schema, "draft-07", key), "valid")
  })
})

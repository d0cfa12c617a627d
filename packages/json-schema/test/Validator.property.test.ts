import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Validator from "../src/Validator.js"

/** Small valid 2020-12 schemas: up to three keywords each, mixing every keyword the mapping handles. */
const schema = FastCheck.letrec((tie) => {
  const kw = <A>(name: string, arb: FastCheck.Arbitrary<A>) => FastCheck.tuple(FastCheck.constant(name), arb)
  const sub = tie("s") as FastCheck.Arbitrary<JsonSchema.JsonSchema>
  const subs = (min: number) => FastCheck.array(sub, { minLength: min, maxLength: 3 })
  const keyword = FastCheck.oneof(
    kw("type", FastCheck.oneof(
      FastCheck.constantFrom("string", "integer", "number", "boolean", "null", "object", "array"),
      FastCheck.uniqueArray(FastCheck.constantFrom("string", "integer", "null", "object"), { minLength: 1, maxLength: 3 })
    )),
    kw("enum", FastCheck.array(FastCheck.oneof(FastCheck.constantFrom("a", "b", 1, null), FastCheck.string({ maxLength: 3 })), { minLength: 1, maxLength: 4 })),
    kw("const", FastCheck.constantFrom("a", 1, null, true)),
    kw("minimum", FastCheck.integer({ min: -3, max: 3 })),
    kw("exclusiveMaximum", FastCheck.integer({ min: -3, max: 3 })),
    kw("multipleOf", FastCheck.constantFrom(2, 3)),
    kw("minLength", FastCheck.nat(3)),
    kw("maxLength", FastCheck.nat(3)),
    kw("pattern", FastCheck.constantFrom("^a", "b$", "[0-9]")),
    kw("format", FastCheck.constantFrom("date", "email", "uuid", "custom-thing")),
    kw("minItems", FastCheck.nat(2)),
    kw("maxItems", FastCheck.nat(2)),
    kw("uniqueItems", FastCheck.boolean()),
    kw("items", sub),
    kw("prefixItems", subs(1)),
    kw("contains", sub),
    kw("properties", FastCheck.dictionary(FastCheck.constantFrom("a", "b", "constructor", "__proto__", "x y"), sub, { maxKeys: 3 })),
    kw("required", FastCheck.uniqueArray(FastCheck.constantFrom("a", "b", "constructor", "toString"), { maxLength: 2 })),
    kw("additionalProperties", sub),
    kw("propertyNames", FastCheck.record({ maxLength: FastCheck.nat(2) })),
    kw("dependentRequired", FastCheck.dictionary(FastCheck.constantFrom("a", "b"), FastCheck.constant(["c"]), { maxKeys: 1 })),
    kw("anyOf", subs(1)),
    kw("oneOf", subs(1)),
    kw("allOf", subs(1)),
    kw("not", sub),
    kw("if", sub),
    kw("then", sub),
    kw("else", sub),
    kw("description", FastCheck.constantFrom("a short description", "x".repeat(300)))
  )
  return {
    s: FastCheck.oneof(
      { depthSize: "small", withCrossShrink: true },
      FastCheck.boolean(),
      FastCheck.array(keyword, { maxLength: 3 }).map((entries) => Object.fromEntries(entries) as JsonSchema.JsonSchemaObject)
    )
  }
}).s as FastCheck.Arbitrary<JsonSchema.JsonSchema>

const value = FastCheck.jsonValue({ maxDepth: 3 })

describe("Validator properties", () => {
  it.prop("validate agrees with isValid, never throws, and every issue is well formed", [schema, FastCheck.array(value, { maxLength: 6 })], ([s, values]) => {
    const c = Validator.compile(s)
    assert.isTrue(Either.isRight(c), Either.isLeft(c) ? c.left.message : "")
    if (Either.isLeft(c)) return
    for (const v of values) {
      const found = c.right.validate(v)
      let ok: boolean | undefined
      try {
        ok = c.right.isValid(v)
      } catch {
        // Ajv's allErrors code can fault on exotic if/oneOf/not mixes (see README); validate must still answer
        ok = undefined
      }
      if (ok !== undefined) assert.strictEqual(found.length === 0, ok, JSON.stringify({ s, v, found }))
      for (const i of found) {
        assert.strictEqual(i.field, JsonSchema.Pointer.parse(i.path).join("."))
        assert.isTrue(i.message.length > 0 && i.expected.length > 0 && i.keyword.length > 0)
        assert.notStrictEqual(i.keyword, "validator", JSON.stringify({ s, v }))
        assert.isBelow(i.message.length, 2_000)
      }
    }
  }, { fastCheck: { numRuns: 400 } })

  it.prop("an equal copy compiles to the same Compiled", [schema], ([s]) => {
    const a = Validator.compile(s)
    const b = Validator.compile(structuredClone(s))
    assert.isTrue(Either.isRight(a) && Either.isRight(b) && a.right === b.right)
  }, { fastCheck: { numRuns: 100 } })
})

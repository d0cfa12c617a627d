/**
 * The prover's quick reading (`quick`: a node's answer for a value without compiling a validator) against
 * the validator it stands in for: wherever it answers, it answers as Ajv does, on every subschema of seeded
 * fuzz schemas (both dialects) and corpus tools, on values sampled from them and drawn at random.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { quick } from "../../src/internal/subschemaQuick.js"
import { Pointer as P } from "@toolgate/json-schema/JsonSchema"
import * as Validator from "@toolgate/json-schema/Validator"
import { mutate, rng, rootSchema } from "@toolgate/test-support/fuzzGenerate"
import { tools } from "./fuzzRun.js"
import { anyValue, sample } from "./fuzzSample.js"

const at = (schema: JsonSchema.JsonSchema, ptr = "") => ({ schema, ptr, dialect: JsonSchema.dialect(schema) })

describe("the prover's quick reading", () => {
  it("answers as the validator wherever it answers (seeded fuzz schemas and corpus tools, every subschema)", { timeout: 60_000 }, () => {
    const corpus = tools()
    let answered = 0
    let composite = 0
    for (const seed of [1, 2, 3]) {
      const r = rng(seed)
      for (let i = 0; i < 120; i++) {
        // generated schemas, and real tools (as they are or mutated) for objects as tools declare them
        const root = i % 2 === 0 ? rootSchema(r) : i % 4 === 1 ? r.pick(corpus) : mutate(r, r.pick(corpus))
        const dialect = JsonSchema.dialect(root)
        const values: Array<JsonValue> = []
        for (let k = 0; k < 5; k++) values.push(anyValue(r), sample(r, root, root))
        const stack: Array<readonly [JsonSchema.JsonSchema, string]> = [[root, ""]]
        while (stack.length > 0) {
          const [s, ptr] = stack.pop()!
          if (typeof s !== "object") continue
          for (const c of JsonSchema.subschemas(s)) stack.push([c.schema, c.tokens.reduce(P.append, ptr)])
          const compiled = Validator.compileAt(root, ptr)
          if (Either.isLeft(compiled)) continue
          for (const v of values) {
            const q = quick({ schema: s, ptr, dialect }, v, root)
            if (q === undefined) continue
            answered++
            if (typeof v === "object" && v !== null) composite++
            assert.strictEqual(q, compiled.right.validate(v).length === 0, JSON.stringify({ seed, root, ptr, v }))
          }
        }
      }
    }
    // most readings are answered, on objects and arrays too: the check above is not vacuous
    assert.isAbove(answered, 10_000)
    assert.isAbove(composite, 1_000)
  })

  it("reads applicators, members and items over plain nodes, and keywords of another type than the value's as holding", () => {
    const rows: ReadonlyArray<readonly [JsonSchema.JsonSchema, JsonValue, boolean | undefined]> = [
      [{ oneOf: [{ type: "string" }, { maxLength: 3 }] }, "ab", false],
      [{ oneOf: [{ type: "string" }, { maxLength: 3 }] }, "abcd", true],
      [{ anyOf: [{ type: "integer" }, { minLength: 2 }] }, "a", false],
      [{ allOf: [{ type: "string" }, { pattern: "^a" }] }, "ab", true],
      [{ not: { type: "object" } }, "x", true],
      [{ if: { type: "string" }, then: { minLength: 2 }, else: { minimum: 5 } }, "a", false],
      [{ if: { type: "string" }, then: { minLength: 2 }, else: { minimum: 5 } }, 4, false],
      [{ then: false }, 1, true],
      [{ type: "string", required: ["a"], items: false, multipleOf: 3, minProperties: 2 }, "s", true],
      // an object's members and an array's items, through the keywords read on them
      [{ required: ["a"] }, {}, false],
      [{ properties: { a: { type: "string" } } }, { a: 1 }, false],
      [{ properties: { a: { type: "string" } }, additionalProperties: false }, { a: "x", b: 2 }, false],
      [{ patternProperties: { "^n_": { type: "number" } }, additionalProperties: false }, { n_1: 1 }, true],
      [{ patternProperties: { "^n_": { type: "number" } } }, { n_1: "s" }, false],
      [{ propertyNames: { maxLength: 2 } }, { abc: 1 }, false],
      [{ minProperties: 2 }, { a: 1 }, false],
      [{ prefixItems: [{ type: "string" }], items: false }, ["a"], true],
      [{ prefixItems: [{ type: "string" }], items: false }, ["a", 1], false],
      [{ $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }], additionalItems: false }, ["a", 1], false],
      // draft-07 ignores `additionalItems` beside a single `items` schema, and 2020-12 ignores it altogether
      [{ $schema: "http://json-schema.org/draft-07/schema#", items: { type: "string" }, additionalItems: false }, ["a", "b"], true],
      [{ additionalItems: false }, [1], true],
      [{ uniqueItems: true }, [{ a: 1 }, { a: 1 }], false],
      [{ properties: { a: { $ref: "#" } } }, { b: 1 }, true],
      // hostile member names are members like any other
      [{ additionalProperties: false }, JSON.parse('{"__proto__": 1}'), false],
      [{ additionalProperties: { type: "string" } }, JSON.parse('{"__proto__": "x", "constructor": "y"}'), true],
      [{ propertyNames: { pattern: "^[a-z]+$" } }, JSON.parse('{"__proto__": 1}'), false],
      // Ajv's `nullable: true` adds null to `type`; it changes nothing for other values
      [{ type: "string", nullable: true }, null, true],
      [{ type: "string", nullable: true, enum: ["a"] }, null, false],
      [{ type: "string", nullable: false }, null, false],
      [{ type: "string", nullable: true }, "x", true],
      // exact multiples, as the validator's own `multipleOf` decides them
      [{ multipleOf: 0.01 }, 19.99, true],
      [{ multipleOf: 5 }, 5e21, true],
      [{ type: "integer", multipleOf: 5 }, 12, false],
      // a format applies to values of its own type; names ajv-formats does not define are ignored
      [{ format: "email" }, 5, true],
      [{ format: "date-time" }, null, true],
      [{ format: "int32" }, 2 ** 31, false],
      [{ format: "int32" }, -(2 ** 31), true],
      [{ format: "int64" }, 0.5, false],
      [{ format: "double" }, 0.5, true],
      [{ format: "int32" }, "x", true],
      [{ format: "password" }, "x", true],
      [{ format: "no-such-format" }, "x", true],
      [{ format: "constructor" }, 1, true]
    ]
    for (const [schema, value, expected] of rows) assert.strictEqual(quick(at(schema), value), expected, JSON.stringify({ schema, value }))
  })

  it("follows a $ref within its root, as the validator does, beside the ref's siblings", () => {
    const d7 = "http://json-schema.org/draft-07/schema#"
    const rows: ReadonlyArray<readonly [JsonSchema.JsonSchema, JsonValue, boolean | undefined]> = [
      [{ $defs: { s: { type: "string" } }, properties: { a: { $ref: "#/$defs/s" } } }, { a: 1 }, false],
      [{ $defs: { s: { type: "string" } }, properties: { a: { $ref: "#/$defs/s" } } }, { a: "x" }, true],
      [{ $schema: d7, definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 1 }, "ab", false],
      [{ $defs: { s: { $anchor: "s", type: "string" } }, $ref: "#s" }, 1, false],
      // recursion that reaches into the value, and loops that never do (given up after 64 follows in all,
      // not overflowed, and not 3^n readings for references that branch)
      [{ type: "object", properties: { next: { $ref: "#" } } }, { next: { next: 1 } }, false],
      [{ anyOf: [{ $ref: "#" }] }, 1, undefined],
      [{ anyOf: [{ $ref: "#" }, { $ref: "#" }, { $ref: "#" }] }, 1, undefined],
      // another base below the root, or a name the root does not hold: left to the validator
      [{ $defs: { s: { $id: "https://example.com/s", type: "string" } }, $ref: "#/$defs/s" }, 1, undefined],
      [{ $ref: "https://example.com/other" }, 1, undefined],
      [{ $ref: "#/$defs/missing" }, 1, undefined]
    ]
    for (const [schema, value, expected] of rows) {
      assert.strictEqual(quick(at(schema), value, schema), expected, JSON.stringify({ schema, value }))
      // without its root a reference is not read
      assert.isUndefined(quick(at(schema), value), JSON.stringify({ schema, value }))
    }
  })

  it("leaves to the validator what it cannot read, and never reads a keyword the node skips", () => {
    const unread = [
      { format: "email" }, { $ref: "#" }, { oneOf: [{ type: "string" }, 5] }, { anyOf: "x" }, { not: [] },
      // schemas the validator refuses to compile: `nullable` without `type` or against it, a format that is not a string
      { nullable: true }, { type: ["string", "null"], nullable: false }, { type: "string", nullable: "yes" }, { format: 5 },
      { multipleOf: 0 }
    ]
    for (const schema of unread) {
      assert.isUndefined(quick(at(schema as JsonSchema.JsonSchema), "x"), JSON.stringify(schema))
    }
    // names Ajv looks up on `Object.prototype`, keywords not read, a `$ref` the value reaches
    const unreadOn: ReadonlyArray<readonly [JsonSchema.JsonSchema, JsonValue]> = [
      [{ properties: { toString: {} } }, {}], [{ required: ["constructor"] }, {}], [{ contains: {} }, []],
      [{ dependentRequired: { a: ["b"] } }, { a: 1 }], [{ properties: { a: { $ref: "#" } } }, { a: 1 }],
      [{ required: ["a", "a"] }, { a: 1 }], [{ minItems: -1 }, []], [{ patternProperties: { "(": {} } }, {}]
    ]
    for (const [schema, value] of unreadOn) assert.isUndefined(quick(at(schema), value), JSON.stringify({ schema, value }))
    assert.isTrue(quick({ ...at({ type: "string", anyOf: [{ minLength: 5 }] }), skip: new Set(["anyOf"]) }, "x"))
  })
})

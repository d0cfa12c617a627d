/**
 * A cloud type whose own bounds leave it without a value needs no proof: crossed lengths, patterns no
 * string of an allowed length matches, crossed numeric bounds (integers and non-integers apart), crossed
 * item counts, more required properties than allowed. A bound that leaves one value keeps the type.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import * as Subschema from "../src/Subschema.js"

const tag = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => Subschema.check(cloud, local)._tag

describe("Subschema: empty cloud types", () => {
  it("a type its bounds leave empty is inside anything", () => {
    const nothing = { type: "null" }
    assert.strictEqual(tag({ type: "string", minLength: 2, maxLength: 1 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "string", allOf: [{ pattern: "^a" }, { pattern: "^b" }] }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "string", pattern: "^[a-z]{4,}$", maxLength: 3 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 2 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "number", minimum: 5, maximum: 4 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "array", minItems: 3, maxItems: 2 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: "object", required: ["a", "b"], maxProperties: 1 }, nothing), "Subtype")
    assert.strictEqual(tag({ type: ["string", "null"], minLength: 2, maxLength: 1 }, nothing), "Subtype")
  })

  it("one value left keeps the type, and a non-integer between whole bounds is a witness", () => {
    assert.strictEqual(tag({ type: "number", minimum: 3, maximum: 3 }, { type: "integer" }), "Subtype")
    assert.strictEqual(tag({ type: "number", minimum: 2.5, maximum: 2.5 }, { type: "integer" }), "Drift")
    assert.strictEqual(tag({ type: "number", exclusiveMinimum: 1, exclusiveMaximum: 2 }, { type: "integer" }), "Drift")
    assert.strictEqual(tag({ type: "string", minLength: 1, maxLength: 1, pattern: "^[ab]" }, { enum: ["a"] }), "Drift")
    assert.strictEqual(tag({ type: "object", required: ["a"], maxProperties: 1 }, { type: "null" }), "Drift")
    // a pattern the automaton cannot model never makes a type empty
    assert.strictEqual(tag({ type: "string", pattern: "(?=a)b", maxLength: 3 }, { type: "null" }), "Unsupported")
  })
})

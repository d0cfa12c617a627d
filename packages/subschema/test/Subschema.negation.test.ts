/**
 * A cloud conjunction that says `not: X` is empty when the rest of it lies inside `X`; where an obligation
 * fails (a local side that rejects everything, a type the local side lacks), the prover proves that (with
 * `X` read against the cloud's own root) rather than search for a witness that cannot exist. An absolute `$ref` the prover cannot read is still one schema
 * wherever it stands, so a `not` of the same reference beside it empties the conjunction, but only where no
 * base URI or dynamic scope could make the two read differently.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import * as Subschema from "../src/Subschema.js"

const tag = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => Subschema.check(cloud, local)._tag

describe("Subschema: a cloud `not` whose complement holds the rest of the cloud", () => {
  it("is empty, so inside a local schema that rejects everything", () => {
    // `items: false` leaves only [], which every `prefixItems` accepts
    const tuple = { type: "array", items: false, not: { prefixItems: [{ type: "string" }, { type: "string" }] } }
    assert.strictEqual(tag(tuple, false), "Subtype")
    assert.strictEqual(tag({ type: "integer", minimum: 3, not: { minimum: 1 } }, false), "Subtype")
    assert.strictEqual(tag({ allOf: [{ type: "string", maxLength: 2 }, { not: { maxLength: 4 } }] }, false), "Subtype")
  })

  it("is not empty when the rest reaches outside the `not`: a witness shows drift", () => {
    assert.strictEqual(tag({ type: "array", not: { maxItems: 0 } }, false), "Drift")
    assert.strictEqual(tag({ type: "integer", minimum: 3, not: { minimum: 5 } }, false), "Drift")
    // the sampler finds no string past a `not: {maxLength}`: never proven, at most Unsupported
    assert.notStrictEqual(tag({ allOf: [{ type: "string", maxLength: 6 }, { not: { maxLength: 4 } }] }, false), "Subtype")
  })

  it("where it fails, the values found outside `X` are witness candidates the sampler alone misses", () => {
    const nested = Subschema.check({ type: "array", minItems: 1, items: { type: "array" }, not: { items: { maxItems: 0 } } }, false)
    assert.deepStrictEqual(nested._tag === "Drift" ? nested.witness : nested, [[{}]])
    const tree = {
      $defs: { n: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/n" } } } } },
      $ref: "#/$defs/n",
      required: ["kids"],
      not: { properties: { kids: { maxItems: 0 } } }
    }
    assert.strictEqual(tag(tree, false), "Drift")
  })

  it("applies below the root: a cloud property that cannot hold a value under a local `false`", () => {
    const local = { type: "object", properties: { a: false } }
    assert.strictEqual(tag({ type: "object", properties: { a: { type: "integer", minimum: 3, not: { minimum: 1 } } } }, local), "Subtype")
    assert.strictEqual(tag({ type: "object", properties: { a: { type: "integer", minimum: 3, not: { minimum: 5 } } } }, local), "Drift")
  })

  it("applies wherever an obligation fails, and to one type's part of the cloud", () => {
    // a string always passes `additionalProperties: false`, so this cloud has no value at all
    assert.strictEqual(tag({ type: "string", not: { additionalProperties: false } }, { not: {} }), "Subtype")
    // every object passes `exclusiveMaximum`, so the cloud holds no object for `maxProperties` to judge
    assert.strictEqual(tag({ not: { exclusiveMaximum: 3 }, multipleOf: 0.5 }, { maxProperties: 0 }), "Subtype")
    assert.strictEqual(tag({ not: { exclusiveMaximum: 3, type: "number" }, multipleOf: 0.5 }, { maxProperties: 0 }), "Drift")
    // the cloud's strings are empty, its objects are not
    assert.strictEqual(tag({ type: ["string", "object"], not: { type: "string", maxLength: 3 }, maxLength: 2 }, { type: "object" }), "Subtype")
    assert.strictEqual(tag({ type: ["string", "object"], not: { type: "string", maxLength: 3 }, maxLength: 5 }, { type: "object" }), "Drift")
  })

  it("reads the `not`'s references against the cloud root, not the local one", () => {
    const cloud = {
      $defs: { s: { type: "string" }, t: { type: ["string", "null"] } },
      type: "array",
      items: { $ref: "#/$defs/s" },
      not: { items: { $ref: "#/$defs/t" } }
    }
    assert.strictEqual(tag(cloud, false), "Subtype")
    // the other way round the cloud holds [null]
    const wider = { ...cloud, items: { $ref: "#/$defs/t" }, not: { items: { $ref: "#/$defs/s" } } }
    assert.strictEqual(tag(wider, false), "Drift")
  })
})

describe("Subschema: an unreadable absolute `$ref` beside its own `not`", () => {
  const meta = "https://json-schema.org/draft/2020-12/schema"

  it("leaves the cloud empty", () => {
    const cloud = { allOf: [{ $ref: meta }, { not: { $ref: meta } }] }
    assert.strictEqual(tag(cloud, false), "Subtype")
    assert.strictEqual(tag(cloud, { type: "null" }), "Subtype")
  })

  it("stays Unsupported where the two could differ: other targets, a relative reference, a dynamic anchor, no `not`", () => {
    assert.strictEqual(tag({ allOf: [{ $ref: "https://example.com/a" }, { not: { $ref: "https://example.com/b" } }] }, false), "Unsupported")
    assert.strictEqual(tag({ $id: "https://example.com/root", allOf: [{ $ref: "other.json" }, { not: { $ref: "other.json" } }] }, false), "Unsupported")
    assert.strictEqual(tag({ $dynamicAnchor: "meta", allOf: [{ $ref: meta }, { not: { $ref: meta } }] }, false), "Unsupported")
    assert.strictEqual(tag({ allOf: [{ $ref: meta }, { type: "string" }] }, false), "Unsupported")
  })
})

describe("Subschema: a local `X` beside `not: X'` with X' a renamed copy", () => {
  const d7 = "http://json-schema.org/draft-07/schema#"
  const local = (a: string, b: string, second = "integer") => ({
    $schema: d7,
    anyOf: [
      { allOf: [{ $ref: a }], definitions: { A: { $id: a, type: "integer" } } },
      { definitions: { A: { $id: b, type: second } }, not: { allOf: [{ $ref: b }] } }
    ]
  })

  it("is everything when the copies differ only by a plain-name `$id` (it moves no base)", () => {
    assert.strictEqual(tag(true, local("#foo", "#foo1")), "Subtype")
    assert.strictEqual(tag(true, local("#foo", "#foo1", "string")), "Drift")
  })

  it("is not assumed for resources of their own (an `$id` that is a base for references)", () => {
    assert.notStrictEqual(tag(true, local("http://example.com/a.json", "http://example.com/b.json")), "Subtype")
  })
})

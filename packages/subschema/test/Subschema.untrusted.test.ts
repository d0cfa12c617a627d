/**
 * Constructs whose Ajv semantics differ from the specification (`$dynamicRef`, `unevaluated*` next to
 * `contains`): on the local side the validator is the executor's own, so its word decides; on the cloud
 * side a witness must also pass a lower bound of the cloud that evaluates no dynamic reference.
 * Examples from the JSON-Schema-Test-Suite containment folders (draft 2020-12).
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { withoutDynamicRefs } from "../src/internal/subschemaLower.js"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"

const valid = (s: JsonSchema.JsonSchema, v: JsonValue): boolean => {
  const c = Validator.compile(s)
  return Either.isRight(c) && c.right.validate(v).length === 0
}

const drift = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema): JsonValue => {
  const v = Subschema.check(cloud, local)
  assert.strictEqual(v._tag, "Drift", JSON.stringify(v))
  const w = (v as { readonly witness: JsonValue }).witness
  assert.isTrue(valid(cloud, w) && !valid(local, w))
  return w
}

const subtype = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, values: ReadonlyArray<JsonValue>): void => {
  const v = Subschema.check(cloud, local)
  assert.strictEqual(v._tag, "Subtype", JSON.stringify(v))
  for (const x of values) assert.isTrue(valid(cloud, x) && valid(local, x), JSON.stringify(x))
}

const list = (host: string, anchor: string): JsonSchema.JsonSchemaObject => ({
  $id: `https://${host}/dynamicRef-dynamicAnchor-same-schema/root`,
  type: "array",
  items: { $dynamicRef: `#${anchor}` },
  $defs: { foo: { $dynamicAnchor: anchor, type: "string" } }
})

describe("Subschema: constructs the validator reads its own way", () => {
  it("a finite cloud against a local root with unevaluatedItems beside contains is decided by the executor's validator", () => {
    const local = { prefixItems: [true], contains: { type: "string" }, unevaluatedItems: false }
    subtype({ const: [1, "foo"] }, local, [[1, "foo"]])
    // Ajv counts every item `contains` looked at as evaluated (the specification only the matching ones)
    subtype({ const: [1, 2, "foo"] }, local, [[1, 2, "foo"]])
    assert.deepStrictEqual(drift({ enum: [[1, "foo"], [1, 2]] }, local), [1, 2])
    const nested = { if: { contains: { const: "a" } }, then: { if: { contains: { const: "b" } } }, unevaluatedItems: false }
    // the specification rejects ["b", "b"] here; the executor's validator accepts it, and that decides
    subtype({ const: ["b", "b"] }, nested, [["b", "b"]])
  })

  it("a finite cloud against a local root with a $dynamicRef is decided by the executor's validator", () => {
    const local = {
      $id: "https://test.json-schema.org/relative-dynamic-reference/root", $dynamicAnchor: "meta", type: "object",
      properties: { foo: { const: "pass" } }, $ref: "extended",
      $defs: {
        extended: { $id: "extended", $dynamicAnchor: "meta", type: "object", properties: { bar: { $ref: "bar" } } },
        bar: { $id: "bar", type: "object", properties: { baz: { $dynamicRef: "#meta" } } }
      }
    }
    subtype({ const: { foo: "pass", bar: { baz: { foo: "pass" } } } }, local, [{ foo: "pass", bar: { baz: { foo: "pass" } } }])
    drift({ const: { foo: "pass", bar: { baz: { foo: "fail" } } } }, local)
  })

  it("a local $dynamicRef does not keep a witness the executor rejects from being reported", () => {
    assert.deepStrictEqual(Array.isArray(drift(true, { anyOf: [list("test.json-schema.org", "items"), list("test1.json-schema.org", "items1")] })), false)
  })

  it("a cloud $dynamicRef: a witness must pass the cloud with every dynamic reference rejecting", () => {
    const cloud = { allOf: [list("test.json-schema.org", "items"), list("test1.json-schema.org", "items1")] }
    assert.deepStrictEqual(drift(cloud, false), [])
    // `[]` never reaches `items`, so the specification's cloud accepts it whatever the reference means
    assert.isTrue(valid(withoutDynamicRefs(cloud)!, []))
    assert.isFalse(valid(withoutDynamicRefs(cloud)!, ["a"]))
  })

  it("no lower bound where a stricter subschema could widen the cloud (not, if, oneOf, maxContains, unevaluated*)", () => {
    const ref = { $dynamicRef: "#items" }
    for (const cloud of [{ not: { items: ref } }, { if: ref, then: true }, { oneOf: [ref, true] }, { contains: ref, maxContains: 1 }, { items: ref, unevaluatedItems: false }]) {
      assert.isUndefined(withoutDynamicRefs(cloud), JSON.stringify(cloud))
    }
    assert.isUndefined(withoutDynamicRefs({ type: "array" }))
    assert.deepStrictEqual(withoutDynamicRefs({ anyOf: [ref, { type: "null" }] }), { anyOf: [{ not: true }, { type: "null" }] })
  })
})

const nested = (root: string, doc: string, anchor: string): JsonSchema.JsonSchemaObject => ({
  $id: `http://localhost:1234/${root}`,
  $defs: { A: { $id: `${doc}.json`, $defs: { B: { $anchor: anchor, type: "integer" } } } }
})

describe("Subschema: embedded resources folded into pointers", () => {
  it("two resources that differ only by renamed $id and $anchor are the same constraint", () => {
    const a = { ...nested("root", "nested", "foo"), $ref: "http://localhost:1234/nested.json#foo" }
    const b = { ...nested("root1", "nested1", "foo1"), not: { $ref: "http://localhost:1234/nested1.json#foo1" } }
    // `X or not X` accepts every value; `X and not X` none
    subtype(true, { anyOf: [a, b] }, [1, "a", null, {}, [], 1.5])
    subtype({ allOf: [a, b] }, false, [])
    const plain = {
      anyOf: [
        { $ref: "http://localhost:1234/bar#foo", $defs: { A: { $id: "http://localhost:1234/bar", $anchor: "foo", type: "integer" } } },
        { $defs: { A: { $id: "http://localhost:1234/bar1", $anchor: "foo1", type: "integer" } }, not: { $ref: "http://localhost:1234/bar1#foo1" } }
      ]
    }
    subtype(true, plain, [1, "a", null, {}])
  })

  it("a $dynamicAnchor in a document without dynamic references is a plain anchor", () => {
    const local = { type: "array", items: { $ref: "https://x.example/s#items" }, $defs: { s: { $id: "https://x.example/s", $dynamicAnchor: "items", type: "string" } } }
    subtype({ type: "array", items: { type: "string", maxLength: 3 } }, local, [[], ["a"], ["abc", ""]])
    assert.isTrue(typeof (drift({ type: "array", items: { type: "integer" }, minItems: 1 }, local) as ReadonlyArray<JsonValue>)[0] === "number")
  })

  it("an embedded resource's reference is read against its own base", () => {
    const local = {
      $id: "http://example.com/root.json", type: "object", properties: { n: { $ref: "item.json" } },
      $defs: { item: { $id: "item.json", type: "integer", minimum: 0 } }
    }
    subtype({ type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] }, local, [{ n: 1 }, { n: 7 }])
    const w = drift({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, local)
    assert.isTrue(typeof (w as { readonly n: number }).n === "number" && (w as { readonly n: number }).n < 0)
  })

  it("no folding where Ajv's resolution may differ: an $id under an unknown keyword or in a value, a reference leaving the document", async () => {
    const { bundle } = await import("../src/internal/subschemaBundle.js")
    const real = { $id: "https://x.example/id.json", type: "string" }
    assert.isUndefined(bundle({ $defs: { real, odd: { unknown: { $id: "https://x.example/id.json", type: "null" } } }, $ref: "https://x.example/id.json" }))
    assert.isUndefined(bundle({ $defs: { real, odd: { enum: [{ $id: "https://x.example/other.json" }] } }, $ref: "https://x.example/id.json" }))
    assert.isUndefined(bundle({ $defs: { real }, $ref: "https://elsewhere.example/id.json" }))
    assert.deepStrictEqual(bundle({ $defs: { real }, $ref: "https://x.example/id.json" }), { $defs: { real: { type: "string" } }, $ref: "#/%24defs/real" })
  })

  it("a value a local `not` names is tried as a witness", () => {
    const local = { $defs: { x: { enum: [{ a: "x" }] }, y: { enum: [{ a: "y" }] } }, anyOf: [{ $ref: "#/$defs/x" }, { not: { $ref: "#/$defs/y" } }] }
    assert.deepStrictEqual(drift(true, local), { a: "y" })
  })
})

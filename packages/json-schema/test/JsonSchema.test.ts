import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import type { JsonValue } from "../src/JsonValue.js"

const { Pointer, dialect, resolveRef } = JsonSchema

/** `{ properties: { a: { properties: { a: … leaf } } } }`, `depth` levels, built without recursion. */
const nested = (depth: number, leaf: JsonSchema.JsonSchemaObject): JsonSchema.JsonSchemaObject => {
  let s: JsonSchema.JsonSchemaObject = leaf
  for (let i = 0; i < depth; i++) s = { properties: { a: s } }
  return s
}

describe("isSchema", () => {
  it("accepts booleans and plain objects only", () => {
    assert.isTrue(JsonSchema.isSchema(true))
    assert.isTrue(JsonSchema.isSchema({}))
    assert.isTrue(JsonSchema.isSchema(Object.create(null)))
    for (const u of [null, undefined, 0, "object", [], new Date(), new Map(), () => 1]) assert.isFalse(JsonSchema.isSchema(u))
  })
})

describe("dialect", () => {
  it("defaults to 2020-12", () => {
    assert.strictEqual(dialect(true), "2020-12")
    assert.strictEqual(dialect({}), "2020-12")
    assert.strictEqual(dialect({ type: "object", properties: { a: { type: "string" } } }), "2020-12")
  })

  it("follows $schema first", () => {
    assert.strictEqual(dialect({ $schema: "http://json-schema.org/draft-07/schema#" }), "draft-07")
    assert.strictEqual(dialect({ $schema: "http://json-schema.org/draft-04/schema#", $defs: {} }), "draft-07")
    assert.strictEqual(dialect({ $schema: "https://json-schema.org/draft/2020-12/schema", definitions: {} }), "2020-12")
  })

  it("reads draft-07-only forms anywhere in the schema", () => {
    assert.strictEqual(dialect({ definitions: { a: {} } }), "draft-07")
    assert.strictEqual(dialect({ properties: { t: { items: [{ type: "string" }] } } }), "draft-07")
    assert.strictEqual(dialect({ anyOf: [{ additionalItems: false }] }), "draft-07")
    assert.strictEqual(dialect({ dependencies: { a: ["b"] } }), "draft-07")
  })

  it("lets a 2019+ keyword win over draft-07-only forms", () => {
    assert.strictEqual(dialect({ definitions: { a: {} }, $defs: { b: {} } }), "2020-12")
    assert.strictEqual(dialect({ items: [{}], properties: { p: { prefixItems: [] } } }), "2020-12")
  })

  it("does not mistake property names or enum values for keywords", () => {
    assert.strictEqual(dialect({ properties: { definitions: { type: "string" }, dependencies: {} } }), "2020-12")
    assert.strictEqual(dialect({ enum: [{ definitions: {} }], const: { items: [1] } }), "2020-12")
  })

  it("is total on 10,000-level nesting and on cyclic objects", () => {
    assert.strictEqual(dialect(nested(10_000, { definitions: {} })), "draft-07")
    const cyclic: Record<string, unknown> = { properties: {} }
    ;(cyclic["properties"] as Record<string, unknown>)["self"] = cyclic
    assert.strictEqual(dialect(cyclic as JsonSchema.JsonSchemaObject), "2020-12")
  })

  it("is total on objects whose getters or proxy traps throw, and on wrong types", () => {
    const thrower = () => {
      throw new Error("trap")
    }
    const trap = new Proxy({}, { get: thrower, ownKeys: thrower, getOwnPropertyDescriptor: thrower })
    assert.strictEqual(dialect(trap), "2020-12")
    assert.strictEqual(dialect({ properties: { a: trap } }), "2020-12")
    for (const w of [null, undefined, 5, "draft-07", Symbol("s")]) assert.strictEqual(dialect(w as never), "2020-12")
    assert.deepStrictEqual(JsonSchema.subschemas(trap), [])
    assert.deepStrictEqual(JsonSchema.subschemas(null as never), [])
  })
})

describe("Pointer", () => {
  it("parses RFC 6901 pointers with ~0 and ~1", () => {
    assert.deepStrictEqual(Pointer.parse(""), [])
    assert.deepStrictEqual(Pointer.parse("/"), [""])
    assert.deepStrictEqual(Pointer.parse("/a~1b/c~0d/~01"), ["a/b", "c~d", "~1"])
    assert.deepStrictEqual(Pointer.parse("/0/ "), ["0", " "])
  })

  it("percent-decodes URI fragments, and leaves a malformed escape as it is", () => {
    assert.deepStrictEqual(Pointer.parse("#"), [])
    assert.deepStrictEqual(Pointer.parse("#/$defs/a%20b/%25"), ["$defs", "a b", "%"])
    assert.deepStrictEqual(Pointer.parse("#/a%zz"), ["a%zz"])
  })

  it("formats with escaping", () => {
    assert.strictEqual(Pointer.format([]), "")
    assert.strictEqual(Pointer.format(["a/b", "c~d", 0]), "/a~1b/c~0d/0")
    assert.strictEqual(Pointer.append("/x", "y/z"), "/x/y~1z")
  })

  it.prop("parse ∘ format is the identity on tokens", [FastCheck.array(FastCheck.string())], ([tokens]) => {
    assert.deepStrictEqual(Pointer.parse(Pointer.format(tokens)), tokens)
  })

  it("gets own properties and canonical array indices only", () => {
    const doc: JsonValue = JSON.parse('{"a": [10, 20], "__proto__": {"x": 1}, "a/b": 3, "": 4}')
    assert.strictEqual(Pointer.get(doc, "/a/1"), 20)
    assert.strictEqual(Pointer.get(doc, "/a/01"), undefined)
    assert.strictEqual(Pointer.get(doc, "/a/-"), undefined)
    assert.strictEqual(Pointer.get(doc, "/a/length"), undefined)
    assert.deepStrictEqual(Pointer.get(doc, "/__proto__"), { x: 1 })
    assert.strictEqual(Pointer.get(doc, "/a~1b"), 3)
    assert.strictEqual(Pointer.get(doc, "/"), 4)
    assert.strictEqual(Pointer.get({}, "/constructor"), undefined)
    assert.strictEqual(Pointer.get({}, "/__proto__"), undefined)
    assert.strictEqual(Pointer.get(5, "/a"), undefined)
  })

  it("answers wrong types without throwing", () => {
    assert.deepStrictEqual(Pointer.parse(123 as never), [])
    assert.deepStrictEqual(Pointer.parse(null as never), [])
    assert.strictEqual(Pointer.format(null as never), "")
    assert.strictEqual(Pointer.format("ab" as never), "")
    assert.strictEqual(Pointer.get({ a: 1 }, undefined as never), undefined)
    assert.strictEqual(Pointer.append(Symbol("p") as never, "a"), "/a")
    assert.strictEqual(Pointer.append("/x", Symbol("t") as never), "/x/Symbol(t)")
  })
})

describe("resolveRef", () => {
  const root: JsonSchema.JsonSchemaObject = {
    $id: "https://example.com/tool.json",
    $defs: {
      a: { $ref: "#/$defs/b", description: "a is b" },
      b: { $ref: "#/definitions/c" },
      c: { type: "string" },
      loop1: { $ref: "#/$defs/loop2" },
      loop2: { $ref: "#/$defs/loop1" },
      self: { $ref: "#/$defs/self" },
      "x y": { type: "integer" },
      "s/t": { type: "null" },
      named: { $anchor: "here", type: "boolean" },
      toExternal: { $ref: "other.json" },
      withSiblings: { $ref: "#/$defs/c", minLength: 2 }
    },
    definitions: { c: { type: "number" } },
    required: ["x"]
  }

  it("resolves the root, $defs and definitions", () => {
    assert.deepStrictEqual(resolveRef(root, "#"), { _tag: "Resolved", schema: root, pointer: "" })
    assert.deepStrictEqual(resolveRef(root, "#/$defs/c"), { _tag: "Resolved", schema: { type: "string" }, pointer: "/$defs/c" })
    assert.deepStrictEqual(resolveRef(root, "#/definitions/c"), { _tag: "Resolved", schema: { type: "number" }, pointer: "/definitions/c" })
  })

  it("follows a chain of pure $refs to its end", () => {
    const r = resolveRef(root, "#/$defs/a")
    assert.deepStrictEqual(r, { _tag: "Resolved", schema: { type: "number" }, pointer: "/definitions/c" })
  })

  it("does not follow a $ref that has sibling constraints", () => {
    const r = resolveRef(root, "#/$defs/withSiblings")
    assert.strictEqual(r._tag === "Resolved" && r.pointer, "/$defs/withSiblings")
  })

  it("detects cycles", () => {
    assert.deepStrictEqual(resolveRef(root, "#/$defs/loop1"), { _tag: "Unresolvable", ref: "#/$defs/loop1", reason: "cycle" })
    assert.deepStrictEqual(resolveRef(root, "#/$defs/self"), { _tag: "Unresolvable", ref: "#/$defs/self", reason: "cycle" })
    assert.deepStrictEqual(resolveRef({ $ref: "#" }, "#"), { _tag: "Unresolvable", ref: "#", reason: "cycle" })
  })

  it("reports missing targets and non-schema targets", () => {
    assert.strictEqual(resolveRef(root, "#/$defs/nope")._tag, "Unresolvable")
    assert.deepStrictEqual(resolveRef(root, "#/required"), { _tag: "Unresolvable", ref: "#/required", reason: "missing" })
    assert.deepStrictEqual(resolveRef(root, "#/$defs/__proto__"), { _tag: "Unresolvable", ref: "#/$defs/__proto__", reason: "missing" })
    assert.deepStrictEqual(resolveRef(root, "#nowhere"), { _tag: "Unresolvable", ref: "#nowhere", reason: "missing" })
  })

  it("reports external refs, also at the end of a chain", () => {
    assert.deepStrictEqual(resolveRef(root, "http://other/x.json#/a"), { _tag: "Unresolvable", ref: "http://other/x.json#/a", reason: "external" })
    assert.deepStrictEqual(resolveRef(root, "#/$defs/toExternal"), { _tag: "Unresolvable", ref: "other.json", reason: "external" })
    assert.deepStrictEqual(resolveRef(true, "x.json"), { _tag: "Unresolvable", ref: "x.json", reason: "external" })
  })

  it("reads the root's own $id, percent-encoding, ~1 escapes and $anchor", () => {
    assert.strictEqual(resolveRef(root, "https://example.com/tool.json#/$defs/c")._tag, "Resolved")
    assert.deepStrictEqual(resolveRef(root, "#/$defs/x%20y"), { _tag: "Resolved", schema: { type: "integer" }, pointer: "/$defs/x y" })
    assert.deepStrictEqual(resolveRef(root, "#/$defs/s~1t"), { _tag: "Resolved", schema: { type: "null" }, pointer: "/$defs/s~1t" })
    assert.deepStrictEqual(resolveRef(root, "#here"), { _tag: "Resolved", schema: { $anchor: "here", type: "boolean" }, pointer: "/$defs/named" })
  })

  it("is total on a boolean root and on 10,000-level nesting", () => {
    assert.deepStrictEqual(resolveRef(false, "#"), { _tag: "Resolved", schema: false, pointer: "" })
    assert.strictEqual(resolveRef(true, "#/a")._tag, "Unresolvable")
    const deep = nested(10_000, { type: "string" })
    const r = resolveRef(deep, "#" + "/properties/a".repeat(10_000))
    assert.deepStrictEqual(r._tag === "Resolved" && r.schema, { type: "string" })
    assert.strictEqual(resolveRef(deep, "#notThere")._tag, "Unresolvable")
  })

  it("answers a ref or root of the wrong type without throwing", () => {
    assert.deepStrictEqual(resolveRef({}, 5 as never), { _tag: "Unresolvable", ref: "5", reason: "missing" })
    assert.strictEqual(resolveRef({}, null as never)._tag, "Unresolvable")
    assert.strictEqual(resolveRef(null as never, "#/a")._tag, "Unresolvable")
    assert.strictEqual(resolveRef("x" as never, "#/length")._tag, "Unresolvable")
  })
})

describe("keyword tables", () => {
  it("classifies keywords per dialect", () => {
    assert.isTrue(JsonSchema.Keywords.applicators["2020-12"].has("prefixItems"))
    assert.isFalse(JsonSchema.Keywords.applicators["draft-07"].has("prefixItems"))
    assert.isTrue(JsonSchema.Keywords.applicators["draft-07"].has("additionalItems"))
    assert.isTrue(JsonSchema.Keywords.assertions["2020-12"].has("dependentRequired"))
    assert.isTrue(JsonSchema.Keywords.annotations.has("description"))
    assert.isFalse(JsonSchema.Keywords.annotations.has("type"))
  })

  it("lists direct subschemas with their path tokens", () => {
    const s = { properties: { a: { type: "string" } }, anyOf: [true, 5], items: { type: "integer" }, enum: [{}] }
    assert.deepStrictEqual(JsonSchema.subschemas(s as unknown as JsonSchema.JsonSchema).map((c) => c.tokens), [
      ["properties", "a"],
      ["anyOf", "0"],
      ["items"]
    ])
    assert.deepStrictEqual(JsonSchema.subschemas(true), [])
  })
})

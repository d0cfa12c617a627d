import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"

const tag = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => Subschema.check(cloud, local)._tag

/** Asserts drift and that the witness really is accepted by the cloud validator and rejected locally. */
const drift = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => {
  const v = Subschema.check(cloud, local)
  assert.strictEqual(v._tag, "Drift", JSON.stringify(v))
  if (v._tag !== "Drift") throw new Error("unreachable")
  const c = Either.getOrThrow(Validator.compile(cloud))
  const l = Either.getOrThrow(Validator.compile(local))
  assert.isTrue(c.isValid(v.witness), "cloud accepts the witness")
  assert.isFalse(l.isValid(v.witness), "local rejects the witness")
  assert.isAbove(v.reasons.length, 0)
  return v
}

const obj = (properties: Record<string, JsonSchema.JsonSchema>, extra: Record<string, unknown> = {}): JsonSchema.JsonSchema =>
  ({ type: "object", properties, ...extra }) as JsonSchema.JsonSchema

describe("Subschema.check: narrowing is not drift", () => {
  it("tighter ranges, exclusive bounds, lengths, items, smaller enums, integer for number", () => {
    assert.strictEqual(tag({ type: "integer", minimum: 1, maximum: 5 }, { type: "number", minimum: 0, maximum: 10 }), "Subtype")
    assert.strictEqual(tag({ type: "number", exclusiveMinimum: 0 }, { type: "number", minimum: 0 }), "Subtype")
    assert.strictEqual(tag({ type: "integer", exclusiveMinimum: 0.5 }, { type: "integer", minimum: 1 }), "Subtype")
    assert.strictEqual(tag({ type: "string", maxLength: 5, pattern: "^a+$" }, { type: "string", maxLength: 10 }), "Subtype")
    assert.strictEqual(tag({ type: "array", minItems: 2, items: { type: "integer" } }, { type: "array", items: { type: "number" } }), "Subtype")
    assert.strictEqual(tag({ enum: ["a", "b"] }, { type: "string", enum: ["a", "b", "c"] }), "Subtype")
    assert.strictEqual(tag({ type: "string", pattern: "^[a-z]+$" }, { type: "string", pattern: "^[a-z]+$" }), "Subtype")
    assert.strictEqual(tag({ type: "string", format: "email" }, { type: "string", format: "email" }), "Subtype")
  })
  it("closed cloud object under an open local one; extra required in the cloud", () => {
    const local = obj({ a: { type: "string" } })
    assert.strictEqual(tag(obj({ a: { type: "string" } }, { additionalProperties: false, required: ["a"] }), local), "Subtype")
  })
  it("deeply equal schemas take the fast path, even ones it could not model", () => {
    const s = { type: "object", unevaluatedProperties: false, properties: { a: { $dynamicRef: "#x" } } } as JsonSchema.JsonSchema
    assert.strictEqual(tag(s, JSON.parse(JSON.stringify(s))), "Subtype")
  })
  it("multipleOf with exact decimals (the validator's multipleOf is exact too)", () => {
    assert.strictEqual(tag({ type: "integer", multipleOf: 6, minimum: 0, maximum: 1000 }, { type: "integer", multipleOf: 3 }), "Subtype")
    assert.strictEqual(tag({ type: "integer", multipleOf: 6 }, { type: "integer", multipleOf: 3 }), "Subtype")
    assert.strictEqual(tag({ type: "integer", multipleOf: 10 }, { type: "integer", multipleOf: 5 }), "Subtype")
    assert.strictEqual(tag({ type: "integer" }, { type: "number", multipleOf: 1 }), "Subtype")
    assert.strictEqual(tag({ type: "integer" }, { type: "number", multipleOf: 0.25 }), "Subtype")
    assert.strictEqual(tag({ type: "number", multipleOf: 0.5 }, { type: "number", multipleOf: 0.5 }), "Subtype")
    assert.strictEqual(tag({ type: "number", multipleOf: 0.03 }, { type: "number", multipleOf: 0.01 }), "Subtype")
    drift({ type: "integer", multipleOf: 5 }, { type: "integer", multipleOf: 10 })
    drift({ type: "number", multipleOf: 0.01 }, { type: "number", multipleOf: 0.02 })
    drift({ type: "integer" }, { type: "number", multipleOf: 0.3 })
  })
})

describe("Subschema.check: drift with a verified witness", () => {
  it("a property required locally but optional in the cloud", () => {
    const v = drift(obj({ units: { type: "string" } }), obj({ units: { type: "string" } }, { required: ["units"] }))
    assert.strictEqual(v.reasons[0]!.message, "`units` is required locally but optional in the cloud schema")
    assert.strictEqual(v.reasons[0]!.localPath, "/required")
  })
  it("names every difference whose own witness both validators confirm, each as one line with its field", () => {
    const local = obj({ city: { type: "string" }, units: { enum: ["metric", "imperial"] }, days: { type: "integer", maximum: 7 } }, { required: ["city"], additionalProperties: false })
    const cloud = obj({ city: { type: "string" }, units: { enum: ["metric", "imperial", "kelvin"] }, days: { type: "integer" } }, { additionalProperties: false })
    const v = drift(cloud, local)
    assert.deepStrictEqual(v.reasons.map((r) => r.localPath), ["/required", "/properties/units/enum", "/properties/days/maximum"])
    assert.deepStrictEqual(v.reasons.map(Subschema.explain), [
      "`city` is required locally but optional in the cloud schema",
      "`units`: " + v.reasons[1]!.message,
      "`days`: the local schema allows at most 7; the cloud schema allows any higher value"
    ])
    // each reason stands on a witness of its own: fixing one leaves the others
    const fixed = drift({ ...(cloud as object), required: ["city"] } as JsonSchema.JsonSchema, local)
    assert.deepStrictEqual(fixed.reasons.map((r) => r.localPath), ["/properties/units/enum", "/properties/days/maximum"])
  })
  it("explain: a field for a chain of properties, items and same-value applicators; any other path gives the message as is", () => {
    const at = (localPath: string) => Subschema.explain({ cloudPath: "", localPath, message: "m" })
    assert.deepStrictEqual(
      ["", "/required", "/properties/a~1b/properties/c/type", "/properties/tags/items/pattern", "/prefixItems/1/type", "/items/0/type", "/properties/a/anyOf/0/type"].map(at),
      ["m", "m", "`a/b.c`: m", "`tags[]`: m", "`[1]`: m", "m", "`a`: m"]
    )
    // paths it cannot read as one field (definitions, a dangling `properties`, `__proto__`, junk) add nothing
    for (const p of ["/$defs/x/properties/y/type", "/properties", "#/%zz", "/properties/__proto__/type/extra/more"]) {
      assert.strictEqual(at(p), "m", p)
    }
    assert.strictEqual(at("/properties/__proto__/type"), "`__proto__`: m")
  })
  it("a type the local side rejects, an enum value, a const", () => {
    drift(obj({ a: { type: ["string", "null"] } }), obj({ a: { type: "string" } }))
    drift({ type: "number" }, { type: "integer" })
    const e = drift({ enum: ["a", "b"] }, { enum: ["a"] })
    assert.deepStrictEqual([e.reasons[0]!.cloudPath, e.reasons[0]!.localPath], ["/enum", "/enum"])
    const c = drift(obj({ k: { const: -3 } }), obj({ k: { type: "integer", minimum: 0 } }))
    assert.deepStrictEqual([c.reasons[0]!.cloudPath, c.reasons[0]!.localPath], ["/properties/k/const", "/properties/k/minimum"])
    drift({ type: "string" }, { const: "a" })
  })
  it("an extra property under a closed local object, declared or through an open cloud", () => {
    const local = obj({ a: { type: "string" } }, { additionalProperties: false })
    drift(obj({ a: { type: "string" }, b: { type: "integer" } }), local)
    drift(obj({ a: { type: "string" } }), local)
  })
  it("a local constraint on a key the cloud leaves open", () => {
    drift({ type: "object" }, obj({ a: { type: "string" } }))
    drift({ type: "object", additionalProperties: { type: "integer" } }, { type: "object", additionalProperties: { type: "integer", minimum: 0 } })
  })
  it("arrays and tuples", () => {
    drift({ type: "array", items: { type: "string" } }, { type: "array", items: { type: "string" }, maxItems: 2 })
    drift({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }, { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] })
    drift({ type: "array", items: { type: "integer" } }, { type: "array", items: { type: "integer" }, uniqueItems: true })
    // the validator's uniqueItems is exact (Ajv's skipped tuple positions whose type differs from a typed `items`)
    const tupled = { prefixItems: [{ type: "boolean" }, { type: "boolean" }], uniqueItems: true }
    assert.strictEqual(tag({ ...tupled, items: { type: "integer" } }, tupled), "Subtype")
  })
  it("witnesses satisfy the cloud's patterns (a small generator for simple regular expressions)", () => {
    const id = { type: "string", pattern: "^gls_[a-zA-Z0-9_-]+$", minLength: 8 }
    const v = drift(obj({ id, asn: { type: "string", pattern: "^AS\\d+$" } }, { required: ["id"] }), obj({ id, asn: { type: "string" } }, { required: ["id", "asn"] }))
    assert.match(JSON.stringify(v.witness), /"id":"gls_a{4,}"/)
    drift(obj({ code: { type: "string", pattern: "^(foo|bar)-\\d{2}$" } }, { required: ["code"] }), obj({ code: { type: "string", maxLength: 3 } }, { required: ["code"] }))
  })
  it("ranges, lengths, formats, patterns", () => {
    drift({ type: "integer", minimum: 0 }, { type: "integer", minimum: 1 })
    drift({ type: "number", maximum: 10 }, { type: "number", exclusiveMaximum: 10 })
    drift({ type: "string" }, { type: "string", minLength: 1 })
    drift({ type: "string" }, { type: "string", format: "date-time" })
    drift({ type: "string" }, { type: "string", pattern: "^[0-9]+$" })
    drift({ type: "integer", multipleOf: 2 }, { type: "integer", multipleOf: 4 })
  })
})

describe("Subschema.check: combinators", () => {
  it("cloud anyOf: every branch", () => {
    assert.strictEqual(tag({ anyOf: [{ type: "string" }, { type: "integer" }] }, { type: ["string", "number"] }), "Subtype")
    drift({ anyOf: [{ type: "string" }, { type: "null" }] }, { type: "string" })
  })
  it("local anyOf: a branch per cloud type; a type union with null", () => {
    assert.strictEqual(tag({ type: ["string", "null"] }, { anyOf: [{ type: "string" }, { type: "null" }] }), "Subtype")
    drift({ type: ["string", "boolean"] }, { anyOf: [{ type: "string" }, { type: "null" }] })
  })
  it("local anyOf merges same-type numeric branches into a union of intervals", () => {
    assert.strictEqual(tag({ type: "integer", minimum: 0, maximum: 1000 }, { anyOf: [{ type: "integer", maximum: 5 }, { type: "integer", minimum: 6 }] }), "Subtype")
    assert.strictEqual(tag({ type: "number", minimum: 0 }, { anyOf: [{ type: "number", maximum: 5 }, { minimum: 5 }] }), "Subtype")
    drift({ type: "number", minimum: 0 }, { anyOf: [{ type: "number", exclusiveMaximum: 5 }, { exclusiveMinimum: 5 }] })
    drift({ type: "number", minimum: 0, maximum: 100 }, { anyOf: [{ type: "integer", maximum: 5 }, { type: "number", minimum: 5 }] })
  })
  it("local oneOf only when branches are disjoint", () => {
    const tagged = { oneOf: [obj({ kind: { const: "a" }, x: { type: "string" } }, { required: ["kind"] }), obj({ kind: { const: "b" } }, { required: ["kind"] })] }
    assert.strictEqual(tag(obj({ kind: { const: "a" }, x: { type: "string" } }, { required: ["kind"] }), tagged), "Subtype")
    const overlapping = { oneOf: [{ type: "string", maxLength: 5 }, { type: "string", minLength: 10 }] }
    assert.strictEqual(tag({ type: "string", maxLength: 3 }, overlapping), "Unsupported")
    drift({ type: "string", minLength: 2 }, { oneOf: [{ type: "string" }, { minLength: 1 }] })
  })
  it("allOf merged on the cloud, judged per branch locally (additionalProperties per branch)", () => {
    const cloud = { allOf: [obj({ a: { type: "string" } }, { required: ["a"] }), obj({ b: { type: "integer" } }, { required: ["b"] })] }
    assert.strictEqual(tag(cloud, obj({ a: { type: "string" } }, { required: ["a"] })), "Subtype")
    drift(cloud, { allOf: [obj({ a: { type: "string" } }, { additionalProperties: false })] })
  })
  it("not where decidable", () => {
    assert.strictEqual(tag({ type: "string" }, { not: { type: "number" } }), "Subtype")
    assert.strictEqual(tag({ allOf: [{ minimum: 2 }, { not: { minimum: 2 } }] }, false), "Subtype")
    assert.strictEqual(tag(true, { anyOf: [{ minimum: 2 }, { not: { minimum: 2 } }] }), "Subtype")
    assert.strictEqual(tag(true, { anyOf: [{ not: false }] }), "Subtype")
    drift(true, { anyOf: [{ not: true }] })
    drift({ type: "integer" }, { not: { type: "integer", minimum: 3 } })
  })
})

describe("Subschema.check: references, booleans, finite sides", () => {
  const tree = (extra: Record<string, unknown>) => ({
    $defs: { node: { type: "object", properties: { value: { type: "integer", ...extra }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    $ref: "#/$defs/node"
  })
  it("recursive schemas are proven co-inductively and drift deep inside is found", () => {
    assert.strictEqual(tag(tree({ minimum: 0 }), tree({})), "Subtype")
    const v = drift(tree({}), tree({ minimum: 0 }))
    assert.isTrue(JSON.stringify(v.witness).includes("-"))
  })
  it("a $ref to the root through its $id is followed, not mistaken for an assumption", () => {
    const local = { $id: "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", minimum: 30, properties: { foo: { $ref: "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed" } } }
    drift({ type: "object", properties: { alpha: { type: "number", maximum: 3 } } }, local)
  })
  it("an unguarded recursive local $ref is not a proof", () => {
    assert.strictEqual(tag(true, { anyOf: [{ $ref: "#" }, { type: "string" }] }), "Unsupported")
  })
  it("external refs are Unsupported", () => {
    const v = Subschema.check({ type: "string" }, { $ref: "https://example.com/s.json" })
    assert.strictEqual(v._tag, "Unsupported")
  })
  it("boolean schemas and {}", () => {
    assert.strictEqual(tag(false, { type: "string" }), "Subtype")
    assert.strictEqual(tag({ type: "string" }, true), "Subtype")
    assert.strictEqual(tag({ type: "string" }, {}), "Subtype")
    drift({}, { type: "string" })
    drift(true, false)
  })
  it("a finite cloud side is decided by the local validator", () => {
    assert.strictEqual(tag({ enum: ["2024-01-31"] }, { type: "string", format: "date" }), "Subtype")
    drift({ enum: ["2024-01-31", "x"] }, { type: "string", format: "date" })
    assert.strictEqual(tag({ type: "integer", minimum: 1, maximum: 3 }, { enum: [1, 2, 3] }), "Subtype")
    assert.strictEqual(tag({ type: "boolean" }, { enum: [true, false] }), "Subtype")
  })
  it("local keywords it does not model are Unsupported, naming the construct", () => {
    const v = Subschema.check({ type: "object", additionalProperties: false }, { type: "object", unevaluatedProperties: false })
    assert.deepStrictEqual(v, { _tag: "Unsupported", construct: "unevaluatedProperties", path: "/unevaluatedProperties" })
    drift({ type: "number" }, { type: "number", multipleOf: 0.1 })
    assert.strictEqual(tag({ type: "string", pattern: "^a" }, { type: "string", pattern: "^(?=a)" }), "Unsupported")
    // the validator refuses asynchronous schemas, so nothing would pass the executor
    assert.deepStrictEqual(Subschema.check({ type: "integer", maximum: 5 }, { type: "integer", $async: true }), { _tag: "Unsupported", construct: "$async", path: "/$async" })
    assert.strictEqual(tag({ type: "integer", minimum: 1, maximum: 5 }, { type: "integer", $async: true }), "Unsupported")
  })
  it("a name in draft-07 dependencies is data, not an annotation (`title` is a property name there)", () => {
    // `dependencies: { title: [...] }` once compared equal to `dependencies: {}`: X next to `not: X` made these Subtype
    assert.notStrictEqual(tag({ allOf: [{ dependencies: {} }, { not: { dependencies: { title: ["x"] } } }] }, { type: "string" }), "Subtype")
    drift({ type: "object" }, { anyOf: [{ dependencies: { title: ["x"] } }, { not: { dependencies: {} } }] })
    drift({ type: "object" }, { anyOf: [{ dependencies: { description: { required: ["x"] } } }, { not: { dependencies: {} } }] })
    assert.strictEqual(tag({ type: "object" }, { anyOf: [{ dependencies: { title: ["x"] } }, { not: { dependencies: { title: ["x"] } } }] }), "Subtype")
  })
  it("an embedded $id on the local side is folded into pointers where every reference resolves inside the document", () => {
    const local = { type: "object", $defs: { a: { $id: "http://x.example/a", type: "string" } }, properties: { p: { $ref: "#/$defs/a" } } }
    assert.deepStrictEqual(Subschema.check({ type: "object", properties: { p: { type: "string" } } }, local), { _tag: "Subtype" })
    const c = Validator.compile(local)
    assert.isTrue(Either.isRight(c) && [{}, { p: "" }, { p: "x" }, { q: 1 }].every((v) => c.right.isValid(v)))
  })
  it("an embedded $id whose references leave the document is Unsupported at the pointer of that $id", () => {
    const local = { type: "object", $defs: { a: { $id: "http://x.example/a", type: "object", properties: { q: { $ref: "b.json" } } } }, properties: { p: { $ref: "#/$defs/a" } } }
    assert.deepStrictEqual(Subschema.check({ type: "object", properties: { p: { type: "object" } } }, local), { _tag: "Unsupported", construct: "embedded $id", path: "/$defs/a/$id" })
  })
  it("a local schema the validator cannot compile is never a proof (the executor would reject every call)", () => {
    const v = Subschema.check({ type: "integer", minimum: 10 }, { anyOf: [{ type: "number", minimum: "5" }, { type: "string" }] })
    assert.deepStrictEqual(v, { _tag: "Unsupported", construct: "the local schema does not compile: `minimum` must be number", path: "/anyOf/0/minimum" })
    for (const local of [
      { type: "integer", description: 5 },
      { type: "object", required: ["a", "a"] },
      { type: "integer", items: 5 },
      { type: "integer", properties: 5 }
    ]) {
      assert.isTrue(Either.isLeft(Validator.compile(local)), JSON.stringify(local))
      assert.strictEqual(tag({ type: "integer", maximum: 3, required: ["a"] }, local), "Unsupported", JSON.stringify(local))
    }
  })
  it("cloud annotations and vendor keys are ignored", () => {
    assert.strictEqual(tag({ type: "string", "x-vendor": { type: "number" }, description: "d", examples: [1] }, { type: "string" }), "Subtype")
  })
})

describe("Subschema.check: hostile input", () => {
  it("wrong types are Unsupported, never a throw", () => {
    for (const bad of [null, 1, "s", [], undefined, new Date(), () => 1]) {
      assert.strictEqual(Subschema.check(bad as never, { type: "string" })._tag, "Unsupported")
      assert.strictEqual(Subschema.check({ type: "string" }, bad as never)._tag, "Unsupported")
    }
    assert.strictEqual(tag({ type: 7 } as never, { type: "string" }), "Unsupported")
    assert.strictEqual(tag({ type: "string" }, { type: 7 } as never), "Unsupported")
    assert.strictEqual(tag({ type: "object" }, { type: "object", required: "a" } as never), "Unsupported")
  })
  it("10,000-level nesting and huge values stay total", () => {
    let deep: JsonSchema.JsonSchema = { type: "string" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    assert.strictEqual(tag(deep, { type: "string" }), "Unsupported")
    assert.include(["Subtype", "Unsupported"], tag(deep, { type: "object" }))
    assert.include(["Subtype", "Unsupported"], tag(deep, deep))
    assert.strictEqual(tag({ type: "number", maximum: 1e308 }, { type: "number", maximum: Number.MAX_VALUE }), "Subtype")
    assert.strictEqual(tag({ type: "string", maxLength: 1e15 }, { type: "string", maxLength: 1e16 }), "Subtype")
  })
  it("__proto__ and constructor keys neither throw nor pollute", () => {
    const local = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__","constructor"]}')
    const cloud = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__"]}')
    const v = drift(cloud, local)
    assert.include(v.reasons[0]!.message, "constructor")
    assert.strictEqual(({} as Record<string, unknown>)["type"], undefined)
    assert.strictEqual(tag(local, cloud), "Subtype")
  })
  it("a pathological pair is bounded by the budget", () => {
    const wide = { anyOf: Array.from({ length: 40 }, (_, i) => ({ allOf: Array.from({ length: 40 }, (_, j) => ({ anyOf: [{ minimum: i }, { maximum: j }] })) })) }
    const v = Subschema.check(wide, { anyOf: [{ type: "string" }, { type: "number", minimum: -1 }] }, { budget: 500 })
    assert.include(["Unsupported", "Drift"], v._tag)
    assert.strictEqual(Subschema.check({ type: "integer" }, { type: "number" }, { budget: 0 })._tag, "Unsupported")
  })
  it("hostile options and objects with throwing getters", () => {
    for (const budget of [Number.NaN, -5, Infinity, 1e300]) {
      assert.include(["Subtype", "Unsupported"], Subschema.check({ type: "integer" }, { type: "number" }, { budget })._tag)
    }
    assert.strictEqual(Subschema.check({ type: "integer" }, { type: "number" }, { budget: Infinity })._tag, "Subtype")
    const trap = new Proxy({}, { ownKeys: () => { throw new Error("trap") } }) as JsonSchema.JsonSchema
    assert.strictEqual(Subschema.check(trap, { type: "string" })._tag, "Unsupported")
    const getter = Object.defineProperty({}, "type", { enumerable: true, get: () => { throw new Error("getter") } }) as JsonSchema.JsonSchema
    assert.strictEqual(Subschema.check({ type: "string" }, getter)._tag, "Unsupported")
  })
  it("Ajv's nullable on the cloud side lets null through", () => {
    drift({ type: "string", nullable: true } as JsonSchema.JsonSchema, { type: "string" })
    assert.strictEqual(tag({ type: "string" }, { type: "string", nullable: true } as JsonSchema.JsonSchema), "Subtype")
  })
  it("a verdict is cached by identity and by content", () => {
    const cloud: JsonSchema.JsonSchema = { type: "integer" }, local: JsonSchema.JsonSchema = { type: "number" }
    assert.strictEqual(Subschema.check(cloud, local), Subschema.check(cloud, local))
  })
  it("a verdict is cached by content", () => {
    const a = Subschema.check({ type: "integer", minimum: 3 }, { type: "number", minimum: 1 })
    const b = Subschema.check({ minimum: 3, type: "integer" }, { minimum: 1, type: "number" })
    assert.strictEqual(a, b)
  })
})

describe("Subschema.check: decisiveness", () => {
  it("witnesses strictly between bounds, honouring exclusivity", () => {
    const v = drift({ type: "number", exclusiveMaximum: 10 }, { type: "number", maximum: 9.99 })
    assert.strictEqual(v.witness, 9.995)
    drift({ type: "number", exclusiveMinimum: 0 }, { type: "number", minimum: 0.001 })
  })
  it("property names drawn from the local pattern that is violated, and names no local pattern matches", () => {
    const v = drift({ type: "object" }, { patternProperties: { "^n_": { type: "number" } } })
    assert.match(Object.keys(v.witness as object)[0]!, /^n_/)
    drift({ type: "object", patternProperties: { "^n_": { type: "number" } } }, { type: "object", patternProperties: { "^n_": { type: "number" } }, additionalProperties: false })
  })
  it("int32 / int64 as ajv-formats checks them", () => {
    assert.strictEqual(tag({ type: "integer" }, { type: "integer", format: "int64" }), "Subtype")
    assert.strictEqual(tag({ type: "integer", format: "int32" }, { type: "integer", format: "int64" }), "Subtype")
    assert.strictEqual(tag({ type: "number", format: "int32" }, { type: "integer" }), "Subtype")
    assert.strictEqual(tag({ type: "integer", minimum: 0, maximum: 100 }, { type: "integer", format: "int32" }), "Subtype")
    drift({ type: "integer" }, { type: "integer", format: "int32" })
    drift({ type: "number" }, { type: "number", format: "int64" })
  })
  it("a local not: X under a cloud not: Y with X ⊑ Y (roots swapped)", () => {
    assert.strictEqual(tag({ not: { type: "string" } }, { not: { type: "string", minLength: 2 } }), "Subtype")
    assert.strictEqual(tag({ not: { type: "number", multipleOf: 0.25, additionalProperties: false } }, { not: { type: "number", multipleOf: 0.25 } }), "Subtype")
    assert.strictEqual(tag({ $defs: { s: { type: "string" } }, not: { $ref: "#/$defs/s" } }, { $defs: { s: { type: "string", maxLength: 3 } }, not: { $ref: "#/$defs/s" } }), "Subtype")
    assert.notStrictEqual(tag({ $defs: { s: { type: "string", maxLength: 3 } }, not: { $ref: "#/$defs/s" } }, { $defs: { s: { type: "string" } }, not: { $ref: "#/$defs/s" } }), "Subtype")
  })
  it("a local oneOf whose branches overlap, when the cloud is inside one branch and outside the others", () => {
    const kinds = { oneOf: [{ properties: { kind: { const: "a" } } }, { properties: { kind: { const: "b" } }, required: ["kind"] }] }
    assert.strictEqual(tag({ type: "object", properties: { kind: { const: "a" } }, required: ["kind"] }, kinds), "Subtype")
    assert.strictEqual(tag({ type: "string" }, { oneOf: [{ type: "string" }, { type: "number", minimum: 5 }, true, { not: { type: "string" } }].slice(0, 2) }), "Subtype")
    drift({ type: "integer" }, { oneOf: [{ type: "integer" }, { type: "number", minimum: 5 }] })
    assert.notStrictEqual(tag({ type: "object", properties: { kind: { enum: ["a", "b"] } }, required: ["kind"] }, kinds), "Subtype")
  })
  it("a cloud if/then/else: the else side also fails the if", () => {
    const cloud = { type: ["string", "integer"], if: { type: "string" }, then: { maxLength: 3 } }
    assert.strictEqual(tag(cloud, { anyOf: [{ type: "string", maxLength: 3 }, { type: "integer" }] }), "Subtype")
    drift(cloud, { anyOf: [{ type: "string", maxLength: 2 }, { type: "integer" }] })
    assert.strictEqual(tag({ if: { type: "string" }, then: false }, { not: { type: "string" } }), "Subtype")
  })
  it("running out of budget says so", () => {
    const v = Subschema.check({ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { a: { anyOf: [{ type: "string" }] } } }, { budget: 1 })
    assert.strictEqual(v._tag, "Unsupported")
    if (v._tag === "Unsupported") assert.match(v.construct, /work budget exhausted/)
  })
})


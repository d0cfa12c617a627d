import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Either } from "effect"
import * as Normalize from "../src/Normalize.js"
import * as Validator from "../src/Validator.js"
import { deep, freeze, tool } from "./internal/normalizeArbitrary.js"
import { googleUnsupported, googleViolations } from "./internal/providerRules.google.js"

const google = (s: unknown) => Normalize.google(freeze(s) as never)
const changed = (r: Normalize.Normalized, path: string): ReadonlyArray<string> => r.changes.filter((c) => c.path === path).map((c) => c.change)

describe("Normalize.google", () => {
  it("strips every unsupported keyword, but never a property named like one", () => {
    const props = Object.fromEntries(googleUnsupported.map((k) => [k, { type: "string" }]))
    const s = { type: "object", properties: props, ...Object.fromEntries(googleUnsupported.map((k) => [k, k === "$ref" ? "#/properties/pattern" : 1])) }
    const r = google(s)
    assert.deepStrictEqual(googleViolations(r.schema), [])
    assert.deepStrictEqual(Object.keys((r.schema as { properties: object }).properties), googleUnsupported)
  })

  it("spills the human-meaningful stripped keywords into `description`", () => {
    const appended = google({ type: "string", description: "A name.", pattern: "^foo$", minLength: 2, format: "email" }).schema
    assert.deepStrictEqual(appended, { type: "string", description: "A name. {pattern: \"^foo$\", minLength: 2, format: \"email\"}" })
    const made = google({ type: "integer", minimum: 0, exclusiveMaximum: 10, examples: [3] }).schema
    assert.deepStrictEqual(made, { type: "integer", description: "{minimum: 0, exclusiveMaximum: 10, examples: [3]}" })
  })

  it("does not spill structural keywords", () => {
    const r = google({
      type: "object", description: "d", properties: {}, additionalProperties: false, $schema: "https://json-schema.org/draft/2020-12/schema",
      patternProperties: { "^x": {} }, unevaluatedProperties: false, $defs: { a: {} }
    })
    assert.deepStrictEqual(r.schema, { type: "object", description: "d", properties: {} })
    assert.deepStrictEqual(changed(r, "/additionalProperties"), ["`additionalProperties` removed (Google does not support it)"])
  })

  it("drops tuples, `prefixItems` and draft-07 array-form `items` alike", () => {
    assert.deepStrictEqual(google({ type: "array", prefixItems: [{ type: "string" }], items: { type: "integer" } }).schema, { type: "array", items: { type: "integer" } })
    assert.deepStrictEqual(google({ type: "array", items: [{ type: "string" }] }).schema, { type: "array" })
  })

  it("cuts a long spilled value", () => {
    const d = (google({ type: "string", examples: ["x".repeat(1000)] }).schema as { description: string }).description
    assert.isTrue(d.length < 260 && d.endsWith("…}"))
  })

  it("turns `type: [T, \"null\"]` into `type: T, nullable: true`", () => {
    assert.deepStrictEqual(google({ type: ["string", "null"] }).schema, { type: "string", nullable: true })
    assert.deepStrictEqual(google({ type: ["null", "integer"] }).schema, { type: "integer", nullable: true })
    assert.deepStrictEqual(google({ type: ["boolean"] }).schema, { type: "boolean" })
    assert.deepStrictEqual(google({ type: ["null"] }).schema, { type: "null" })
  })

  it("turns a type list with two non-null types into `anyOf` of the types", () => {
    assert.deepStrictEqual(google({ type: ["string", "object", "null"] }).schema, {
      anyOf: [{ type: "string" }, { type: "object", properties: {} }],
      nullable: true
    })
    assert.deepStrictEqual(google({ type: ["string", "number"], anyOf: [{ minimum: 1 }] }).schema, { type: "string", anyOf: [{ description: "{minimum: 1}" }] })
  })

  it("removes a `type` or `nullable` that is not a name or a boolean", () => {
    assert.deepStrictEqual(google({ type: 5, nullable: "yes", description: "d" }).schema, { description: "d" })
  })

  it("turns `const` into `enum`, merged with an `enum` beside it", () => {
    assert.deepStrictEqual(google({ type: "string", const: "a" }).schema, { type: "string", enum: ["a"] })
    assert.deepStrictEqual(google({ type: "string", const: "a", enum: ["a", "b"] }).schema, { type: "string", enum: ["a"] })
    assert.deepStrictEqual(google({ type: "string", const: "c", enum: ["a", "b"] }).schema, { type: "string", enum: ["c"], not: {} })
  })

  it("gives a typeless node with a homogeneous `enum` its type (numbers widen integers; null makes it nullable)", () => {
    assert.deepStrictEqual(google({ enum: ["a", "b"] }).schema, { enum: ["a", "b"], type: "string" })
    assert.deepStrictEqual(google({ enum: [1, 2.5] }).schema, { enum: [1, 2.5], type: "number" })
    assert.deepStrictEqual(google({ enum: [1, null] }).schema, { enum: [1, null], type: "integer", nullable: true })
    assert.deepStrictEqual(google({ const: true }).schema, { enum: [true], type: "boolean" })
    assert.deepStrictEqual(google({ enum: ["a", 1] }).schema, { enum: ["a", 1] })
    assert.deepStrictEqual(google({ enum: ["a"], anyOf: [{ type: "string" }] }).schema, { enum: ["a"], anyOf: [{ type: "string" }] })
  })

  it("gives every object schema a `properties` map", () => {
    assert.deepStrictEqual(google({ type: "object" }).schema, { type: "object", properties: {} })
    assert.deepStrictEqual(google({ type: "object", properties: [1] }).schema, { type: "object", properties: {} })
    assert.deepStrictEqual(google({ type: "array", items: { type: "object" } }).schema, { type: "array", items: { type: "object", properties: {} } })
  })

  it("decides `not`, `allOf` and conditionals: outside the contract's list, so they stay (their insides are normalized)", () => {
    const s = { not: { const: "x" }, allOf: [{ type: "string", maxLength: 3 }], if: { minLength: 1 }, then: { pattern: "a" } }
    assert.deepStrictEqual(google(s).schema, {
      not: { enum: ["x"], type: "string" },
      allOf: [{ type: "string", description: "{maxLength: 3}" }],
      if: { description: "{minLength: 1}" },
      then: { description: "{pattern: \"a\"}" }
    })
  })

  it("replaces a `description` that is not a string when it has something to spill", () => {
    const r = google({ type: "string", description: 7, format: "uuid" })
    assert.deepStrictEqual(r.schema, { type: "string", description: "{format: \"uuid\"}" })
    assert.deepStrictEqual(changed(r, "/description"), ["`description` is not a string; replaced by the spilled keywords"])
  })

  it("reads boolean subschemas as {} and {not: {}}", () => {
    assert.deepStrictEqual(google({ type: "array", items: true, contains: false }).schema, { type: "array", items: {}, contains: { not: {} } })
  })

  it("inlines local refs before stripping them; the site's annotations win", () => {
    const r = google({
      type: "object",
      $defs: { point: { type: "object", description: "A point.", properties: { x: { type: "number", minimum: 0 } }, required: ["x"] } },
      properties: { start: { $ref: "#/$defs/point", description: "Where it starts." }, end: { $ref: "#/$defs/point" } }
    })
    const point = (d: string) => ({ type: "object", description: d, properties: { x: { type: "number", description: "{minimum: 0}" } }, required: ["x"] })
    assert.deepStrictEqual(r.schema, { type: "object", properties: { start: point("Where it starts."), end: point("A point.") } })
    assert.deepStrictEqual(changed(r, "/$defs/point/properties/x/minimum").length, 1, "a change inlined twice is reported once")
    assert.deepStrictEqual(changed(r, "/properties/start/$ref"), ["`$ref` #/$defs/point inlined"])
  })

  it("makes a recursive ref a described node of the target's type", () => {
    const r = google({
      $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node"
    })
    assert.deepStrictEqual(r.schema, {
      type: "object",
      properties: {
        kids: { type: "array", items: { type: "object", description: "(recursive: the same shape as #/$defs/node, not expanded here)", properties: {} } }
      }
    })
    assert.deepStrictEqual(googleViolations(google({ type: "object", properties: { self: { $ref: "#" } } }).schema), [])
  })

  it("drops a ref it cannot resolve, and reports it", () => {
    const r = google({ type: "object", properties: { a: { $ref: "#/$defs/nope", description: "d" }, b: { $ref: "https://x.test/s" } } })
    assert.deepStrictEqual(r.schema, { type: "object", properties: { a: { description: "d" }, b: {} } })
    assert.deepStrictEqual(changed(r, "/properties/a/$ref"), ["`$ref` #/$defs/nope cannot be inlined (missing); removed (no constraint)"])
  })

  it("keeps a ref's constraining siblings beside the target as an `allOf` branch", () => {
    const r = google({ $defs: { s: { type: "string", enum: ["a", "b"] } }, properties: { a: { $ref: "#/$defs/s", enum: ["a"] } } })
    assert.deepStrictEqual(r.schema, { properties: { a: { enum: ["a"], allOf: [{ type: "string", enum: ["a", "b"] }] } } })
  })

  it("stops inlining a ref graph that would explode, and stays within the rules", () => {
    const defs: Record<string, unknown> = { d0: { type: "string" } }
    for (let i = 1; i <= 30; i++) defs[`d${i}`] = { type: "object", properties: { l: { $ref: `#/$defs/d${i - 1}` }, r: { $ref: `#/$defs/d${i - 1}` } } }
    const r = google({ $defs: defs, $ref: "#/$defs/d30" })
    assert.deepStrictEqual(googleViolations(r.schema), [])
    assert.isTrue(r.changes.some((c) => c.change.includes("(too many nodes)")))
  })

  it("is total on hostile input", () => {
    const fallback = { type: "object", properties: {} }
    for (const bad of [42, null, "string", [], undefined, () => 1]) {
      const r = Normalize.google(bad as never)
      assert.deepStrictEqual(r.schema, fallback)
      assert.strictEqual(r.changes.length, 1)
    }
    const tooDeep = google(deep(10_000))
    assert.deepStrictEqual(tooDeep.schema, fallback)
    assert.match(tooDeep.changes[0]!.change, /nested deeper than 512 levels/)
    assert.deepStrictEqual(googleViolations(google(deep(400)).schema), [])
    const getter = Object.defineProperty({ type: "object" }, "properties", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.deepStrictEqual(Normalize.google(getter as never).schema, fallback)
    const cyclic: Record<string, unknown> = { type: "object", properties: {} }
    ;(cyclic["properties"] as Record<string, unknown>)["self"] = cyclic
    const cut = Normalize.google(cyclic as never)
    assert.deepStrictEqual(cut.schema, { type: "object", properties: { self: {} } })
    assert.deepStrictEqual(changed(cut, "/properties/self"), ["a cycle back to an enclosing schema; read as `true` (no constraint)"])
    const huge = google({ enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) }).schema as { enum: Array<string>; type: string }
    assert.strictEqual(huge.enum.length, 100_000)
    assert.strictEqual(huge.type, "string")
  })

  it("keeps `__proto__` and `constructor` property names as own keys, polluting nothing", () => {
    const s = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":\"object\",\"properties\":{\"polluted\":{\"const\":1}}},\"constructor\":{\"type\":\"string\",\"pattern\":\"x\"}}}")
    const out = google(s).schema as { properties: Record<string, unknown> }
    assert.deepStrictEqual(Object.keys(out.properties), ["__proto__", "constructor"])
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out.properties, "__proto__")?.value, { type: "object", properties: { polluted: { enum: [1], type: "integer" } } })
    assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
    assert.strictEqual(Object.getPrototypeOf(out.properties), Object.prototype)
  })

  it.prop("keeps Google's rules, is deterministic and leaves its input alone", [tool], ([s]) => {
    const before = JSON.stringify(s)
    const a = Normalize.google(s)
    assert.deepStrictEqual(googleViolations(a.schema), [])
    assert.deepStrictEqual(Normalize.google(s), a)
    assert.strictEqual(JSON.stringify(s), before)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("never throws, whatever it is given", [fc.anything()], ([u]) => {
    assert.deepStrictEqual(googleViolations(Normalize.google(u as never).schema), [])
  })

  describe("a oneOf whose branches lost their keywords", () => {
    const valid = (schema: unknown, v: unknown): boolean => {
      const c = Validator.compile(schema as never)
      return Either.isRight(c) && c.right.validate(v as never).length === 0
    }

    it("becomes anyOf, reported as lossy, so a value the original accepts is still accepted", () => {
      const s = { type: "object", properties: { id: { oneOf: [{ type: "string", format: "uuid" }, { type: "string", maxLength: 3 }] } } }
      const r = google(s)
      const id = (r.schema as any).properties.id
      assert.notProperty(id, "oneOf")
      assert.lengthOf(id.anyOf, 2)
      assert.match(changed(r, "/properties/id/oneOf")[0] ?? "", /^`oneOf` became `anyOf`: .*\(lossy\)$/)
      // "abc" is in the second branch only; with the format and the bound gone it is in both
      for (const v of [{ id: "abc" }, { id: "0b5f7a3e-8d4c-4c1e-9f0a-2b3c4d5e6f70" }]) {
        assert.isTrue(valid(s, v) && valid(r.schema, v), JSON.stringify(v))
      }
    })

    it("stays oneOf when nothing inside its branches was stripped, and goes anyOf for a strip deep inside", () => {
      const plain = google({ oneOf: [{ type: "string" }, { type: "integer", description: "n" }] })
      assert.property(plain.schema, "oneOf")
      const deepStrip = google({ oneOf: [{ type: "object", properties: { a: { type: "string", pattern: "^x" } } }, { type: "object", properties: { a: { type: "string" } } }] })
      assert.notProperty(deepStrip.schema, "oneOf")
      assert.property(deepStrip.schema, "anyOf")
    })

    it("a not whose subschema lost keywords is dropped, reported as lossy", () => {
      const s = { type: "object", properties: { n: { type: "string", not: { type: "string", minLength: 2 } } } }
      const r = google(s)
      assert.notProperty((r.schema as any).properties.n, "not")
      assert.match(changed(r, "/properties/n/not")[0] ?? "", /\(lossy\)$/)
      assert.isTrue(valid(s, { n: "a" }) && valid(r.schema, { n: "a" }))
    })
  })
})

import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { JsonSchemaObject } from "../src/JsonSchema.js"
import * as Normalize from "../src/Normalize.js"
import { deep, freeze, tool } from "./internal/normalizeArbitrary.js"
import { ccaViolations } from "./internal/providerRules.cca.js"
import { tools } from "./suite.js"

const cca = (s: unknown) => Normalize.cca(freeze(s) as never)
const fallback = { type: "object", properties: {} }
const obj = (properties: Record<string, unknown>, required?: Array<string>): JsonSchemaObject =>
  ({ type: "object", properties, ...(required ? { required } : {}) }) as JsonSchemaObject

describe("Normalize.cca", () => {
  it("runs the Google pass first (stripping and spilling)", () => {
    const r = cca(obj({ a: { type: "string", pattern: "^x", format: "uri" } }))
    assert.deepStrictEqual(r.schema, obj({ a: { type: "string", description: "{pattern: \"^x\", format: \"uri\"}" } }))
  })

  it("strips `nullable`: `type: [T, \"null\"]` becomes `type: T` with no marker, and the property leaves `required`", () => {
    const r = cca(obj({ a: { type: ["string", "null"] }, b: { type: "integer", nullable: true }, c: { type: "string" } }, ["a", "b", "c"]))
    assert.deepStrictEqual(r.schema, obj({ a: { type: "string" }, b: { type: "integer" }, c: { type: "string" } }, ["c"]))
    assert.isTrue(r.changes.some((c) => c.path === "/required" && c.change === "`a` accepts null: it leaves `required`"))
  })

  it("takes a union with a null branch to its other branch, and the property out of `required`", () => {
    const r = cca(obj({ a: { anyOf: [{ type: "string", description: "s" }, { type: "null" }], description: "outer" } }, ["a"]))
    assert.deepStrictEqual(r.schema, obj({ a: { type: "string", description: "outer" } }))
  })

  it("drops `null` from an `enum` (the property leaves `required`) and `required` when it empties", () => {
    assert.deepStrictEqual(cca(obj({ a: { enum: ["x", null] } }, ["a"])).schema, obj({ a: { enum: ["x"], type: "string" } }))
    assert.deepStrictEqual(cca(obj({ a: { type: "null" } }, ["a"])).schema, obj({ a: {} }))
  })

  it("merges object-only variants into one object shape (properties united, `required` where all agree)", () => {
    const r = cca(obj({
      f: {
        oneOf: [
          obj({ kind: { const: "circle" }, r: { type: "number" } }, ["kind", "r"]),
          obj({ kind: { const: "square" }, side: { type: "number" } }, ["kind", "side"])
        ]
      }
    }))
    assert.deepStrictEqual(r.schema, obj({ f: obj({ kind: { type: "string", enum: ["circle", "square"] }, r: { type: "number" }, side: { type: "number" } }, ["kind"]) }))
    assert.isTrue(r.changes.some((c) => c.path === "/properties/f/oneOf" && c.change === "`oneOf`: 2 object variants merged into one object shape; a property or keyword only some variants give now applies to every value (lossy)"))
    const lossy = cca({ anyOf: [obj({ a: { type: "string" } }), obj({ a: { type: "integer" } })] })
    assert.deepStrictEqual(lossy.schema, obj({ a: { type: "string" } }))
    assert.isTrue(lossy.changes.some((c) => c.change === "property `a`, given differently by the variants: mixes string, integer: only the variant of type string is kept (lossy)"))
  })

  it("collapses same-type variants into one schema, uniting their enums", () => {
    assert.deepStrictEqual(cca({ anyOf: [{ const: "a" }, { const: "b" }, { enum: ["b", "c"] }] }).schema, { type: "string", enum: ["a", "b", "c"] })
    assert.deepStrictEqual(cca({ anyOf: [{ type: "integer" }, { type: "number", description: "n" }] }).schema, { type: "number" })
    assert.deepStrictEqual(cca({ anyOf: [{ type: "string", enum: ["a"] }, { type: "string" }] }).schema, { type: "string" })
  })

  it("joins a collapsed union to its siblings: properties and `required` united", () => {
    const r = cca({ ...obj({ a: { type: "string" } }, ["a"]), anyOf: [obj({ b: { type: "string" } }, ["b"]), obj({ b: { type: "string" }, c: { type: "integer" } }, ["b"])] })
    assert.deepStrictEqual(r.schema, obj({ a: { type: "string" }, b: { type: "string" }, c: { type: "integer" } }, ["a", "b"]))
  })

  it("lossy-collapses mixed types to the first non-null scalar, and says so", () => {
    const r = cca({ anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }, { type: "integer" }, { type: "string" }] })
    assert.deepStrictEqual(r.schema, { type: "integer" })
    assert.isTrue(r.changes.some((c) => c.path === "/anyOf" && c.change === "`anyOf`: mixes array, integer, string: only the variant of type integer is kept (lossy)"))
    assert.deepStrictEqual(cca({ type: ["object", "string", "null"] }).schema, { type: "string" })
    assert.deepStrictEqual(cca({ anyOf: [{ type: "array" }, { type: "object" }] }).schema, { type: "array" })
  })

  it("merges `allOf` branches and strips combiners all the way down", () => {
    const r = cca({ allOf: [obj({ a: { type: "string" } }, ["a"]), { properties: { b: { oneOf: [{ type: "string" }, { type: "string", minLength: 1 }] } }, required: ["b"] }] })
    assert.deepStrictEqual(r.schema, obj({ a: { type: "string" }, b: { type: "string" } }, ["a", "b"]))
    assert.deepStrictEqual(ccaViolations(r.schema), [])
  })

  it("decides `not`: removed, kept in `description`", () => {
    assert.deepStrictEqual(cca({ type: "string", not: { enum: ["x"] } }).schema, { type: "string", description: "{not: {\"enum\":[\"x\"],\"type\":\"string\"}}" })
  })

  it("falls back per tool, with the reason, when the result is not valid 2020-12", () => {
    const r = cca(obj({ a: { type: "string" } }, "a" as never))
    assert.deepStrictEqual(r.schema, fallback)
    assert.match(r.changes.at(-1)!.change, /^Claude via CCA cannot take this schema \(invalid 2020-12 at \/required: must be array\)/)
  })

  it("falls back when the residual gate finds a combiner the walk does not reach", () => {
    const r = cca({ type: "object", properties: {}, dependencies: { a: { anyOf: [{ required: ["b"] }, { required: ["c"] }] } } })
    assert.deepStrictEqual(r.schema, fallback)
    assert.match(r.changes.at(-1)!.change, /left after normalization: `anyOf` at \/dependencies\/a/)
  })

  it("one bad tool never spoils another", () => {
    const tools = [obj({ a: { type: "string" } }, "a" as never), obj({ b: { type: ["integer", "null"] } }, ["b"])]
    assert.deepStrictEqual(tools.map((t) => cca(t).schema), [fallback, obj({ b: { type: "integer" } })])
  })

  it("is total on hostile input", () => {
    for (const bad of [42, null, "string", [], undefined]) assert.deepStrictEqual(Normalize.cca(bad as never).schema, fallback)
    assert.deepStrictEqual(cca(deep(10_000)).schema, fallback)
    assert.deepStrictEqual(ccaViolations(cca(deep(400)).schema), [])
    const s = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":[\"string\",\"null\"]},\"anyOf\":{\"type\":\"string\"}},\"required\":[\"__proto__\",\"anyOf\"]}")
    const out = cca(s).schema as { properties: object; required: Array<string> }
    assert.deepStrictEqual(Object.keys(out.properties), ["__proto__", "anyOf"])
    assert.deepStrictEqual(out.required, ["anyOf"])
    assert.strictEqual(Object.getPrototypeOf(out.properties), Object.prototype)
  })

  it.prop("keeps CCA's rules, is deterministic and leaves its input alone", [tool], ([s]) => {
    const before = JSON.stringify(s)
    const a = Normalize.cca(s)
    assert.deepStrictEqual(ccaViolations(a.schema), [])
    assert.deepStrictEqual(Normalize.cca(s), a)
    assert.strictEqual(JSON.stringify(s), before)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("never throws, whatever it is given", [fc.anything()], ([u]) => {
    assert.deepStrictEqual(ccaViolations(Normalize.cca(u as never).schema), [])
  })

  it("marks merging object variants lossy when the merged shape narrows a variant (MongoDB's aggregate, create-index, explain, export)", () => {
    const mongo = tools().filter((t) => t.source === "mcp:npm/mongodb-mcp-server" && ["aggregate", "create-index", "explain", "export"].includes(t.name))
    assert.lengthOf(mongo, 4)
    for (const t of mongo) {
      const merges = Normalize.cca(t.parameters as never).changes.filter((c) => /object variants merged/.test(c.change))
      assert.isAbove(merges.length, 0, t.name)
      for (const c of merges) assert.match(c.change, /\(lossy\)$/, `${t.name} ${c.path}`)
    }
    // variants that agree on every property they give merge without narrowing: only wider, not lossy
    const wider = cca({ anyOf: [obj({ a: { type: "string" }, b: { type: "integer" } }, ["a"]), obj({ a: { type: "string" }, b: { type: "integer" } }, ["b"])] })
    assert.isTrue(wider.changes.some((c) => c.change === "`anyOf`: 2 object variants merged into one object shape"))
  })
})

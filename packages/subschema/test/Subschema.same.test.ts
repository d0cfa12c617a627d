/**
 * Equality modulo annotations: a schema proves against itself with annotations changed, whatever its
 * `oneOf` branches share (Notion's `API-post-page`), and against the MCP pass's output; a difference in
 * anything that validates is never proven away.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Normalize from "@toolgate/json-schema/Normalize"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import { tools } from "@toolgate/test-support/corpus"

type Obj = { [k: string]: JsonValue }
const clone = <A>(x: A): A => JSON.parse(JSON.stringify(x))
const postPage = (): Obj => clone(tools().find((t) => t.name === "API-post-page")!.parameters) as Obj

const valid = (s: JsonSchema.JsonSchema, v: JsonValue): boolean => {
  const c = Validator.compile(s)
  return Either.isRight(c) && c.right.validate(v).length === 0
}

describe("Subschema equality modulo annotations", () => {
  it("Notion's API-post-page proves against itself with a description changed, both ways", () => {
    const s = postPage(), d = postPage()
    d["description"] = "changed"
    assert.strictEqual(Subschema.check(s, d)._tag, "Subtype")
    assert.strictEqual(Subschema.check(d, s)._tag, "Subtype")
  })

  it("Notion's API-post-page proves against Normalize.mcp's output of it, both ways", () => {
    const s = postPage(), m = Normalize.mcp(s).schema
    assert.strictEqual(Subschema.check(m, s)._tag, "Subtype")
    assert.strictEqual(Subschema.check(s, m)._tag, "Subtype")
  })

  it("the overlapping oneOf proves where something else changed (a field made required in the cloud)", () => {
    const cloud = postPage(), local = postPage()
    cloud["required"] = [...(cloud["required"] as Array<string>), "icon"]
    local["description"] = "changed"
    assert.strictEqual(Subschema.check(cloud, local)._tag, "Subtype")
    assert.strictEqual(Subschema.check(cloud, Normalize.mcp(local).schema)._tag, "Subtype")
    // and the other way the dropped requirement is drift, found past the equal subtrees
    const back = Subschema.check(local, cloud)
    assert.strictEqual(back._tag, "Drift")
    if (back._tag === "Drift") assert.isTrue(valid(local, back.witness) && !valid(cloud, back.witness))
  })

  const overlapping = (extra: Obj = {}): Obj => ({
    oneOf: [
      { type: "object", properties: { a: { type: "string", ...extra } } },
      { type: "object", required: ["b"] }
    ],
    title: "x"
  })

  it("a change in a validating keyword inside the overlapping oneOf is not proven", () => {
    const v = Subschema.check(overlapping(), overlapping({ maxLength: 3 }))
    assert.notStrictEqual(v._tag, "Subtype")
    const w = Subschema.check({ ...overlapping(), description: "d" }, overlapping({ description: "e", examples: ["x"] }))
    assert.strictEqual(w._tag, "Subtype")
  })

  it("a property named like an annotation is a property, not an annotation", () => {
    const cloud = { oneOf: [{ type: "object", properties: { description: { type: "number" } } }, { type: "object" }] }
    const local = { oneOf: [{ type: "object", properties: { description: { type: "string" } } }, { type: "object" }] }
    assert.notStrictEqual(Subschema.check(cloud, local)._tag, "Subtype")
  })

  it("references are followed against each root: the same $ref text with different $defs is not equal", () => {
    const at = (t: string): Obj => ({ $defs: { x: { type: t } }, oneOf: [{ $ref: "#/$defs/x" }, { type: "string", minLength: 1 }] })
    assert.notStrictEqual(Subschema.check(at("string"), at("integer"))._tag, "Subtype")
    // an inlined target equals its reference, and unused $defs do not count
    const inlined: Obj = { $defs: { unused: { type: "null" } }, oneOf: [{ type: "string" }, { type: "string", minLength: 1 }] }
    assert.strictEqual(Subschema.check(inlined, at("string"))._tag, "Subtype")
    assert.strictEqual(Subschema.check(at("string"), inlined)._tag, "Subtype")
  })

  it("a recursive schema equals itself behind a property; an unguarded cycle is never equal", () => {
    const tree = (d: string): Obj => ({
      description: d,
      $defs: { node: { oneOf: [{ type: "object", properties: { next: { $ref: "#/$defs/node" } } }, { type: "object", required: ["v"] }] } },
      $ref: "#/$defs/node"
    })
    assert.strictEqual(Subschema.check(tree("a"), tree("b"))._tag, "Subtype")
    const loop = (d: string): Obj => ({ description: d, $defs: { a: { oneOf: [{ $ref: "#/$defs/a" }, { type: "string" }] } }, $ref: "#/$defs/a" })
    assert.notStrictEqual(Subschema.check(loop("a"), loop("b"))._tag, "Subtype")
  })

  it("const and a one-value enum are the same constraint; a wider enum is not", () => {
    const with_ = (p: Obj): Obj => ({ oneOf: [{ type: "object", properties: { k: p } }, { type: "object", required: ["z"] }] })
    assert.strictEqual(Subschema.check(with_({ const: 1 }), with_({ enum: [1] }))._tag, "Subtype")
    assert.notStrictEqual(Subschema.check(with_({ enum: [1, 2] }), with_({ const: 1 }))._tag, "Subtype")
  })
})

/**
 * Pairs the fuzz suite found, each pinned: the value that splits the two
 * schemas under toolgate's own validator must never sit under a `Subtype` verdict.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import { corpus } from "@toolgate/test-support/corpus"

type Row = readonly [cloud: unknown, local: unknown, value: JsonValue | undefined, verdict: "Drift" | "Subtype" | "not Subtype"]

const valid = (s: JsonSchema.JsonSchema, v: JsonValue): boolean => {
  const c = Validator.compile(s)
  return Either.isRight(c) && c.right.validate(v).length === 0
}

/** The row's verdict, and (for a value) that both validators split on it unless the verdict is `Subtype`. */
const pinned = ([cloud, local, value, verdict]: Row): void => {
  const c = cloud as JsonSchema.JsonSchema, l = local as JsonSchema.JsonSchema
  const v = Subschema.check(c, l)
  const say = JSON.stringify({ cloud, local, v })
  if (verdict === "not Subtype") assert.notStrictEqual(v._tag, "Subtype", say)
  else assert.strictEqual(v._tag, verdict, say)
  if (v._tag === "Drift") assert.isTrue(valid(c, v.witness) && !valid(l, v.witness), say)
  if (value !== undefined) {
    const splits = valid(c, value) && !valid(l, value)
    assert.strictEqual(splits, verdict !== "Subtype", `${say} on ${JSON.stringify(value)}`)
  }
}

const d7 = "http://json-schema.org/draft-07/schema#"

describe("Subschema regressions", () => {
  it("contains beside a tuple is no proof: Ajv skips it on arrays shorter than the tuple inside not and if (fuzz seed 40404)", () => {
    const rows: ReadonlyArray<Row> = [
      [{ not: { contains: true } }, { not: { contains: true, prefixItems: [false] } }, [], "not Subtype"],
      [{ type: "array", maxItems: 0 }, { if: { prefixItems: [{ type: "number" }], contains: true }, then: false }, [], "not Subtype"],
      [{ $schema: d7, not: { contains: true } }, { $schema: d7, not: { contains: true, items: [{ type: "number" }] } }, [], "not Subtype"],
      // through a definition a `$ref` under `not` reaches: Ajv inlines it into the first-error code
      [{ not: { contains: true } }, { not: { $ref: "#/$defs/t" }, $defs: { t: { contains: true, prefixItems: [false] } } }, [], "not Subtype"],
      // on the cloud side too: the fuzz judge, like any Ajv, reads the cloud the same way
      [{ not: { contains: true, prefixItems: [false] } }, { type: "array" }, undefined, "not Subtype"]
    ]
    rows.forEach(pinned)
  })
  it("a dependency requiring a name Object.prototype has is checked on own properties whatever else the schema names (fuzz seed 131313)", () => {
    // the cloud's validator found `valueOf` on the prototype and accepted {b: ""}; the local one, compiled for
    // own properties because its `required` names `constructor`, rejected it: no proof may rest on that split
    const then = { dependencies: { b: ["valueOf"] } }
    const rows: ReadonlyArray<Row> = [
      [{ if: true, then }, { if: { not: { anyOf: [{ type: "null" }], not: { required: ["constructor"] } } }, then }, { b: "" }, "Subtype"],
      [{ $schema: d7, type: "object" }, { $schema: d7, dependencies: { b: ["valueOf"] } }, { b: "" }, "Drift"],
      [{ type: "object" }, { dependentRequired: { b: ["toString"] } }, { b: "" }, "Drift"]
    ]
    rows.forEach(pinned)
  })
  it("a member named __proto__ is checked by the validator, so the prover's drift over it is real", () => {
    const j = (text: string): JsonSchema.JsonSchema => JSON.parse(text)
    const rows: ReadonlyArray<Row> = [
      [j('{"type":"object","properties":{"__proto__":{"type":"string"}}}'), j('{"type":"object","properties":{"__proto__":{"type":"integer"}}}'), JSON.parse('{"__proto__":"x"}'), "Drift"],
      [j('{"type":"object"}'), j('{"type":"object","properties":{"__proto__":{"type":"number"}}}'), JSON.parse('{"__proto__":{}}'), "Drift"],
      [j(`{"$schema":"${d7}","type":"object"}`), j(`{"$schema":"${d7}","dependencies":{"__proto__":["a"]}}`), JSON.parse('{"__proto__":0}'), "Drift"],
      [j('{"type":"object","properties":{"__proto__":{"type":"integer"}}}'), j('{"type":"object","properties":{"__proto__":{"type":"number"}}}'), JSON.parse('{"__proto__":1}'), "Subtype"]
    ]
    rows.forEach(pinned)
  })
  it("nullable is read wherever the validator honours it (not, oneOf disjointness, if)", () => {
    const rows: ReadonlyArray<Row> = [
      [{ type: ["null", "integer"] }, { not: { type: "object", nullable: true } }, null, "Drift"],
      [{ type: ["null", "string"] }, { oneOf: [{ type: "string", nullable: true }, { type: "null" }] }, null, "not Subtype"],
      [{ type: ["null", "integer"] }, { if: { type: "string", nullable: true }, then: false }, null, "not Subtype"],
      [{ type: "null" }, { type: "string", nullable: true }, null, "Subtype"],
      [{ type: ["string", "null"] }, { oneOf: [{ type: "string", nullable: true }, { type: "integer" }] }, undefined, "Subtype"],
      [{ type: "null" }, { type: "string", nullable: true, enum: ["a"] }, null, "Drift"],
      // Ajv refuses `nullable` without `type`: the executor would reject every call
      [{ type: "string" }, { nullable: true }, undefined, "not Subtype"]
    ]
    rows.forEach(pinned)
  })
  it("a local schema the validator cannot build is no proof, even under an empty cloud (fuzz seed 2)", () => {
    pinned([{ $ref: "#/$defs/d1", $defs: { d1: { type: "null", anyOf: [{ enum: [""] }] } } }, { oneOf: [{ allOf: [{ $ref: "#/$defs/d1" }] }] }, undefined, "not Subtype"])
    // Ajv refuses an empty enum that 2020-12's meta-schema allows (fuzz seed 11)
    pinned([{}, { if: { enum: [] }, else: { format: "" } }, undefined, "not Subtype"])
    pinned([{ type: "string" }, { anyOf: [{ type: "string" }, { enum: [] }] }, undefined, "not Subtype"])
    // Ajv refuses a `nullable` that is not a boolean, which the meta-schema does not see (found reviewing session 11)
    pinned([{ type: "string" }, { type: "string", nullable: "yes" }, undefined, "not Subtype"])
    pinned([{ type: "string" }, { properties: { a: { type: "string", nullable: 1 } } }, undefined, "not Subtype"])
    // an unguarded $ref loop: Ajv overflows its stack on every value (fuzz seed 7)
    pinned([{ type: "object" }, { anyOf: [{ if: { $ref: "" }, else: { minimum: 0 } }] }, {}, "not Subtype"])
    pinned([{ type: "object" }, { $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { not: { $ref: "#/$defs/a" } } }, anyOf: [true, { $ref: "#/$defs/a" }] }, undefined, "not Subtype"])
  })
  it("keywords are read by the dialect of the schema they stand in", () => {
    const rows: ReadonlyArray<Row> = [
      [{ $schema: d7, dependentRequired: { c: ["b"] } }, { dependentRequired: { c: ["b"] } }, { c: 1 }, "Drift"],
      [{ $schema: d7, dependentSchemas: { a: { required: ["b"] } } }, { dependentSchemas: { a: { required: ["b"] } } }, { a: 1 }, "Drift"],
      [{ $schema: d7, type: "array", prefixItems: [{ type: "string" }] }, { type: "array", prefixItems: [{ type: "string" }] }, [1], "Drift"],
      [{ type: "object", dependentRequired: { c: ["b"] } }, { $schema: d7, dependentRequired: { c: ["b"] } }, undefined, "Subtype"],
      [{ type: "integer" }, { $schema: d7, not: { dependentRequired: { c: ["b"] } } }, 1, "not Subtype"],
      [{ not: { dependentRequired: { c: ["b"] } } }, { $schema: d7, not: { dependentRequired: { c: ["b"] } } }, { c: 1 }, "not Subtype"],
      [{ $schema: d7, dependencies: { c: ["b"] } }, { dependentRequired: { c: ["b"] } }, undefined, "Subtype"]
    ]
    rows.forEach(pinned)
  })
  it("a cloud and a local subschema are never equal by text across roots when they hold a $ref", () => {
    const rows: ReadonlyArray<Row> = [
      [{ $defs: { a: { type: "string" } }, not: { $ref: "#/$defs/a" } }, { $defs: { a: { type: "integer" } }, not: { $ref: "#/$defs/a" } }, 1, "not Subtype"],
      [
        { $defs: { a: true }, type: "object", dependentSchemas: { k: { $ref: "#/$defs/a" } } },
        { $defs: { a: { required: ["z"] } }, dependentSchemas: { k: { $ref: "#/$defs/a" } } },
        { k: 1 },
        "not Subtype"
      ]
    ]
    rows.forEach(pinned)
  })
  it("a local schema whose optimized Ajv code fails when run: the executor runs its unoptimized code, the prover's, so the proof holds (fuzz seed 9191)", () => {
    // the executor's optimized code threw on every string; the executor now stands in the code the prover reads
    const faulty = { if: { not: true, anyOf: [{ additionalProperties: false }] }, then: { minimum: 0 } }
    for (const local of [faulty, { type: "string", ...faulty }] as ReadonlyArray<JsonSchema.JsonSchema>) {
      for (const value of ["", "x"]) pinned([{ type: "string" }, local, value, "Subtype"])
      const c = Validator.compile(local)
      assert.isTrue(Either.isRight(c) && c.right.isValid("") && c.right.validate("x").length === 0)
    }
  })
  it("patternProperties beside an if, anyOf or oneOf: Ajv's code throws once a matching key is present, so it proves nothing (fuzz seeds 50505, 9)", () => {
    const rows: ReadonlyArray<Row> = [
      [{}, { patternProperties: { x: true }, if: { type: "string" }, then: { $ref: "#/$defs/node" }, $defs: { node: { properties: { next: true } } } }, { x: "" }, "not Subtype"],
      [{ type: "object" }, { patternProperties: { x: true }, if: true, then: { if: { type: "integer" }, then: { if: { additionalProperties: false }, else: { exclusiveMaximum: 0 } } } }, { x: 0 }, "not Subtype"],
      // the probes hold no value that passes `const: "a"`, so this code compiles; the prover fails closed on the construct
      [{ type: "object", patternProperties: { x: { const: "a" } } }, { patternProperties: { x: { const: "a" } }, if: { type: "string" }, then: { $ref: "" } }, { x: "a" }, "not Subtype"],
      // beside an anyOf whose one branch is `{}` and the other closes the object, the code compiles and throws on the value (fuzz seed 9)
      [
        { patternProperties: { "^n_": { exclusiveMaximum: 0, oneOf: [{ type: ["integer"] }] } } },
        { patternProperties: { "^n_": { exclusiveMaximum: 0, oneOf: [{ type: ["integer"] }] } }, anyOf: [{}, { allOf: [{ additionalProperties: false }] }] },
        { n_2: -3 },
        "not Subtype"
      ]
    ]
    rows.forEach(pinned)
    const c = Validator.compile(rows[0]![1] as JsonSchema.JsonSchema)
    assert.isTrue(Either.isLeft(c) && /fails when run.*setting 'x'/.test(c.left.message))
  })
  it("own toString / valueOf keys: the validator's equality never throws, so these are proofs", () => {
    const rows: ReadonlyArray<Row> = [
      [{ type: "object" }, { oneOf: [{ type: "object" }, { type: "array", const: {} }] }, { toString: true }, "Subtype"],
      [{}, { anyOf: [{ properties: { n_1: { contains: { uniqueItems: true } } } }, true] }, { n_1: [[{}, { toString: {} }]] }, "Subtype"],
      [{ type: "object" }, { anyOf: [{ type: "object" }, { enum: [{ a: 1 }] }] }, { valueOf: 1 }, "Subtype"]
    ]
    rows.forEach(pinned)
  })

  it("a $ref-heavy real tool decides within the default budget (push_flex_message: 79 $refs, a recursive anyOf)", { timeout: 120_000 }, () => {
    const line = fs.readFileSync(path.join(corpus, "tools.jsonl"), "utf8").split("\n").find((l) => l.includes("\"name\": \"push_flex_message\""))!
    const local = JsonSchema.upgrade((JSON.parse(line) as { parameters: unknown }).parameters).schema as JsonSchema.JsonSchemaObject
    const described = { ...structuredClone(local), description: "the same tool, described" }
    const props = local["properties"] as Record<string, JsonSchema.JsonSchema>
    const narrowed = { ...structuredClone(local), required: Object.keys(props), additionalProperties: false }
    const closed = { ...structuredClone(local), additionalProperties: false }
    const wider = { ...structuredClone(closed), properties: { ...structuredClone(props), toolgate_extra: { type: "string" } } }
    assert.strictEqual(Subschema.check(described, local)._tag, "Subtype")
    assert.strictEqual(Subschema.check(narrowed, local)._tag, "Subtype")
    const v = Subschema.check(wider, closed)
    assert.strictEqual(v._tag, "Drift", JSON.stringify(v))
    if (v._tag === "Drift") assert.isTrue(valid(wider, v.witness) && !valid(closed, v.witness))
  })
})

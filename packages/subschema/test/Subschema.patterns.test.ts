/**
 * `pattern` through the prover: inclusion decided on automata, witnesses drawn from the difference (and
 * verified by both validators), property names drawn from the patterns a key must or must not match, and
 * the patterns the automata cannot model left `Unsupported`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"

const valid = (s: JsonSchema.JsonSchema, v: JsonValue): boolean => {
  const c = Validator.compile(s)
  return Either.isRight(c) && c.right.validate(v).length === 0
}

/** The verdict, with a drift witness checked against both validators. */
const check = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema): Subschema.Verdict => {
  const v = Subschema.check(cloud, local)
  if (v._tag === "Drift") assert.isTrue(valid(cloud, v.witness) && !valid(local, v.witness), JSON.stringify(v))
  return v
}

describe("Subschema: patterns as automata", () => {
  it("proves pattern inclusion, with the cloud's lengths", () => {
    assert.strictEqual(check({ type: "string", pattern: "^[a-z]{3}$" }, { type: "string", pattern: "[a-z]+" })._tag, "Subtype")
    assert.strictEqual(check({ type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }, { type: "string", pattern: "^[0-9-]+$" })._tag, "Subtype")
    assert.strictEqual(check({ type: "string", pattern: "^[a-z]+$", maxLength: 3 }, { type: "string", pattern: "^[a-z]{1,3}$" })._tag, "Subtype")
    assert.strictEqual(check({ type: "string", pattern: "^(?:foo|bar)$" }, { type: "string", enum: ["foo", "bar"] })._tag, "Unsupported")
  })

  it("shows a string the cloud pattern allows and the local one does not", () => {
    const v = check({ type: "string", pattern: "abc" }, { type: "string", pattern: "^abc$" })
    assert.strictEqual(v._tag, "Drift")
    if (v._tag === "Drift") assert.isTrue(typeof v.witness === "string" && v.witness.includes("abc") && v.witness !== "abc")
    assert.strictEqual(check({ type: "string" }, { type: "string", pattern: "^x_[0-9]+$" })._tag, "Drift")
    assert.strictEqual(check({ type: "string", pattern: "^[a-z]+$", minLength: 5 }, { type: "string", pattern: "^[a-z]{1,5}$" })._tag, "Drift")
  })

  it("property names: a key of the violated local pattern, a key outside every local pattern, a name propertyNames rejects", () => {
    const v = check({ type: "object" }, { type: "object", patternProperties: { "^n_\\d+$": { type: "number" } } })
    assert.strictEqual(v._tag, "Drift")
    if (v._tag === "Drift") assert.isTrue(Object.keys(v.witness as object).some((k) => /^n_\d+$/.test(k)))
    const closed = check({ type: "object", patternProperties: { "^a": true }, additionalProperties: false }, { type: "object", patternProperties: { "^ab": true }, additionalProperties: false })
    assert.strictEqual(closed._tag, "Drift")
    if (closed._tag === "Drift") assert.isTrue(Object.keys(closed.witness as object).some((k) => k.startsWith("a") && !k.startsWith("ab")))
    assert.strictEqual(check({ type: "object" }, { type: "object", propertyNames: { pattern: "^[a-z]+$" } })._tag, "Drift")
    assert.strictEqual(check({ type: "object" }, { type: "object", propertyNames: { pattern: "" } })._tag, "Subtype")
    assert.strictEqual(check({ type: "object", propertyNames: { pattern: "^[a-z]{2}$" } }, { type: "object", propertyNames: { pattern: "^[a-z]+$" } })._tag, "Subtype")
  })

  it("patterns the automata cannot model stay unproven", () => {
    assert.notStrictEqual(check({ type: "string", pattern: "^a" }, { type: "string", pattern: "^(?=a)\\w" })._tag, "Subtype")
    assert.notStrictEqual(check({ type: "string", pattern: "^(a)\\1$" }, { type: "string", pattern: "^(a)\\1$|b" })._tag, "Subtype")
  })
})

/** Drift reasons read on their own: an empty key is quoted, a field is named by its path through applicators. */
import { assert, describe, it } from "@effect/vitest"
import * as Subschema from "../src/Subschema.js"

const reasons = (cloud: unknown, local: unknown): ReadonlyArray<string> => {
  const v = Subschema.check(cloud as never, local as never)
  assert.strictEqual(v._tag, "Drift", JSON.stringify(v))
  return v._tag === "Drift" ? v.reasons.map(Subschema.explain) : []
}

describe("Subschema.explain", () => {
  it("quotes an empty property name as `\"\"`, never as an empty pair of backticks", () => {
    const r = reasons({ type: "object" }, { type: "object", additionalProperties: false })
    assert.include(r[0], "(such as `\"\"`)")
    for (const line of [...r, ...reasons({ type: "object", properties: { "": { type: "string" } } }, { type: "object", properties: { "": { type: "string", maxLength: 3 } } })]) {
      assert.notInclude(line, "``", line)
    }
  })

  it("names a nested field by its path, through branches and dependent schemas", () => {
    const nest = (x: unknown) => ({ type: "object", properties: { a: { type: "object", properties: { b: x } } } })
    const r = reasons(nest({ type: "object" }), nest({ type: "object", dependentSchemas: { x: { required: ["y"] } } }))
    assert.strictEqual(r[0], "`a.b`: `y` is required locally but optional in the cloud schema")
    const at = (localPath: string) => Subschema.explain({ cloudPath: "", localPath, message: "m" })
    assert.strictEqual(at("/properties/a/anyOf/1/properties/b/maxLength"), "`a.b`: m")
    assert.strictEqual(at("/properties/a/items/oneOf/0/maxLength"), "`a[]`: m")
    assert.strictEqual(at("/properties/x.y/maxLength"), "`\"x.y\"`: m")
    assert.strictEqual(at("/maxLength"), "m")
    assert.strictEqual(at("/$defs/a/maxLength"), "m")
  })
})

import { assert, describe, it } from "@effect/vitest"
import { JsonSchema } from "@toolgate/json-schema"
import { tools } from "./suite.js"

describe("JsonSchema.unenforced", () => {
  it("names misspelled keywords, the other dialect's keywords and unknown formats, with their pointers", () => {
    const s: JsonSchema.JsonSchema = {
      type: "object",
      properties: { name: { type: "string", maxLenght: 3, format: "phone" }, when: { type: "string", format: "date" } },
      requierd: ["name"]
    }
    assert.deepStrictEqual(JsonSchema.unenforced(s), [
      { path: "/requierd", kind: "keyword", name: "requierd", likely: "required" },
      { path: "/properties/name/maxLenght", kind: "keyword", name: "maxLenght", likely: "maxLength" },
      { path: "/properties/name/format", kind: "format", name: "phone" }
    ])
    const d7 = { $schema: "http://json-schema.org/draft-07/schema#", dependentRequired: { a: ["b"] }, dependencies: { a: ["b"] } }
    assert.deepStrictEqual(JsonSchema.unenforced(d7), [{ path: "/dependentRequired", kind: "keyword", name: "dependentRequired" }])
  })
  it("a keyword a few edits (or a case) from one that changes what validates names it as likely; others do not", () => {
    const s: JsonSchema.JsonSchema = { propertes: {}, MaxItems: 1, patternProperty: {}, enums: [1], ui_hint: "map", label: "x", readonly: true, iff: {} }
    assert.deepStrictEqual(JsonSchema.unenforced(s).map((u) => [u.name, u.likely]), [
      ["propertes", "properties"], ["MaxItems", "maxItems"], ["patternProperty", "patternProperties"], ["enums", "enum"],
      ["ui_hint", undefined], ["label", undefined], ["readonly", undefined], ["iff", undefined]
    ])
  })
  it("annotations, x-* keys, optional, example_value, nullable and numeric formats stay silent", () => {
    const s: JsonSchema.JsonSchema = {
      title: "t", description: "d", examples: [1], "x-vendor": 1, optional: true,
      properties: { n: { type: "integer", format: "int64", example_value: 3, nullable: true, default: 1, deprecated: true } }
    }
    assert.deepStrictEqual(JsonSchema.unenforced(s), [])
    assert.deepStrictEqual(JsonSchema.unenforced(true), [])
  })
  it("on the corpus (after upgrade): no property name is taken for a keyword; two unknown formats", () => {
    const found = tools().flatMap((t) => JsonSchema.unenforced(JsonSchema.upgrade(t.parameters).schema))
    assert.deepStrictEqual(found.filter((f) => f.kind === "keyword"), [])
    assert.strictEqual(found.filter((f) => f.kind === "format").length, 2)
  })
})

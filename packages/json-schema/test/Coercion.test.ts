import { assert, describe, it } from "@effect/vitest"
import { Arguments, Coercion, type JsonSchema, type JsonValue } from "@toolgate/json-schema"

type Schema = JsonSchema.JsonSchema

const obj = (properties: Record<string, Schema>, required: ReadonlyArray<string> = [], extra: object = {}): Schema => ({
  type: "object",
  properties,
  required: [...required],
  ...extra
}) as Schema

/** `prepare` (lenient) that must succeed: the value and the rules that fired, in order. */
const repaired = (schema: Schema, raw: unknown) => {
  const r = Arguments.prepare(schema, raw)
  assert.strictEqual(r._tag, "Valid", JSON.stringify(r))
  const v = r as Arguments.Valid
  return { value: v.value, rules: v.coercions.map((c) => c.rule), coercions: v.coercions }
}

/** `prepare` (lenient) that must fail, with the paths of its issues. */
const rejected = (schema: Schema, raw: unknown) => {
  const r = Arguments.prepare(schema, raw)
  assert.strictEqual(r._tag, "Invalid", JSON.stringify(r))
  return (r as Arguments.Invalid).issues
}

describe("Coercion: scalars", () => {
  const ints = obj({ n: { type: "integer" } }, ["n"])
  it("integer: \"15\" → 15 and \"30.0\" → 30, reported with path and field", () => {
    const a = repaired(ints, { n: "15" })
    assert.deepStrictEqual(a.value, { n: 15 })
    assert.deepStrictEqual(a.coercions, [{ path: "/n", field: "n", rule: "string-to-integer", from: "15", to: 15 }])
    assert.deepStrictEqual(repaired(ints, { n: " 30.0 " }).value, { n: 30 })
  })
  it("integer: \"1.5\", true, \"\", hex, and unsafe integers stay invalid", () => {
    for (const n of ["1.5", true, "0x10", "1e400", "12345678901234567890", "15abc", "+15"]) {
      assert.strictEqual(rejected(ints, { n })[0]!.path, "/n", String(n))
    }
  })
  it("number: \"3.14\" → 3.14; no hex, no \"\", no Infinity, no 1e400; true is never a number", () => {
    const nums = obj({ x: { type: "number" } }, ["x"])
    assert.deepStrictEqual(repaired(nums, { x: "3.14" }).value, { x: 3.14 })
    assert.deepStrictEqual(repaired(nums, { x: "-2e3" }).rules, ["string-to-number"])
    for (const x of ["0x1F", "", " ", "Infinity", "-Infinity", "NaN", "1e400", true, "1,5"]) {
      assert.strictEqual(rejected(nums, { x })[0]!.path, "/x", JSON.stringify(x))
    }
  })
  it("boolean: true/false/yes/no/1/0, trimmed, any case", () => {
    const bools = obj({ b: { type: "boolean" } }, ["b"])
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["true", true], [" TRUE ", true], ["Yes", true], ["1", true],
      ["false", false], ["No", false], [" 0", false], ["FaLsE", false]
    ]
    for (const [from, to] of cases) {
      const a = repaired(bools, { b: from })
      assert.deepStrictEqual(a.value, { b: to }, from)
      assert.deepStrictEqual(a.rules, ["string-to-boolean"])
    }
  })
  it("boolean: numbers (2, and also 0 and 1) and other words are not booleans", () => {
    const bools = obj({ b: { type: "boolean" } }, ["b"])
    for (const b of [2, 1, 0, "2", "on", "y", "truthy", ""]) rejected(bools, { b })
  })
  it("string stays strict: 42 and true are not strings", () => {
    const strs = obj({ s: { type: "string" } }, ["s"])
    rejected(strs, { s: 42 })
    rejected(strs, { s: true })
  })
  it("a union type that already allows strings keeps them", () => {
    const either = obj({ v: { type: ["string", "integer"] } }, ["v"], { additionalProperties: false })
    assert.deepStrictEqual(repaired(either, { v: "15" }), { value: { v: "15" }, rules: [], coercions: [] })
  })
  it("enum without type: the enum's value types direct the decoding", () => {
    const s = obj({ level: { enum: [1, 2, 3] } }, ["level"])
    assert.deepStrictEqual(repaired(s, { level: "2" }).value, { level: 2 })
  })
})

describe("Coercion: arrays and objects in strings", () => {
  const tags = obj({ tags: { type: "array", items: { type: "string" } } }, ["tags"])
  it("a string that decodes to an array is the array", () => {
    const a = repaired(tags, { tags: "[\"a\", \"b\"]" })
    assert.deepStrictEqual(a.value, { tags: ["a", "b"] })
    assert.deepStrictEqual(a.rules, ["string-to-array"])
  })
  it("a bare string is never wrapped, \"{…}\" is not an array, broken JSON stays a string", () => {
    for (const t of ["a", "a,b", "{\"a\": 1}", "[\"a\"", "[1,]"]) assert.strictEqual(rejected(tags, { tags: t })[0]!.path, "/tags", t)
  })
  it("decoded arrays are coerced inside too, in one pass", () => {
    const ints = obj({ ids: { type: "array", items: { type: "integer" } } }, ["ids"])
    const a = repaired(ints, { ids: "[\"1\", 2]" })
    assert.deepStrictEqual(a.value, { ids: [1, 2] })
    assert.deepStrictEqual(a.coercions.map((c) => [c.path, c.rule]), [["/ids", "string-to-array"], ["/ids/0", "string-to-integer"]])
  })
  it("a string that decodes to an object is the object; an array string is not", () => {
    const s = obj({ opts: obj({ depth: { type: "integer" } }) }, ["opts"])
    assert.deepStrictEqual(repaired(s, { opts: "{\"depth\": \"3\"}" }).value, { opts: { depth: 3 } })
    rejected(s, { opts: "[1]" })
    rejected(s, { opts: "depth=3" })
  })
  it("the whole arguments double-encoded as a JSON string decode once", () => {
    const s = obj({ a: { type: "integer" } }, ["a"])
    assert.deepStrictEqual(repaired(s, JSON.stringify(JSON.stringify({ a: 1 }))).value, { a: 1 })
  })
})

describe("Coercion: empty optional fillers", () => {
  const s = obj({ path: { type: "string" }, note: { type: "string" }, count: { type: "integer" } }, ["path"])
  it("an optional \"\" or whitespace is dropped, even when the value is otherwise valid", () => {
    const a = repaired(s, { path: "/a", note: "  \n", count: "" })
    assert.deepStrictEqual(a.value, { path: "/a" })
    assert.deepStrictEqual(a.coercions.map((c) => [c.path, c.rule, c.to]), [
      ["/note", "drop-empty-optional", undefined],
      ["/count", "drop-empty-optional", undefined]
    ])
    assert.deepStrictEqual(repaired(s, { path: "/a", note: "" }).value, { path: "/a" })
  })
  it("a required \"\" is kept, so the required field's own check speaks", () => {
    assert.deepStrictEqual(repaired(s, { path: "" }).value, { path: "" })
    const strictPath = obj({ path: { type: "string", minLength: 1 } }, ["path"])
    assert.strictEqual(rejected(strictPath, { path: "" })[0]!.path, "/path")
  })
  it("a blank string that is a declared enum value is meant, not a filler", () => {
    const e = obj({ sep: { type: "string", enum: ["", ","] } })
    assert.deepStrictEqual(repaired(e, { sep: "" }), { value: { sep: "" }, rules: [], coercions: [] })
  })
  it("with a string default, whitespace is a value (a separator), only \"\" is a filler", () => {
    const join = obj({ strings: { type: "array" }, separator: { type: "string", default: "" } }, ["strings"])
    assert.deepStrictEqual(repaired(join, { strings: [], separator: " " }).value, { strings: [], separator: " " })
    assert.deepStrictEqual(repaired(join, { strings: [], separator: "" }).rules, ["drop-empty-optional"])
    assert.deepStrictEqual(repaired(join, { strings: "[]", separator: " " }).value, { strings: [], separator: " " })
  })
  it("undeclared keys are not properties, so their blanks stay", () => {
    assert.deepStrictEqual(repaired(s, { path: "/a", other: "" }).value, { path: "/a", other: "" })
  })
})

describe("Coercion: enums", () => {
  const s = obj({ scope: { type: "string", enum: ["pinned", "Recent", "all"] } }, ["scope"])
  it("matches case-insensitively and takes the declared spelling", () => {
    const a = repaired(s, { scope: "Pinned" })
    assert.deepStrictEqual(a.value, { scope: "pinned" })
    assert.deepStrictEqual(a.coercions, [{ path: "/scope", field: "scope", rule: "enum-case", from: "Pinned", to: "pinned" }])
    assert.deepStrictEqual(repaired(s, { scope: "RECENT" }).value, { scope: "Recent" })
  })
  it("an ambiguous case match (two declared spellings) is not taken", () => {
    const two = obj({ mode: { type: "string", enum: ["Auto", "auto", "manual"] } }, ["mode"])
    rejected(two, { mode: "AUTO" })
  })
  it("\"null\" is null for a nullable enum, and only then", () => {
    const nullable = obj({ order: { type: ["string", "null"], enum: ["asc", "desc", null] } }, ["order"])
    const a = repaired(nullable, { order: "null" })
    assert.deepStrictEqual(a.value, { order: null })
    assert.deepStrictEqual(a.rules, ["string-null"])
    rejected(obj({ order: { type: "string", enum: ["asc", "desc"] } }, ["order"]), { order: "null" })
  })
  it("a string enum that declares \"null\" keeps it", () => {
    const e = obj({ v: { enum: ["null", null] } }, ["v"])
    assert.deepStrictEqual(repaired(e, { v: "null" }).rules, [])
  })
})

describe("Coercion: keys", () => {
  const s = obj({ chartType: { type: "string" }, title: { type: "string" } }, ["chartType"], { additionalProperties: false })
  it("unwraps {\"properties\": {…}} when `properties` is not declared and an inner key is", () => {
    const a = repaired(s, { properties: { chartType: "bar", title: "inner" }, title: "outer" })
    assert.deepStrictEqual(a.value, { chartType: "bar", title: "outer" })
    assert.deepStrictEqual(a.rules, ["unwrap-properties"])
  })
  it("does not unwrap when `properties` is a declared property or no inner key is declared", () => {
    const declared = obj({ properties: { type: "object" }, name: { type: "string" } }, ["name"], { additionalProperties: false })
    rejected(declared, { properties: { name: "x" } })
    rejected(s, { properties: { other: 1 } })
  })
  it("renames a key that differs from a declared, absent key by case or snake/camel spelling", () => {
    const a = repaired(s, { chart_type: "bar" })
    assert.deepStrictEqual(a.value, { chartType: "bar" })
    assert.deepStrictEqual(a.coercions, [{ path: "/chart_type", field: "chart_type", rule: "rename-key", from: "chart_type", to: "chartType" }])
    assert.deepStrictEqual(repaired(s, { CHARTTYPE: "bar", Title: "t" }).value, { chartType: "bar", title: "t" })
  })
  it("does not rename when two declared keys would match, or when the declared key is present", () => {
    const two = obj({ userId: { type: "string" }, user_id: { type: "string" } }, [], { additionalProperties: false })
    rejected(two, { UserId: "x" })
    rejected(s, { chartType: "bar", chart_type: "line" })
  })
  it("does not rename two keys onto one declared key", () => {
    rejected(s, { chart_type: "bar", ChartType: "line" })
  })
  it("never rewrites the keys of a nested object its subschema accepts", () => {
    const nested = obj({ user: obj({ userId: { type: "string" } }), n: { type: "integer" } }, ["n"])
    const r = Coercion.coerce(nested, { user: { user_id: "u1", properties: { userId: "x" } }, n: "2" })
    assert.deepStrictEqual(r.value, { user: { user_id: "u1", properties: { userId: "x" } }, n: 2 })
    assert.deepStrictEqual(r.coercions.map((c) => c.rule), ["string-to-integer"])
  })
  it("judges a rename by the whole schema, when properties and required sit in different allOf members", () => {
    const split: Schema = { allOf: [{ type: "object", properties: { chartType: { type: "string" } } }, { required: ["chartType"] }] }
    assert.deepStrictEqual(repaired(split, { chart_type: "bar" }).value, { chartType: "bar" })
  })
  it("keeps key order", () => {
    const a = repaired(s, { title: "t", chart_type: "bar" })
    assert.deepStrictEqual(Object.keys(a.value as object), ["title", "chartType"])
  })
})

describe("Coercion: where it recurses", () => {
  it("through items, prefixItems, additionalProperties, patternProperties and $ref", () => {
    const s: Schema = {
      type: "object",
      properties: {
        list: { type: "array", items: { $ref: "#/$defs/point" } },
        pair: { type: "array", prefixItems: [{ type: "integer" }, { type: "boolean" }] },
        env: { type: "object", additionalProperties: { type: "number" } },
        ports: { type: "object", patternProperties: { "^p_": { type: "integer" } } }
      },
      $defs: { point: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } }
    }
    const a = repaired(s, { list: [{ x: "1" }], pair: ["2", "yes"], env: { A: "1.5" }, ports: { p_http: "80", other: "x" } })
    assert.deepStrictEqual(a.value, { list: [{ x: 1 }], pair: [2, true], env: { A: 1.5 }, ports: { p_http: 80, other: "x" } })
    assert.deepStrictEqual(a.coercions.map((c) => c.path), ["/list/0/x", "/pair/0", "/pair/1", "/env/A", "/ports/p_http"])
  })
  it("through allOf members", () => {
    const s: Schema = { allOf: [{ type: "object", properties: { n: { type: "integer" } } }, { required: ["n"] }] }
    assert.deepStrictEqual(repaired(s, { n: "4" }).value, { n: 4 })
  })
  it("through recursive $refs without looping", () => {
    const tree: Schema = {
      $defs: { node: { type: "object", properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node"
    }
    const a = repaired(tree, { v: "1", kids: [{ v: "2", kids: [{ v: "3" }] }] })
    assert.deepStrictEqual(a.value, { v: 1, kids: [{ v: 2, kids: [{ v: 3 }] }] })
  })
  it("takes an anyOf/oneOf branch only when exactly one validates after coercion", () => {
    const one: Schema = obj({ v: { anyOf: [{ type: "integer" }, { type: "array", items: { type: "string" } }] } }, ["v"])
    assert.deepStrictEqual(repaired(one, { v: "7" }).value, { v: 7 })
    const nullable: Schema = obj({ v: { anyOf: [{ enum: ["a", "b"] }, { type: "null" }] } }, ["v"])
    assert.deepStrictEqual(repaired(nullable, { v: "null" }).value, { v: null })
    assert.deepStrictEqual(repaired(nullable, { v: "A" }).value, { v: "a" })
  })
  it("leaves a union untouched when two branches match after coercion", () => {
    const two: Schema = obj({ v: { oneOf: [{ type: "integer" }, { type: "boolean" }] } }, ["v"])
    assert.strictEqual(rejected(two, { v: "1" })[0]!.path, "/v")
    const both: Schema = obj({ v: { anyOf: [{ type: "integer" }, { type: "number" }] }, w: { type: "integer" } }, ["v", "w"])
    const r = Coercion.coerce(both, { v: "2", w: "3" })
    assert.deepStrictEqual(r.value, { v: "2", w: 3 })
    assert.deepStrictEqual(r.coercions.map((c) => c.path), ["/w"])
  })
})

describe("Coercion.coerce", () => {
  const s = obj({ n: { type: "integer" }, note: { type: "string" } }, ["n"])
  it("is idempotent and does not touch its input", () => {
    const input = { n: "3", note: "" }
    const frozen = structuredClone(input)
    const once = Coercion.coerce(s, input)
    assert.deepStrictEqual(once.value, { n: 3 })
    assert.deepStrictEqual(input, frozen)
    const twice = Coercion.coerce(s, once.value)
    assert.deepStrictEqual(twice, { value: { n: 3 }, coercions: [] })
  })
  it("returns a value the schema accepts as the same reference", () => {
    const v = { n: 3 }
    assert.strictEqual(Coercion.coerce(s, v).value, v)
  })
  it("drops strict-provider nulls for optional, non-nullable properties only", () => {
    const t = obj({ a: { type: "string" }, b: { type: ["string", "null"] }, c: { type: "string" } }, ["c"])
    const r = Coercion.coerce(t, { a: null, b: null, c: null }, { fromStrictProvider: true })
    assert.deepStrictEqual(r.value, { b: null, c: null })
    assert.deepStrictEqual(r.coercions.map((c) => [c.path, c.rule]), [["/a", "drop-strict-null"]])
  })
  it("never throws on 10,000 levels under a recursive schema, or on a schema that is not one", () => {
    const tree: Schema = { $defs: { t: { type: "object", properties: { n: { type: "integer" }, kid: { $ref: "#/$defs/t" } } } }, $ref: "#/$defs/t" }
    let deep: JsonValue.JsonValue = { n: "1" }
    for (let i = 0; i < 10_000; i++) deep = { kid: deep, n: "2" }
    const r = Coercion.coerce(tree, deep)
    assert.isTrue(r.value === deep || (r.value as { n: unknown }).n === 2)
    assert.deepStrictEqual(Coercion.coerce(null as unknown as Schema, { n: "1" }), { value: { n: "1" }, coercions: [] })
  })
  it("never throws on hostile values and builds no prototype", () => {
    const hostile = JSON.parse("{\"__proto__\": {\"polluted\": \"15\"}, \"constructor\": {\"prototype\": {\"x\": 1}}, \"n\": \"1\"}") as JsonValue.JsonValue
    const r = Coercion.coerce(obj({ n: { type: "integer" } }, ["n"], { additionalProperties: { type: "object", properties: { polluted: { type: "integer" } } } }), hostile)
    const out = r.value as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(out), Object.prototype)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out, "__proto__")?.value, { polluted: 15 })
    assert.strictEqual(({} as Record<string, unknown>).polluted, undefined)
    assert.strictEqual(out.n, 1)
  })
})

describe("Coercion.parseBoolean", () => {
  it("reads the boolean words, and answers undefined (never a throw) for a value that is not a string", () => {
    assert.deepStrictEqual([" Yes ", "0", "maybe"].map(Coercion.parseBoolean), [true, false, undefined])
    const throwing = new Proxy({}, { get: () => { throw new Error("trap") } })
    for (const u of [null, 1, throwing, { trim: () => "true" }]) assert.strictEqual(Coercion.parseBoolean(u as never), undefined)
  })
})

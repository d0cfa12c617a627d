import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Validator from "../src/Validator.js"

const { upgrade } = JsonSchema

/** Freezes a value all the way down, so any mutation attempt throws (ES modules are strict). */
const deepFreeze = <A>(a: A): A => {
  const stack: Array<unknown> = [a]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
      Object.freeze(v)
      for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k])
    }
  }
  return a
}

const typeOf = (t: unknown): unknown => {
  const s = upgrade({ type: t }).schema
  return typeof s === "object" ? s["type"] : s
}

describe("upgrade: type names", () => {
  it("maps BFCL, Python, Java and JavaScript names", () => {
    const table: Array<[string, string]> = [
      ["dict", "object"], ["float", "number"], ["tuple", "array"], ["String", "string"], ["Boolean", "boolean"],
      ["Integer", "integer"], ["Long", "integer"], ["long", "integer"], ["HashMap", "object"], ["ArrayList", "array"],
      ["int", "integer"], ["str", "string"], ["list", "array"], ["bool", "boolean"], ["double", "number"],
      ["char", "string"], ["Array", "array"], ["Map", "object"], ["None", "null"], ["  Float ", "number"]
    ]
    for (const [from, to] of table) assert.strictEqual(typeOf(from), to, from)
  })

  it("gives generic lists an item type", () => {
    assert.deepStrictEqual(upgrade({ type: "list(str)" }).schema, { type: "array", items: { type: "string" } })
    assert.deepStrictEqual(upgrade({ type: "List<Integer>" }).schema, { type: "array", items: { type: "integer" } })
    assert.deepStrictEqual(upgrade({ type: "list[int]", items: { type: "number" } }).schema, { type: "array", items: { type: "number" } })
    assert.deepStrictEqual(upgrade({ type: "Dict[str]" }).schema, { type: "object" })
  })

  it("drops the type constraint for any, the empty name and unknown names, and says so", () => {
    for (const t of ["any", "", "Any"]) assert.deepStrictEqual(upgrade({ type: t, description: "x" }).schema, { description: "x" })
    const r = upgrade({ type: "Person" })
    assert.deepStrictEqual(r.schema, {})
    assert.deepStrictEqual(r.changes, [{ path: "/type", change: "unknown type name `Person` removed; the value is not constrained by type" }])
    assert.deepStrictEqual(upgrade({ type: ["string", "any"] }).schema, {})
    assert.deepStrictEqual(upgrade({ type: 12 }).schema, {})
    assert.deepStrictEqual(upgrade({ type: ["str", "string", 3, "null"] }).schema, { type: ["string", "null"] })
  })

  it("leaves JSON Schema types untouched and reports nothing", () => {
    const s = { type: ["integer", "null"], properties: { a: { type: "string" } } }
    const r = upgrade(s)
    assert.strictEqual(r.schema, s)
    assert.deepStrictEqual(r.changes, [])
  })
})

describe("upgrade: OpenAPI nullable", () => {
  it("widens type and enum", () => {
    assert.deepStrictEqual(upgrade({ type: "string", nullable: true }).schema, { type: ["string", "null"] })
    assert.deepStrictEqual(upgrade({ type: ["integer"], nullable: true }).schema, { type: ["integer", "null"] })
    assert.deepStrictEqual(upgrade({ type: "string", enum: ["a", "b"], nullable: true }).schema, { type: ["string", "null"], enum: ["a", "b", null] })
    assert.deepStrictEqual(upgrade({ enum: ["a"], nullable: true }).schema, { enum: ["a", null] })
    assert.deepStrictEqual(upgrade({ type: "dict", nullable: true }).schema, { type: ["object", "null"] })
  })

  it("wraps in anyOf when a keyword would reject null anyway, keeping annotations outside", () => {
    const r = upgrade({ $ref: "#/$defs/x", description: "d", nullable: true, $defs: { x: { type: "string" } } })
    assert.deepStrictEqual(r.schema, { description: "d", $defs: { x: { type: "string" } }, anyOf: [{ $ref: "#/$defs/x" }, { type: "null" }] })
    const c = Validator.compile(r.schema)
    assert.isTrue(Either.isRight(c) && c.right.isValid(null) && c.right.isValid("s") && !c.right.isValid(1))
    assert.deepStrictEqual(upgrade({ const: "a", nullable: true }).schema, { anyOf: [{ const: "a" }, { type: "null" }] })
    assert.deepStrictEqual(upgrade({ minimum: 1, nullable: true }).schema, { anyOf: [{ minimum: 1 }, { type: "null" }] })
  })

  it("drops nullable where it changes nothing", () => {
    assert.deepStrictEqual(upgrade({ nullable: true, description: "d" }).schema, { description: "d" })
    assert.deepStrictEqual(upgrade({ type: "string", nullable: false }).schema, { type: "string" })
    assert.deepStrictEqual(upgrade({ type: "null", nullable: true }).schema, { type: "null" })
  })

  it("rewrites a $ref that points through a wrapped schema", () => {
    const r = upgrade({
      properties: { a: { nullable: true, properties: { b: { type: "string" } } }, c: { $ref: "#/properties/a/properties/b" } }
    })
    const s = r.schema as JsonSchema.JsonSchemaObject
    assert.deepStrictEqual(JsonSchema.Pointer.get(s, "/properties/c"), { $ref: "#/properties/a/anyOf/0/properties/b" })
    assert.strictEqual(JsonSchema.resolveRef(s, "#/properties/a/anyOf/0/properties/b")._tag, "Resolved")
  })
})

describe("upgrade: draft-07 forms", () => {
  it("turns array items into prefixItems and additionalItems into items", () => {
    const r = upgrade({ type: "array", items: [{ type: "int" }, { type: "string" }], additionalItems: false })
    assert.deepStrictEqual(r.schema, { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], items: false })
    assert.deepStrictEqual(r.changes.map((c) => c.path), ["/items/0/type", "/items", "/additionalItems"])
    assert.deepStrictEqual(upgrade({ items: { type: "string" }, additionalItems: false }).schema, { items: { type: "string" } })
    assert.deepStrictEqual(upgrade({ items: [true], prefixItems: [false] }).schema, { prefixItems: [false] })
  })

  it("splits dependencies", () => {
    assert.deepStrictEqual(upgrade({ dependencies: { a: ["b"], c: { required: ["d"] } } }).schema, {
      dependentRequired: { a: ["b"] },
      dependentSchemas: { c: { required: ["d"] } }
    })
  })

  it("renames definitions to $defs and rewrites the refs into it", () => {
    const r = upgrade({ definitions: { x: { type: "str" } }, properties: { p: { $ref: "#/definitions/x" }, t: { items: [{ $ref: "#/properties/t/items/1" }, true] } } })
    assert.deepStrictEqual(r.schema, {
      $defs: { x: { type: "string" } },
      properties: { p: { $ref: "#/$defs/x" }, t: { prefixItems: [{ $ref: "#/properties/t/prefixItems/1" }, true] } }
    })
    assert.strictEqual(JsonSchema.dialect(r.schema), "2020-12")
  })

  it("keeps definitions beside a clashing $defs, and then reports nothing about it", () => {
    const s = { definitions: { x: { type: "string" } }, $defs: { x: { type: "integer" } }, $ref: "#/definitions/x" }
    assert.strictEqual(upgrade(s).schema, s)
  })

  it("converts draft-04 boolean exclusive bounds", () => {
    assert.deepStrictEqual(upgrade({ minimum: 1, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: false }).schema, { exclusiveMinimum: 1, maximum: 5 })
  })

  it("rewrites $schema to 2020-12 for draft-03…07 and 2019-09, drops unknown ones, keeps 2020-12", () => {
    const to2020 = (u: string) => (upgrade({ $schema: u }).schema as JsonSchema.JsonSchemaObject)["$schema"]
    assert.strictEqual(to2020("http://json-schema.org/draft-07/schema#"), JsonSchema.uri2020)
    assert.strictEqual(to2020("http://json-schema.org/draft-04/schema"), JsonSchema.uri2020)
    assert.strictEqual(to2020("https://json-schema.org/draft/2019-09/schema"), JsonSchema.uri2020)
    assert.strictEqual(to2020("http://example.com/my-meta"), undefined)
    assert.deepStrictEqual(upgrade({ $schema: "https://json-schema.org/draft/2020-12/schema" }).changes, [])
  })

  it("fixes a draft-07 schema so it compiles as 2020-12 with the same meaning", () => {
    const s = { $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "integer" }], additionalItems: { type: "string" } }
    const r = upgrade(s)
    const before = Validator.compile(s)
    const after = Validator.compile(r.schema)
    assert.isTrue(Either.isRight(before) && Either.isRight(after))
    if (Either.isRight(before) && Either.isRight(after)) {
      assert.strictEqual(after.right.dialect, "2020-12")
      for (const v of [[1], [1, "a"], ["a"], [1, 2], []]) assert.strictEqual(after.right.isValid(v), before.right.isValid(v))
    }
  })
})

describe("upgrade: keywords beside a draft-07 $ref", () => {
  const draft07 = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    definitions: { list: { type: "array" } },
    properties: { x: { $ref: "#/definitions/list", maxItems: 0, description: "kept", items: { type: "string" } } }
  }

  it("applies them by default, as Ajv does (the reading of a validator toolgate compiles)", () => {
    const r = upgrade(draft07)
    const x = (r.schema as any).properties.x
    assert.strictEqual(x.maxItems, 0)
    assert.deepStrictEqual(x.items, { type: "string" })
  })

  it("with refSiblings: ignore, drops them as draft-07 ignores them, keeping annotations and definitions, each reported", () => {
    const r = upgrade(draft07, { refSiblings: "ignore" })
    assert.deepStrictEqual((r.schema as any).properties.x, { $ref: "#/$defs/list", description: "kept" })
    assert.deepStrictEqual((r.schema as any).$defs, { list: { type: "array" } })
    const dropped = r.changes.filter((c) => c.change.includes("ignored in draft-07")).map((c) => c.path)
    assert.deepStrictEqual(dropped.sort(), ["/properties/x/items", "/properties/x/maxItems"])
    const v = Validator.compile(r.schema)
    assert.isTrue(Either.isRight(v) && v.right.isValid({ x: [1, 2] }))
  })

  it("keeps the root's own definitions beside a root $ref (the zod-to-json-schema shape)", () => {
    const root = { $ref: "#/definitions/a", definitions: { a: { type: "object", required: ["p"] } }, $schema: "http://json-schema.org/draft-07/schema#" }
    const r = upgrade(root, { refSiblings: "ignore" })
    assert.deepStrictEqual(r.schema, { $ref: "#/$defs/a", $defs: { a: { type: "object", required: ["p"] } }, $schema: "https://json-schema.org/draft/2020-12/schema" })
  })

  it("drops nothing in a 2020-12 schema, where they apply", () => {
    const s = { $defs: { list: { type: "array" } }, properties: { x: { $ref: "#/$defs/list", maxItems: 0 } } }
    assert.deepStrictEqual(upgrade(s, { refSiblings: "ignore" }), upgrade(s))
    assert.strictEqual((upgrade(s, { refSiblings: "ignore" }).schema as any).properties.x.maxItems, 0)
  })

  it("reads an unknown option value as apply and says so", () => {
    const r = upgrade(draft07, { refSiblings: "sometimes" as never })
    assert.deepStrictEqual(r.schema, upgrade(draft07).schema)
    assert.match(r.changes[0]!.change, /unknown refSiblings option "sometimes"/)
  })

  it("options that throw when read are reported, never thrown", () => {
    const hostile = Object.defineProperty({}, "refSiblings", { get: () => { throw new Error("boom") } }) as JsonSchema.UpgradeOptions
    const r = upgrade(draft07, hostile)
    assert.deepStrictEqual(r.schema, upgrade(draft07).schema)
    assert.match(r.changes[0]!.change, /refSiblings option "unreadable \(boom\)"/)
  })

  it.prop("ignoring them only widens: every value the draft-07 schema accepts as Ajv reads it, the upgraded one accepts", [
    FastCheck.record({
      maxItems: FastCheck.integer({ min: 0, max: 3 }),
      minItems: FastCheck.integer({ min: 0, max: 3 }),
      items: FastCheck.constantFrom({ type: "string" }, { type: "integer" }, false),
      uniqueItems: FastCheck.boolean()
    }, { requiredKeys: [] }),
    FastCheck.array(FastCheck.oneof(FastCheck.string({ maxLength: 2 }), FastCheck.integer({ min: -2, max: 2 })), { maxLength: 4 })
  ], ([siblings, value]) => {
    const s = { $schema: "http://json-schema.org/draft-07/schema#", definitions: { list: { type: "array" } }, properties: { x: { $ref: "#/definitions/list", ...siblings } } }
    const asAjv = Validator.compile(s)
    const ignored = Validator.compile(upgrade(s, { refSiblings: "ignore" }).schema)
    assert.isTrue(Either.isRight(asAjv) && Either.isRight(ignored))
    if (Either.isRight(asAjv) && Either.isRight(ignored)) {
      if (asAjv.right.isValid({ x: value })) assert.isTrue(ignored.right.isValid({ x: value }))
      assert.isTrue(ignored.right.isValid({ x: value })) // draft-07's reading: any array
    }
  })
})

describe("upgrade: non-schemas", () => {
  it("reads a type name where a schema belongs, and anything else as true", () => {
    assert.deepStrictEqual(upgrade("dict").schema, { type: "object" })
    for (const u of [null, undefined, 5, [], "nonsense", new Date()]) {
      const r = upgrade(u)
      assert.strictEqual(r.schema, true)
      assert.strictEqual(r.changes.length, 1)
    }
    assert.deepStrictEqual(upgrade({ properties: { a: "str", b: 5, c: null }, anyOf: [[]] }).schema, {
      properties: { a: { type: "string" }, b: true, c: true },
      anyOf: [true]
    })
  })

  it("drops applicators whose container has the wrong shape", () => {
    assert.deepStrictEqual(upgrade({ anyOf: { type: "string" }, properties: [1], type: "string" }).schema, { type: "string" })
  })
})

describe("upgrade: purity and hostile input", () => {
  it("never mutates its input (deep-frozen input upgrades fine)", () => {
    const s = deepFreeze({ type: "dict", properties: { a: { type: "float", nullable: true }, t: { items: [{ type: "str" }] } }, definitions: { d: {} } })
    const copy = JSON.parse(JSON.stringify(s))
    assert.isTrue(upgrade(s).changes.length > 0)
    assert.deepStrictEqual(s, copy)
  })

  it("keeps __proto__ and constructor as ordinary property names, polluting nothing", () => {
    const s = JSON.parse('{"type": "dict", "properties": {"__proto__": {"type": "str"}, "constructor": {"type": "int", "nullable": true}}, "required": ["__proto__"]}')
    const r = upgrade(s)
    const props = (r.schema as { properties: Record<string, unknown> }).properties
    assert.isTrue(Object.prototype.hasOwnProperty.call(props, "__proto__"))
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(props, "__proto__")?.value, { type: "string" })
    assert.strictEqual(Object.getPrototypeOf(props), Object.prototype)
    assert.deepStrictEqual(props["constructor"], { type: ["integer", "null"] })
    assert.strictEqual(({} as Record<string, unknown>)["type"], undefined)
    assert.deepStrictEqual(r.changes.map((c) => c.path).sort(), ["/properties/__proto__/type", "/properties/constructor/nullable", "/properties/constructor/type", "/type"])
  })

  it("handles 10,000-level nesting without recursion", () => {
    let s: Record<string, unknown> = { type: "dict" }
    for (let i = 0; i < 10_000; i++) s = { properties: { a: s } }
    const r = upgrade(s)
    assert.strictEqual(r.changes.length, 1)
    assert.strictEqual(r.changes[0]!.path, "/properties/a".repeat(10_000) + "/type")
    assert.deepStrictEqual(JsonSchema.Pointer.get(r.schema as JsonSchema.JsonSchemaObject, "/properties/a".repeat(10_000)), { type: "object" })
    assert.deepStrictEqual(upgrade(r.schema).changes, [])
  })

  it("handles a huge enum and wide objects", () => {
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`)
    const r = upgrade({ type: "str", enum: values, nullable: true })
    const e = (r.schema as { enum: Array<unknown> }).enum
    assert.strictEqual(e.length, 100_001)
    assert.strictEqual(e[100_000], null)
    assert.strictEqual(values.length, 100_000)
    const props: Record<string, unknown> = {}
    for (let i = 0; i < 20_000; i++) props[`p${i}`] = { type: "float" }
    assert.strictEqual(upgrade({ properties: props }).changes.length, 20_000)
  })

  it("survives throwing getters and proxy traps", () => {
    const getter = Object.defineProperty({}, "type", { enumerable: true, get: () => { throw new Error("boom") } })
    const r = upgrade({ properties: { a: getter } })
    assert.strictEqual(r.schema, true)
    assert.match(r.changes[0]!.change, /could not be read \(boom\)/)
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error("trap") } })
    assert.strictEqual(upgrade(proxy).changes.length, 1)
  })

  it("replaces a cycle (impossible in JSON, possible in JavaScript) by true", () => {
    const s: Record<string, unknown> = { type: "object", properties: {} }
    ;(s["properties"] as Record<string, unknown>)["self"] = s
    const r = upgrade(s)
    assert.deepStrictEqual(r.schema, { type: "object", properties: { self: true } })
  })
})

/** Schema-ish values in the shapes the rules look at, with published type names mixed in. */
const schemaish: FastCheck.Arbitrary<unknown> = FastCheck.letrec((tie) => ({
  schema: FastCheck.oneof(
    { depthSize: "small", withCrossShrink: true },
    FastCheck.boolean(),
    FastCheck.constantFrom("str", "dict", "junk", 7, null),
    FastCheck.record({
      type: FastCheck.oneof(
        FastCheck.constantFrom("dict", "float", "tuple", "any", "String", "HashMap", "list(str)", "int", "object", "Foo", "", 3),
        FastCheck.array(FastCheck.constantFrom("string", "null", "any", "int", "dict"), { maxLength: 3 })
      ),
      nullable: FastCheck.constantFrom(true, false, "yes"),
      enum: FastCheck.array(FastCheck.oneof(FastCheck.string(), FastCheck.constant(null)), { maxLength: 3 }),
      const: FastCheck.string(),
      $ref: FastCheck.constantFrom("#/definitions/d", "#/items/0", "#/properties/p/items/0", "#", "#/dependencies/x"),
      properties: FastCheck.dictionary(FastCheck.constantFrom("p", "q", "__proto__", "constructor"), tie("schema"), { maxKeys: 3 }),
      items: FastCheck.oneof(tie("schema"), FastCheck.array(tie("schema"), { maxLength: 3 })),
      additionalItems: tie("schema"),
      anyOf: FastCheck.array(tie("schema"), { maxLength: 3 }),
      definitions: FastCheck.dictionary(FastCheck.constantFrom("d", "e"), tie("schema"), { maxKeys: 2 }),
      $defs: FastCheck.dictionary(FastCheck.constantFrom("d", "f"), tie("schema"), { maxKeys: 2 }),
      dependencies: FastCheck.dictionary(FastCheck.constantFrom("x", "y"), FastCheck.oneof(tie("schema"), FastCheck.constant(["p"])), { maxKeys: 2 }),
      exclusiveMinimum: FastCheck.boolean(),
      minimum: FastCheck.integer(),
      $schema: FastCheck.constantFrom("http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema", "x")
    }, { requiredKeys: [] })
  )
})).schema

describe("upgrade: properties", () => {
  it.prop("is idempotent, pure, and its result compiles", [schemaish], ([s]) => {
    const before = JSON.stringify(s)
    const once = upgrade(s)
    assert.strictEqual(JSON.stringify(s), before)
    assert.deepStrictEqual(upgrade(once.schema).changes, [])
    assert.deepStrictEqual(upgrade(upgrade(s, { refSiblings: "ignore" }).schema, { refSiblings: "ignore" }).changes, [])
    assert.isTrue(JsonSchema.isSchema(once.schema))
    const compiled = Validator.compile(once.schema)
    assert.isTrue(Either.isRight(compiled) || /resolve reference|\$ref/i.test(compiled.left.message), Either.isLeft(compiled) ? compiled.left.message : "")
  }, { fastCheck: { numRuns: 300 } })
})

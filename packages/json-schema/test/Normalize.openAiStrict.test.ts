import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as Normalize from "../src/Normalize.js"
import * as Validator from "../src/Validator.js"
import { checkOpenAiStrict, unsupportedKeywords } from "./internal/providerRules.openAi.js"
import { tools } from "./suite.js"

type S = { readonly [k: string]: unknown }
const strict = (schema: unknown) => Normalize.openAiStrict(schema as never)
const obj = (properties: S, extra: S = {}): S => ({ type: "object", properties, ...extra })
/** The strict schema, asserting that enforcement succeeded and the checker accepts it. */
const ok = (schema: unknown): any => {
  const r = strict(schema)
  assert.isTrue(r.strict, JSON.stringify(r.changes))
  assert.deepStrictEqual(checkOpenAiStrict(r.schema as never), [])
  return r.schema
}
/** JSON text of a value, or a marker for one too deep for `JSON.stringify`. */
const snapshot = (u: unknown): string => {
  try {
    return JSON.stringify(u)
  } catch {
    return "<too deep>"
  }
}
/** Asserts the transform failed open: the very input back, one change naming why. */
const open = (schema: unknown, why: RegExp): string => {
  const before = snapshot(schema)
  const r = strict(schema)
  assert.isFalse(r.strict)
  assert.strictEqual(r.schema, schema)
  assert.strictEqual(r.changes.length, 1)
  assert.match(r.changes[0]!.change, why)
  assert.strictEqual(snapshot(schema), before)
  return r.changes[0]!.path
}
const nullable = (s: unknown) => ({ anyOf: [s, { type: "null" }] })

describe("openAiStrict: sanitize", () => {
  it("removes every unsupported keyword, but never a property of that name", () => {
    const dropped = Object.fromEntries(
      ["format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minItems", "maxItems", "uniqueItems", "multipleOf", "examples", "title", "$comment", "if", "then", "else",
        "not", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contains", "minContains", "maxContains",
        "dependentRequired", "dependentSchemas", "contentEncoding", "contentMediaType", "contentSchema", "deprecated",
        "readOnly", "writeOnly", "minProperties", "maxProperties", "$dynamicRef", "$dynamicAnchor", "dependencies"]
        .map((k) => [k, k.startsWith("if") || k === "then" || k === "else" || k === "not" ? { type: "string" } : 1])
    )
    const names = Object.fromEntries(unsupportedKeywords.map((k) => [k, { type: "string", ...dropped }]))
    const out = ok({ $schema: "https://json-schema.org/draft/2020-12/schema", ...obj(names, { required: Object.keys(names) }) })
    assert.deepStrictEqual(Object.keys(out.properties), unsupportedKeywords)
    for (const k of unsupportedKeywords) assert.deepStrictEqual(out.properties[k], { type: "string" })
    assert.isUndefined(out.$schema)
    assert.include(strict(obj({ a: { type: "string", format: "uuid" } }, { required: ["a"] })).changes.map((c) => c.path), "/properties/a/format")
  })

  it("inlines `default` into the description, unless it has one already or there is none", () => {
    const out = ok(obj({
      a: { type: "integer", description: "Days.", default: 3 },
      b: { default: ["x"], description: "Tags.", type: "array", items: { type: "string" } },
      c: { type: "string", description: "Unit (default: C).", default: "C" },
      d: { type: "string", default: "d" }
    }, { required: ["a", "b", "c", "d"] }))
    assert.deepStrictEqual(out.properties.a, { type: "integer", description: "Days. (default: 3)" })
    assert.strictEqual(out.properties.b.description, "Tags. (default: [\"x\"])")
    assert.deepStrictEqual(out.properties.c, { type: "string", description: "Unit (default: C)." })
    assert.deepStrictEqual(out.properties.d, { type: "string" })
  })

  it("turns `const` into a one-value `enum`", () => {
    assert.deepStrictEqual(ok(obj({ k: { type: "string", const: "page" } }, { required: ["k"] })).properties.k, { type: "string", enum: ["page"] })
  })
})

describe("openAiStrict: enforce", () => {
  it("closes every object and requires every key, nested, in items, tuples, $defs and union branches", () => {
    const inner = obj({ x: { type: "number" } })
    const out = ok(obj({
      o: inner,
      list: { type: "array", items: inner },
      pair: { type: "array", prefixItems: [inner, { type: "string", minLength: 1 }], items: false },
      either: { anyOf: [inner, { type: "string" }] },
      ref: { $ref: "#/$defs/D" }
    }, { $defs: { D: inner }, required: ["o", "list", "pair", "either", "ref"] }))
    const closed = { type: "object", properties: { x: nullable({ type: "number" }) }, required: ["x"], additionalProperties: false }
    assert.deepStrictEqual(out.properties.o, closed)
    assert.deepStrictEqual(out.properties.list.items, closed)
    assert.deepStrictEqual(out.properties.pair.prefixItems, [closed, { type: "string" }])
    assert.deepStrictEqual(out.properties.either.anyOf[0], closed)
    assert.deepStrictEqual(out.$defs.D, closed)
    assert.deepStrictEqual(out.properties.ref, { $ref: "#/$defs/D" })
    assert.deepStrictEqual(out.required, ["o", "list", "pair", "either", "ref"])
  })

  it("makes optional properties nullable: wrap, append to a pure union, or leave what accepts null", () => {
    const out = ok(obj({
      plain: { type: "string", enum: ["a", "b"] },
      union: { description: "Either.", anyOf: [{ type: "string" }, { type: "integer" }] },
      hasNull: { anyOf: [{ type: "string" }, { type: "null" }] },
      typeNull: { type: ["string", "null"] },
      sibling: { type: "object", properties: {}, anyOf: [{ type: "object" , properties: {} }] },
      ref: { $ref: "#" }
    }))
    assert.deepStrictEqual(out.properties.plain, nullable({ type: "string", enum: ["a", "b"] }))
    assert.deepStrictEqual(out.properties.union, { description: "Either.", anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] })
    assert.deepStrictEqual(out.properties.hasNull, { anyOf: [{ type: "string" }, { type: "null" }] })
    assert.deepStrictEqual(out.properties.typeNull, { type: ["string", "null"] })
    assert.deepStrictEqual(out.properties.sibling.anyOf[1], { type: "null" })
    assert.strictEqual(out.properties.sibling.anyOf[0].type, "object")
    assert.deepStrictEqual(out.properties.ref, nullable({ $ref: "#" }))
    const v = Either.getOrThrow(Validator.compile(out))
    assert.isTrue(v.isValid({ plain: null, union: null, hasNull: null, typeNull: null, sibling: null, ref: null }))
    assert.isFalse(v.isValid({ plain: null, union: null, hasNull: null, typeNull: null, sibling: null }))
  })

  it("splices nested pure unions flat, hoisting an inner description only when the parent has none", () => {
    const ab = { description: "A or B.", anyOf: [{ type: "string" }, { type: "integer" }] }
    const out = ok(obj({
      hoisted: { anyOf: [ab, { type: "boolean" }] },
      kept: { description: "Mine.", anyOf: [{ anyOf: [ab, { type: "null" }] }, { type: "boolean" }] }
    }, { required: ["hoisted", "kept"] }))
    assert.deepStrictEqual(out.properties.hoisted, { description: "A or B.", anyOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }] })
    assert.deepStrictEqual(out.properties.kept, { description: "Mine.", anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }, { type: "boolean" }] })
  })

  it("reads `oneOf` as `anyOf` and says so", () => {
    const r = strict(obj({ v: { oneOf: [{ type: "string" }, { type: "number" }] } }, { required: ["v"] }))
    assert.deepStrictEqual((r.schema as any).properties.v, { anyOf: [{ type: "string" }, { type: "number" }] })
    assert.isTrue(r.changes.some((c) => c.path === "/properties/v/oneOf" && /became `anyOf`/.test(c.change)))
  })

  it("reports each change with a pointer into the input", () => {
    const paths = strict(obj({ a: { type: "string" }, n: obj({ b: { type: "string" } }, { required: ["b"] }) }, { required: ["n"] })).changes.map((c) => c.path)
    assert.includeMembers(paths, ["", "/properties/a", "/properties/n"])
  })
})

describe("openAiStrict: fails open, never half-strict", () => {
  it("nodes without type, union or $ref (the contract's `{}` and `{ items: {} }`)", () => {
    assert.strictEqual(open(obj({ x: {} }), /`\/properties\/x` has no `type`/), "/properties/x")
    open(obj({ x: { type: "array", items: {} } }), /`\/properties\/x\/items` has no `type`/)
    open(obj({ x: true }), /boolean schema `true`/)
    open(obj({ x: { anyOf: [false, { type: "string" }] } }), /boolean schema `false`/)
  })

  it("decision: explicit maps (`additionalProperties` true or a schema, `patternProperties`) fail open", () => {
    open(obj({ a: { type: "string" } }, { additionalProperties: true }), /accepts undeclared keys/)
    open(obj({ m: { type: "object", additionalProperties: { type: "string" } } }), /`\/properties\/m` accepts undeclared keys/)
    open(obj({ m: { type: "object", patternProperties: { "^x": { type: "string" } } } }), /patternProperties/)
    assert.deepStrictEqual(ok(obj({}, { patternProperties: {} })).properties, {})
  })

  it("decision: a nested free-form object fails open; a root without properties is closed to `{}`", () => {
    open(obj({ meta: { type: "object", description: "Anything." } }), /free-form object/)
    assert.deepStrictEqual(ok({ type: "object" }), { type: "object", properties: {}, required: [], additionalProperties: false })
    assert.deepStrictEqual(ok(obj({ e: { type: "object", additionalProperties: false } }, { required: ["e"] })).properties.e,
      { type: "object", additionalProperties: false, properties: {}, required: [] })
  })

  it("decision: an untyped enum of scalars gets its type inferred; objects in it fail open", () => {
    const out = ok(obj({ u: { enum: ["a", "b"] }, n: { enum: [1, 2.5] }, m: { enum: ["a", null] }, c: { const: 3 } }, { required: ["u", "n", "m", "c"] }))
    assert.deepStrictEqual(out.properties.u, { type: "string", enum: ["a", "b"] })
    assert.deepStrictEqual(out.properties.n, { type: "number", enum: [1, 2.5] })
    assert.deepStrictEqual(out.properties.m, { type: ["string", "null"], enum: ["a", null] })
    assert.deepStrictEqual(out.properties.c, { type: "integer", enum: [3] })
    open(obj({ u: { enum: [{ a: 1 }] } }), /has no `type`/)
  })

  it("decision: `not` is stripped (a widening); a node that was only `not` fails open", () => {
    assert.deepStrictEqual(ok(obj({ s: { type: "string", not: { enum: ["x"] } } }, { required: ["s"] })).properties.s, { type: "string" })
    open(obj({ s: { not: { type: "null" } } }), /`\/properties\/s` has no `type`/)
  })

  it("`allOf`, undeclared required keys, arrays without items, non-object roots, refs that cannot follow", () => {
    open(obj({ a: { allOf: [{ type: "string" }] } }), /uses `allOf`/)
    open(obj({ a: { type: "string" } }, { required: ["a", "b"] }), /requires `b`/)
    open(obj({ a: { type: "array" } }), /array without `items`/)
    open({ type: "string" }, /the schema is not `type: "object"`/)
    open({ anyOf: [obj({})] }, /the schema is not/)
    open({ type: "object", properties: {}, anyOf: [obj({})] }, /is a union/)
    open(obj({ a: { $ref: "https://example.com/s.json" } }), /does not resolve/)
  })

  it("OpenAI's limits: 5,000 properties, 10 levels of objects, 1,000 enum values", () => {
    const wide = (n: number) => obj(Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: "integer" }])))
    ok(wide(5000))
    open(wide(5001), /more than 5000 properties/)
    const nest = (levels: number): S => levels === 1 ? obj({ leaf: { type: "string" } }) : obj({ x: nest(levels - 1) })
    ok(nest(10))
    open(nest(11), /nests objects 11 levels deep/)
    const values = (n: number) => Array.from({ length: n }, (_, i) => i)
    ok(obj({ e: { type: "integer", enum: values(600) }, f: { type: "integer", enum: values(400) } }))
    open(obj({ e: { type: "integer", enum: values(600) }, f: { type: "integer", enum: values(401) } }), /more than 1000 enum values/)
    open(obj({ e: { type: "string", enum: Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(60, "x")) } }), /enum of 300 strings/)
    ok(obj({ [`a`.repeat(60_000)]: { type: "string" }, [`b`.repeat(59_000)]: { type: "string" } }))
    open(obj({ [`a`.repeat(60_000)]: { type: "string" }, [`b`.repeat(61_000)]: { type: "string" } }), /more than 120000 characters/)
  })
})

describe("openAiStrict: `$ref`s follow the nodes they point at", () => {
  it("re-aims a pointer into a wrapped property at the schema inside the wrapper", () => {
    const out = ok(obj({ a: obj({ b: { type: "string" } }), "x y": { type: "integer" }, c: { $ref: "#/properties/a/properties/b" }, d: { $ref: "#/properties/x%20y" } }))
    assert.deepStrictEqual(out.properties.c, nullable({ $ref: "#/properties/a/anyOf/0/properties/b/anyOf/0" }))
    assert.deepStrictEqual(out.properties.d, nullable({ $ref: "#/properties/x%20y/anyOf/0" }))
    const v = Either.getOrThrow(Validator.compile(out))
    assert.isTrue(v.isValid({ a: null, "x y": null, c: "s", d: 1 }))
    assert.isFalse(v.isValid({ a: null, "x y": null, c: 1, d: 1 }))
  })

  it("follows a branch moved by splicing, keeps refs into $defs, and fails open on a ref to a spliced union", () => {
    const u = { anyOf: [{ anyOf: [{ type: "string" }, { type: "integer" }] }, { type: "boolean" }] }
    const out = ok(obj({ u, r: { $ref: "#/properties/u/anyOf/0/anyOf/1" }, s: { $ref: "#/$defs/D" } }, { $defs: { D: { type: "string" } } }))
    assert.deepStrictEqual(out.properties.r, nullable({ $ref: "#/properties/u/anyOf/1" }))
    assert.deepStrictEqual(out.properties.s, nullable({ $ref: "#/$defs/D" }))
    open(obj({ u, r: { $ref: "#/properties/u/anyOf/0" } }), /no schema node of its own/)
    open(obj({ a: { type: "string", not: { type: "integer" } }, r: { $ref: "#/properties/a/not" } }), /no schema node of its own/)
  })
})

describe("openAiStrict: hostile input", () => {
  it("takes `__proto__` and `constructor` as property names and pollutes nothing", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"object","properties":{"__proto__":{"const":1}}}}}')
    const out = ok(schema)
    assert.deepStrictEqual(Object.keys(out.properties), ["__proto__", "constructor"])
    assert.deepStrictEqual(out.required, ["__proto__", "constructor"])
    assert.strictEqual(Object.getPrototypeOf(out.properties), Object.prototype)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out.properties, "__proto__")!.value, nullable({ type: "string" }))
    assert.isUndefined(({} as any).type)
    assert.isTrue(Either.isRight(Validator.compile(out)))
  })

  it("fails open on 10,000 levels of nesting, whatever the keyword, without throwing", () => {
    for (const wrap of [(s: S) => obj({ a: s }), (s: S) => ({ type: "array", items: s }), (s: S) => ({ anyOf: [s] })]) {
      let deep: S = { type: "string" }
      for (let i = 0; i < 10_000; i++) deep = wrap(deep)
      open(obj({ d: deep }), /nests|deeper|levels/)
    }
  })

  it("fails open on what is not a JSON schema, never throwing", () => {
    const getter = Object.defineProperty({ type: "object" }, "properties", { enumerable: true, get: () => { throw new Error("boom") } })
    class Box { type = "object" }
    for (const bad of [null, undefined, 42, "x", [], () => 1, new Box(), obj({ a: { type: "string", minimum: NaN } }), getter, false, true]) {
      const r = strict(bad)
      assert.isFalse(r.strict)
      assert.strictEqual(r.schema, bad)
      assert.strictEqual(r.changes.length, 1)
    }
  })

  it("shares a subschema used twice, but a shared-reference bomb or a cycle fails open", () => {
    const leaf = obj({ x: { type: "string" } }, { required: ["x"] })
    const out = ok(obj({ a: leaf, b: leaf }, { required: ["a", "b"] }))
    assert.deepStrictEqual(out.properties.a, out.properties.b)
    assert.notStrictEqual(out.properties.a, leaf)
    let bomb: S = { type: "string" }
    for (let i = 0; i < 60; i++) bomb = { anyOf: [bomb, bomb] }
    const r = strict(obj({ b: bomb }))
    assert.isFalse(r.strict)
    assert.match(r.changes[0]!.change, /not a JSON schema/)
    const cyclic: any = obj({})
    cyclic.properties.self = cyclic
    open(cyclic, /not a JSON schema/)
  })

  it("a huge enum fails open on the limit; a huge object stays linear", () => {
    open(obj({ e: { type: "integer", enum: Array.from({ length: 200_000 }, (_, i) => i) } }), /enum values/)
  })
})

/** Schemas as tools write them: typed leaves with dropped keywords, untyped enums, unions, nested objects. */
const schemas = (() => {
  const names = FastCheck.constantFrom("a", "b", "format", "default", "__proto__", "constructor", "x y")
  const leaf = FastCheck.oneof(
    FastCheck.record({ type: FastCheck.constantFrom("string", "integer", "number", "boolean", "null") }),
    FastCheck.record({ type: FastCheck.constant("string"), format: FastCheck.constant("uuid"), description: FastCheck.string(), default: FastCheck.string() }, { requiredKeys: ["type"] }),
    FastCheck.record({ type: FastCheck.constant("integer"), minimum: FastCheck.integer(), title: FastCheck.string() }, { requiredKeys: ["type"] }),
    FastCheck.record({ enum: FastCheck.array(FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.constant(null)), { minLength: 1, maxLength: 4 }) }),
    FastCheck.record({ const: FastCheck.oneof(FastCheck.string(), FastCheck.boolean()) }),
    FastCheck.constantFrom({}, true, { not: { type: "string" } }, { type: "array" })
  )
  const { node } = FastCheck.letrec((tie) => ({
    node: FastCheck.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("object"), tie("array"), tie("union")),
    object: FastCheck.tuple(
      FastCheck.uniqueArray(FastCheck.tuple(names, tie("node"), FastCheck.boolean()), { selector: (e) => e[0], maxLength: 4 }),
      FastCheck.constantFrom(undefined, false, true)
    ).map(([entries, extra]) => {
      const properties = {}
      for (const [k, v] of entries) Object.defineProperty(properties, k, { value: v, enumerable: true, writable: true, configurable: true })
      const required = entries.filter((e) => e[2]).map((e) => e[0])
      return { type: "object", properties, required, ...(extra === undefined ? {} : { additionalProperties: extra }) }
    }),
    array: FastCheck.record({ type: FastCheck.constant("array"), items: tie("node"), minItems: FastCheck.nat() }, { requiredKeys: ["type", "items"] }),
    union: FastCheck.record({
      description: FastCheck.string(),
      anyOf: FastCheck.array(tie("node"), { minLength: 1, maxLength: 3 })
    }, { requiredKeys: ["anyOf"] })
  }))
  return FastCheck.tuple(FastCheck.array(FastCheck.tuple(names, node), { maxLength: 4 })).map(([entries]) => ({
    type: "object",
    properties: Object.fromEntries(entries)
  }))
})()

const deepFreeze = <A>(u: A): A => {
  if (typeof u === "object" && u !== null) for (const v of Object.values(Object.freeze(u))) deepFreeze(v)
  return u
}

describe("openAiStrict: properties", () => {
  it.prop("a strict result passes OpenAI's rules and compiles; the run is deterministic, pure and idempotent", [schemas], ([schema]) => {
    const before = JSON.stringify(schema)
    const r = strict(schema)
    assert.strictEqual(JSON.stringify(schema), before)
    assert.deepStrictEqual(strict(schema), r)
    // a write into the input would throw on a frozen copy, and the run would then fall open
    assert.deepStrictEqual(strict(deepFreeze(JSON.parse(before))).strict, r.strict)
    if (!r.strict) {
      assert.strictEqual(r.schema as unknown, schema)
      assert.strictEqual(r.changes.length, 1)
      return
    }
    assert.deepStrictEqual(checkOpenAiStrict(r.schema as never), [])
    assert.isTrue(Either.isRight(Validator.compile(r.schema)))
    const again = strict(r.schema)
    assert.isTrue(again.strict)
    assert.deepStrictEqual(again.schema, r.schema)
  }, { fastCheck: { numRuns: 300 } })

  it("the generator reaches both outcomes, and strict results with nullable optionals", () => {
    const results = FastCheck.sample(schemas, { numRuns: 400, seed: 7 }).map(strict)
    const strictOnes = results.filter((r) => r.strict)
    assert.isAbove(strictOnes.length, 80)
    assert.isAbove(results.length - strictOnes.length, 80)
    assert.isAbove(strictOnes.filter((r) => r.changes.some((c) => /was optional/.test(c.change))).length, 40)
  })
})

describe("openAiStrict: unused definitions", () => {
  it("drops the $defs no $ref reaches (transitively) before deciding strictness", () => {
    const free = { type: "object", additionalProperties: true }
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/used" } },
      required: ["a"],
      $defs: { used: { type: "object", properties: { b: { $ref: "#/$defs/inner" } } }, inner: { type: "string" }, unused: free },
      definitions: { old: free }
    }
    const r = strict(schema)
    assert.isTrue(r.strict, JSON.stringify(r.changes))
    assert.deepStrictEqual(Object.keys((r.schema as any).$defs).sort(), ["inner", "used"])
    assert.notProperty(r.schema, "definitions")
    assert.includeMembers(r.changes.map((c) => c.path), ["/$defs/unused", "/definitions/old"])
    assert.deepStrictEqual(checkOpenAiStrict(r.schema as never), [])
  })

  it("a used definition strict mode cannot describe still turns it off, and so does a reference it cannot follow", () => {
    const free = { type: "object", additionalProperties: true }
    open({ type: "object", properties: { a: { $ref: "#/$defs/free" } }, $defs: { free } }, /additionalProperties/)
    // an anchor reference is not followed: every definition is kept, so the unused free-form one still counts
    open({ type: "object", properties: { a: { $ref: "#x" } }, $defs: { x: { $anchor: "x", type: "string" }, free } }, /./)
  })

  it("13 of Notion's 24 tools are strict (their unused $defs turned it off for every one)", () => {
    const notion = tools().filter((t) => t.source.includes("notion"))
    assert.strictEqual(notion.length, 24)
    assert.strictEqual(notion.filter((t) => strict(t.parameters).strict).length, 13)
  })
})

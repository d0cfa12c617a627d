import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type * as JsonSchema from "../src/JsonSchema.js"
import * as Validator from "../src/Validator.js"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

const compiled = (schema: JsonSchema.JsonSchema): Validator.Compiled => {
  const c = Validator.compile(schema)
  if (Either.isLeft(c)) throw new Error(`test schema did not compile: ${c.left.message}`)
  return c.right
}

/** A full garbage collection on demand (V8's flag set at run time: the test process is not started with it). */
const collector = (): (() => void) => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  return () => gc()
}

const issues = (schema: JsonSchema.JsonSchema, value: unknown) => compiled(schema).validate(value)

const only = (schema: JsonSchema.JsonSchema, value: unknown): Validator.Issue => {
  const found = issues(schema, value)
  assert.strictEqual(found.length, 1, JSON.stringify(found))
  return found[0]!
}

const tool: JsonSchema.JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["content", "limit"],
  properties: {
    content: { type: "string", description: "non-empty string of file contents" },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    order: { enum: ["asc", "desc"] },
    filters: { type: "array", maxItems: 5, items: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } } },
    note: { type: ["string", "null"] }
  }
}

describe("Validator issues: one message shape per keyword", () => {
  it("required: the missing property's path, its type, and its description as expected", () => {
    assert.deepStrictEqual(only(tool, { limit: 1 }), {
      path: "/content",
      field: "content",
      keyword: "required",
      expected: "non-empty string of file contents",
      message: "Missing required argument `content` (string)."
    })
    const nested = only(tool, { content: "x", limit: 1, filters: [{ name: "a" }, {}] })
    assert.deepStrictEqual([nested.path, nested.field, nested.expected, nested.message], [
      "/filters/1/name", "filters.1.name", "string", "Missing required argument `filters.1.name` (string)."
    ])
    assert.strictEqual(only({ required: ["x"] }, {}).message, "Missing required argument `x`.")
  })

  it("additionalProperties: the extra key's path and the allowed names", () => {
    const i = only(tool, { content: "x", limit: 1, foo: 1 })
    assert.deepStrictEqual([i.path, i.field, i.keyword], ["/foo", "foo", "additionalProperties"])
    assert.strictEqual(i.message, "Unknown argument `foo`; allowed: content, limit, order, filters, note.")
    assert.strictEqual(only({ type: "object", additionalProperties: false }, { a: 1 }).message, "Unknown argument `a`; no other arguments are allowed.")
    assert.strictEqual(
      only({ properties: { a: true }, patternProperties: { "^x-": true }, additionalProperties: false }, { b: 1 }).message,
      "Unknown argument `b`; allowed: a, names matching /^x-/."
    )
  })

  it("type, with the received value quoted", () => {
    const i = only(tool, { content: "x", limit: "abc" })
    assert.deepStrictEqual([i.field, i.keyword, i.expected, i.message], ["limit", "type", "integer", "Argument `limit` must be integer, got string \"abc\"."])
    assert.strictEqual(only(tool, { content: "x", limit: 1, note: 3 }).expected, "string or null")
    assert.strictEqual(only(tool, []).message, "The arguments must be object, got an empty array.")
    assert.strictEqual(only({ type: "integer" }, 1.5).message, "The arguments must be integer, got number 1.5.")
  })

  it("enum and const", () => {
    const i = only(tool, { content: "x", limit: 1, order: "up" })
    assert.deepStrictEqual([i.expected, i.message], ["one of: asc, desc", "Argument `order` must be one of: asc, desc; got string \"up\"."])
    assert.strictEqual(only({ const: "yes" }, "no").expected, "exactly \"yes\"")
    // a wrong type under an enum gives one issue, the enum's: it names the allowed values, hence the type
    const typed = only({ type: "string", enum: ["True", "False"] }, false)
    assert.deepStrictEqual([typed.keyword, typed.expected], ["enum", "one of: True, False"])
    const many = only({ enum: Array.from({ length: 40 }, (_, k) => `v${k}`) }, "x").expected
    assert.match(many, /^one of: v0, v1, .*, v11, … \(28 more\)$/)
  })

  it("bounds read as words", () => {
    assert.strictEqual(only(tool, { content: "x", limit: 0 }).message, "Argument `limit` must be at least 1; got integer 0.")
    assert.strictEqual(only(tool, { content: "x", limit: 101 }).expected, "at most 100")
    assert.strictEqual(only({ exclusiveMinimum: 0 }, 0).expected, "greater than 0")
    assert.strictEqual(only({ exclusiveMaximum: 10 }, 10).expected, "less than 10")
    assert.strictEqual(only({ maxLength: 3 }, "abcd").message, "The arguments must have at most 3 characters; got string \"abcd\".")
    assert.strictEqual(only({ minLength: 1 }, "").expected, "at least 1 character")
    assert.strictEqual(only(tool, { content: "x", limit: 1, filters: [{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }, { name: "e" }, { name: "f" }] }).expected, "at most 5 items")
    assert.strictEqual(only({ minProperties: 2 }, { a: 1 }).expected, "at least 2 properties")
    assert.strictEqual(only({ multipleOf: 5 }, 7).expected, "a multiple of 5")
    assert.strictEqual(only({ pattern: "^a+$" }, "b").expected, "a string matching /^a+$/")
    assert.strictEqual(only({ format: "date" }, "tomorrow").expected, "a valid date")
    assert.strictEqual(only({ prefixItems: [true], items: false }, [1, 2]).expected, "at most 1 item")
  })

  it("uniqueItems, dependentRequired, propertyNames, not, false, contains", () => {
    assert.strictEqual(only({ uniqueItems: true }, [1, 2, 1]).message, "The arguments must not contain duplicates (items 0 and 2 are equal).")
    const dep = only({ dependentRequired: { from: ["to"] } }, { from: 1 })
    assert.deepStrictEqual([dep.path, dep.message], ["/to", "Missing argument `to` (required when `from` is present)."])
    const name = only({ propertyNames: { maxLength: 3 } }, { long_name: 1 })
    assert.deepStrictEqual([name.path, name.keyword, name.message], ["/long_name", "propertyNames", "Argument name `long_name` is not allowed; names must have at most 3 characters."])
    assert.strictEqual(only({ propertyNames: { enum: ["a"] } }, { b: 1 }).expected, "a name that must be one of: a")
    assert.strictEqual(only({ not: { type: "string" } }, "s").message, "The arguments must not be string; got string \"s\".")
    assert.strictEqual(only({ properties: { a: false } }, { a: 1 }).message, "Argument `a` is not allowed.")
    assert.strictEqual(only({ contains: { type: "integer" } }, ["a"]).expected, "at least 1 matching item")
  })

  it("anyOf collapses to one issue naming the alternatives", () => {
    const i = only({ properties: { id: { anyOf: [{ type: "string" }, { type: "integer" }] } } }, { id: true })
    assert.deepStrictEqual([i.field, i.keyword, i.expected, i.message], ["id", "anyOf", "string or integer", "Argument `id` must be string or integer; got boolean true."])
    assert.strictEqual(only({ oneOf: [{ enum: ["a"] }, { type: "null" }] }, 3).expected, "one of: a or null")
  })

  it("anyOf: when the value's type fits exactly one alternative, that alternative speaks", () => {
    const s = { $defs: { opt: { type: "object", required: ["x"], properties: { x: { type: "integer" } } } }, properties: { o: { anyOf: [{ $ref: "#/$defs/opt" }, { type: "null" }] } } }
    const i = only(s, { o: { x: "a" } })
    assert.deepStrictEqual([i.path, i.field, i.keyword, i.message], ["/o/x", "o.x", "type", "Argument `o.x` must be integer, got string \"a\"."])
    assert.strictEqual(only(s, { o: {} }).message, "Missing required argument `o.x` (integer).")
  })

  it("oneOf matching more than one alternative says so", () => {
    const i = only({ oneOf: [{ type: "integer" }, { type: "number" }] }, 2)
    assert.strictEqual(i.message, "The arguments must match exactly one alternative, but matches 0 and 1.")
  })

  it("if/then reports the then-branch only, and duplicates are dropped", () => {
    const found = issues({ if: { required: ["a"] }, then: { required: ["b"] }, allOf: [{ required: ["b"] }] }, { a: 1 })
    assert.deepStrictEqual(found.map((i) => [i.path, i.keyword]), [["/b", "required"]])
  })

  it("quotes a 10 MB value truncated", () => {
    const i = only({ type: "integer" }, "x".repeat(10_000_000))
    assert.isBelow(i.message.length, 200)
    assert.match(i.message, /…" \(10000000 characters\)\.$/)
    assert.isBelow(only({ enum: ["a"] }, { ["k".repeat(1000)]: 1 }).message.length, 250)
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, k) => [`key${k}`, k]))
    assert.match(only({ type: "array" }, wide).message, /^The arguments must be array, got an object with keys "key0", .*"key11", … \(9988 more\)\.$/)
  })

  it("names a 10 MB argument key exactly in field, and cut in the message", () => {
    const key = "k".repeat(10_000_000)
    const i = only({ type: "object", additionalProperties: false }, { [key]: 1 })
    assert.strictEqual(i.field, key)
    assert.isBelow(i.message.length, 200)
  })

  it("a 100,000-value enum compiles, validates, and lists a few values", () => {
    const values = Array.from({ length: 100_000 }, (_, k) => `v${k}`)
    const c = compiled({ enum: values })
    assert.isTrue(c.isValid("v99999"))
    const i = only({ enum: values }, "nope")
    assert.match(i.expected, /^one of: v0, v1, .*, … \(99988 more\)$/)
  })
})

describe("Validator results", () => {
  it("valid values give the shared frozen empty array", () => {
    const c = compiled(tool)
    const a = c.validate({ content: "x", limit: 3 })
    const b = compiled({ type: "string" }).validate("s")
    assert.strictEqual(a.length, 0)
    assert.strictEqual(a, b)
    assert.isTrue(Object.isFrozen(a))
    assert.isTrue(Object.isFrozen(c.validate({})))
  })

  it("isValid is the raw Ajv function", () => {
    const c = compiled(tool)
    assert.isTrue(c.isValid({ content: "x", limit: 3 }))
    assert.isFalse(c.isValid({}))
    assert.isArray((c.isValid as unknown as { errors: unknown }).errors)
    assert.strictEqual((c.isValid as unknown as { schema: unknown }).schema, tool)
  })

  it("a 100,000-level value under a recursive schema is an issue, not a throw", () => {
    const tree = { $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } }, $ref: "#/$defs/node" }
    let v: Record<string, unknown> = {}
    for (let i = 0; i < 100_000; i++) v = { child: v }
    const found = compiled(tree).validate(v)
    assert.deepStrictEqual(found.map((i) => [i.path, i.keyword]), [["", "depth"]])
    assert.strictEqual(found[0]!.message, "The arguments are nested too deeply to validate.")
  })

  it("a fault in Ajv's optimized code is answered by the same schema's unoptimized code, not thrown (isValid too)", () => {
    // Ajv 8.20's code optimizer drops the declaration of `props0` here; its unoptimized code is the prover's
    const s = { if: { oneOf: [{ additionalProperties: false }, false], not: true }, else: false }
    const c = compiled(s)
    assert.isFalse(c.isValid(""))
    const found = c.validate("")
    assert.deepStrictEqual(found.map((i) => [i.path, i.keyword]), [["", "false schema"]])
    // `if` never holds (`not: true`), so `then` is never applied and every value is valid: no schema error
    const accepting = compiled({ type: "string", if: { not: true, anyOf: [{ additionalProperties: false }] }, then: { minimum: 0 } })
    for (const v of ["", "x"]) assert.deepStrictEqual(accepting.validate(v), [])
    assert.deepStrictEqual(accepting.validate(1).map((i) => i.keyword), ["type"])
    assert.isTrue(accepting.isValid("x"))
  })

  it("__proto__ and constructor arguments are ordinary keys and pollute nothing", () => {
    const s = { type: "object", additionalProperties: false, required: ["constructor"], properties: { a: { type: "string" }, constructor: { type: "string" } } }
    assert.strictEqual(only(s, {}).message, "Missing required argument `constructor` (string).")
    const i = issues(s, JSON.parse('{"constructor": "c", "__proto__": {"polluted": true}}'))
    assert.deepStrictEqual(i.map((x) => x.message), ["Unknown argument `__proto__`; allowed: a, constructor."])
    assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
    const named = compiled({ type: "object", properties: { toString: { type: "string" }, valueOf: { type: "integer" } } })
    assert.isTrue(named.isValid({}))
    assert.isFalse(named.isValid({ toString: 1 }))
    // a dependency's required names are own properties too (draft-07 `dependencies`, `dependentRequired`)
    for (const s of [{ $schema: "http://json-schema.org/draft-07/schema#", dependencies: { b: ["valueOf"] } }, { dependentRequired: { b: ["constructor"] } }]) {
      assert.isFalse(compiled(s).isValid({ b: "" }), JSON.stringify(s))
      assert.isTrue(compiled(s).isValid(JSON.parse('{"b": "", "valueOf": 1, "constructor": 2}')), JSON.stringify(s))
    }
  })

  it("a member named __proto__ is checked: properties, patternProperties, dependencies (Ajv's code skips that name)", () => {
    const j = (text: string): JsonSchema.JsonSchema => JSON.parse(text)
    const prop = j('{"type":"object","properties":{"__proto__":{"type":"integer"}}}')
    assert.deepStrictEqual(issues(prop, JSON.parse('{"__proto__":"x"}')).map((i) => i.message), ["Argument `__proto__` must be integer, got string \"x\"."])
    assert.isFalse(compiled(prop).isValid(JSON.parse('{"__proto__":"x"}')))
    assert.isTrue(compiled(prop).isValid(JSON.parse('{"__proto__":1}')))
    // beside additionalProperties/unevaluatedProperties: a declared __proto__ is neither additional nor unevaluated
    for (const closing of ['"additionalProperties":false', '"unevaluatedProperties":false']) {
      const closed = j(`{"type":"object","properties":{"__proto__":{"type":"integer"},"a":{}},${closing}}`)
      assert.isTrue(compiled(closed).isValid(JSON.parse('{"__proto__":1,"a":0}')), closing)
      assert.isFalse(compiled(closed).isValid(JSON.parse('{"__proto__":"x"}')), closing)
      assert.deepStrictEqual(issues(closed, { b: 1 }).map((i) => i.message), ["Unknown argument `b`; allowed: __proto__, a."], closing)
    }
    // nested, under $defs through a $ref, and a $ref into the member itself
    assert.isFalse(compiled(j('{"properties":{"a":{"properties":{"__proto__":{"const":1}}}}}')).isValid(JSON.parse('{"a":{"__proto__":2}}')))
    assert.isFalse(compiled(j('{"$defs":{"p":{"properties":{"__proto__":{"enum":[1]}}}},"$ref":"#/$defs/p"}')).isValid(JSON.parse('{"__proto__":2}')))
    assert.isFalse(compiled(j('{"properties":{"__proto__":{"minimum":3}},"$ref":"#/properties/__proto__"}')).isValid(1))
    // a pattern spelled `__proto__` matches names containing it
    assert.isFalse(compiled(j('{"patternProperties":{"__proto__":{"type":"integer"}}}')).isValid({ x__proto__y: "x" }))
    // dependencies keyed __proto__, both forms, both dialects
    assert.deepStrictEqual(issues(j(`{"$schema":"${"http://json-schema.org/draft-07/schema#"}","dependencies":{"__proto__":["a"]}}`), JSON.parse('{"__proto__":0}')).map((i) => i.message), ["Missing required argument `a`."])
    assert.isFalse(compiled(j('{"dependencies":{"__proto__":{"required":["b"]}}}')).isValid(JSON.parse('{"__proto__":0}')))
    assert.isTrue(compiled(j('{"dependencies":{"__proto__":{"required":["b"]}}}')).isValid(JSON.parse('{"__proto__":0,"b":1}')))
    // a dependency applies to objects only: a value that is not one passes it (found by the prover's fuzz, seed 20261204)
    for (const value of [null, "s", 1, [JSON.parse('{"__proto__":0}')]]) {
      assert.isTrue(compiled(j('{"dependencies":{"__proto__":{"type":"string"}}}')).isValid(value), JSON.stringify(value))
      assert.isTrue(compiled(j('{"dependencies":{"__proto__":["a"]}}')).isValid(value), JSON.stringify(value))
    }
    // required, dependentRequired, dependentSchemas naming __proto__, and constructor/prototype names, were checked already
    assert.isFalse(compiled(j('{"required":["__proto__"]}')).isValid({}))
    assert.isFalse(compiled(j('{"dependentRequired":{"__proto__":["a"]}}')).isValid(JSON.parse('{"__proto__":0}')))
    assert.isFalse(compiled(j('{"dependentSchemas":{"__proto__":{"required":["a"]}}}')).isValid(JSON.parse('{"__proto__":0}')))
    assert.isFalse(compiled(j('{"properties":{"prototype":{"type":"integer"},"constructor":{"type":"integer"}}}')).isValid({ prototype: "x" }))
    assert.isFalse(compiled(j('{"properties":{"prototype":{"type":"integer"},"constructor":{"type":"integer"}}}')).isValid({ constructor: "x" }))
    // restating the member never hides an invalid schema around it
    for (const text of ['{"allOf":5,"dependencies":{"__proto__":["a"]}}', '{"patternProperties":5,"properties":{"__proto__":{}}}']) {
      assert.isTrue(Either.isLeft(Validator.compile(j(text))), text)
    }
    // the compiled schema is the one given, and nothing was polluted
    assert.strictEqual(compiled(prop).schema, prop)
    assert.strictEqual(({} as Record<string, unknown>)["type"], undefined)
  })

  it("reads draft-07 schemas with the draft-07 class", () => {
    const c = compiled({ definitions: { s: { type: "string" } }, type: "array", items: [{ $ref: "#/definitions/s" }], additionalItems: false })
    assert.strictEqual(c.dialect, "draft-07")
    assert.isTrue(c.isValid(["a"]))
    assert.isFalse(c.isValid(["a", 1]))
    assert.isFalse(c.isValid([1]))
  })
})

describe("Validator cache", () => {
  it("returns the same Compiled for the same schema, an equal copy, and another key order", () => {
    const s = { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } } }
    const first = compiled(s)
    assert.strictEqual(compiled(s), first)
    assert.strictEqual(compiled(structuredClone(s)), first)
    assert.strictEqual(compiled({ properties: { b: { type: "integer" }, a: { type: "string" } }, type: "object" }), first)
    assert.notStrictEqual(compiled({ type: "object", properties: { a: { type: "string" } } }), first)
    assert.strictEqual(Validator.compile(true), Validator.compile(true))
  })

  it("caches failures too, and compileAt per pointer", () => {
    const bad = { type: 12 } as unknown as JsonSchema.JsonSchema
    assert.strictEqual(Validator.compile(bad), Validator.compile(bad))
    assert.strictEqual(Validator.compileAt(tool, "/properties/limit"), Validator.compileAt(tool, "/properties/limit"))
  })

  it("keeps the cacheSize most recently used schemas by content; an evicted validator still works, by identity too", () => {
    const v = Either.getOrThrow(Validator.make({ cacheSize: 2 }))
    const a = { $id: "https://example.com/evicted", type: "object", properties: { n: { type: "integer" } } }
    const first = Either.getOrThrow(v.compile(a))
    for (let i = 0; i < 2; i++) v.compile({ const: i })
    const again = Either.getOrThrow(v.compile(structuredClone(a)))
    assert.notStrictEqual(again, first)
    assert.strictEqual(Either.getOrThrow(v.compile(a)), first)
    for (const c of [first, again]) assert.isTrue(c.isValid({ n: 1 }) && !c.isValid({ n: "x" }))
    assert.deepStrictEqual(Either.getOrThrow(v.compileAt(a, "/properties/n")).validate("x").map((i) => i.keyword), ["type"])
  })

  it("refuses a cacheSize that is not a whole number of at least 1 (it bounds the cache and Ajv's memory)", () => {
    for (const cacheSize of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, "8" as unknown as number]) {
      const made = Validator.make({ cacheSize })
      assert.isTrue(Either.isLeft(made), String(cacheSize))
      if (Either.isLeft(made)) assert.match(made.left.message, /cacheSize.*whole number/)
    }
    assert.isTrue(Either.isRight(Validator.make({ cacheSize: 1 })))
  })

  it("memory follows cacheSize: a released schema is freed (Ajv keeps what an instance compiled, so instances retire)", async () => {
    const gc = collector()
    const v = Either.getOrThrow(Validator.make({ cacheSize: 16 }))
    const distinct = (i: number) => ({ type: "object", description: `tool ${i}`, properties: { a: { type: "string", pattern: `^x${i}` } } })
    const compileAll = (from: number, to: number) => {
      for (let i = from; i < to; i++) assert.isTrue(Either.getOrThrow(v.compile(distinct(i))).isValid({ a: `x${i}` }))
    }
    const released = (() => {
      const first = distinct(-1)
      assert.isTrue(Either.isRight(v.compile(first)))
      return new WeakRef(first)
    })()
    compileAll(0, 600)
    // a WeakRef holds its target until the current job ends
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc()
    assert.isUndefined(released.deref(), "a schema released from the cache was still held")
    // and the heap stays flat as distinct schemas keep coming (it grew ~12 KB per schema before)
    const heap = () => (gc(), process.memoryUsage().heapUsed)
    const before = heap()
    compileAll(600, 3_600)
    assert.isBelow(heap() - before, 12_000_000)
  })

  it("two different schemas with the same $id both compile and keep their meaning", () => {
    const a = compiled({ $id: "https://example.com/same", type: "string" })
    const b = compiled({ $id: "https://example.com/same", type: "integer" })
    assert.isTrue(a.isValid("s") && !a.isValid(1))
    assert.isTrue(b.isValid(1) && !b.isValid("s"))
  })

  it("a schema embedding a resource whose $id an instance already holds with other content compiles and keeps its meaning", () => {
    // Ajv says "resolves to more than one schema" here, not "already exists": it is a clash all the same
    const v = Either.getOrThrow(Validator.make())
    const root = { $id: "https://example.com/embedded", type: "string" }
    const embedding = { $defs: { x: { $id: "https://example.com/embedded", type: "integer" } }, properties: { n: { $ref: "https://example.com/embedded" } } }
    const a = Either.getOrThrow(v.compile(root))
    const b = v.compile(embedding)
    assert.isTrue(Either.isRight(b), Either.isLeft(b) ? b.left.message : "")
    const alone = Either.getOrThrow(Either.getOrThrow(Validator.make()).compile(structuredClone(embedding)))
    for (const c of [Either.getOrThrow(b), alone]) {
      assert.isTrue(c.isValid({ n: 1 }) && !c.isValid({ n: "s" }))
      assert.deepStrictEqual(c.validate({ n: "s" }).map((i) => [i.field, i.expected]), [["n", "integer"]])
    }
    assert.isTrue(a.isValid("s") && !a.isValid(1))
  })

  it("one schema's $id never answers another schema's $ref: the result does not depend on what compiled before", () => {
    const v = Either.getOrThrow(Validator.make())
    const ref = { type: "object", properties: { x: { $ref: "https://example.com/planted" } } }
    const planted = { $id: "https://example.com/planted", type: "string" }
    const before = v.compile(structuredClone(ref))
    assert.isTrue(Either.isRight(v.compile(planted)))
    // an equal copy would be the cached failure: this one differs, so it is compiled after `planted`
    const after = v.compile({ ...structuredClone(ref), description: "compiled after the $id was registered" })
    for (const r of [before, after]) {
      assert.isTrue(Either.isLeft(r))
      if (Either.isLeft(r)) assert.match(r.left.message, /Cannot resolve reference `https:\/\/example\.com\/planted`/)
    }
    // the same through the module-level validator, and a relative reference the same way
    Validator.compile({ $id: "https://example.com/tools/a.json", type: "integer" })
    const relative = Validator.compile({ $id: "https://example.com/tools/b.json", properties: { n: { $ref: "a.json" } } })
    assert.isTrue(Either.isLeft(relative))
  })

  it("a schema compiled alone is still checked against its meta-schema, and says where it is invalid", () => {
    const v = Either.getOrThrow(Validator.make({ remotes: { "https://example.com/remote": { type: "integer" } } }))
    const invalid = v.compile({ properties: { n: { $ref: "https://example.com/remote" }, m: { minLength: -1 } } })
    assert.isTrue(Either.isLeft(invalid))
    if (Either.isLeft(invalid)) {
      assert.match(invalid.left.message, /^Invalid schema at `\/properties\/m\/minLength`/)
      assert.strictEqual(invalid.left.path, "/properties/m/minLength")
    }
    const unknownMeta = v.compile({ $schema: "https://example.com/no-such-meta", $ref: "https://example.com/remote" })
    assert.isTrue(Either.isLeft(unknownMeta))
  })

  it("ownMetaCheck: the same results as Ajv's own check of the meta-schema, on the shared instance and alone", () => {
    const own = Either.getOrThrow(Validator.make({ ownMetaCheck: true, optimize: false }))
    const ajvs = Either.getOrThrow(Validator.make({ optimize: false }))
    const schemas: ReadonlyArray<JsonSchema.JsonSchema> = [
      { type: "object", properties: { a: { type: "string", minLength: 1 } }, required: ["a"] },
      { properties: { m: { minLength: -1 } } } as never,
      { minimum: "5" } as never,
      { $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }], additionalItems: false },
      { $schema: "http://json-schema.org/draft-07/schema#", enum: [] },
      { $schema: "https://example.com/no-such-meta", type: "string" },
      { $id: "https://example.com/own", properties: { n: { $ref: "https://example.com/own#/$defs/x" } }, $defs: { x: { type: "integer" } } },
      { properties: { n: { $ref: "https://example.com/elsewhere" }, m: { maxItems: 1.5 } } } as never
    ]
    for (const s of schemas) {
      const a = own.compile(s), b = ajvs.compile(structuredClone(s))
      assert.strictEqual(Either.isRight(a), Either.isRight(b), JSON.stringify(s))
      if (Either.isLeft(a) && Either.isLeft(b)) assert.deepStrictEqual([a.left.message, a.left.path], [b.left.message, b.left.path])
      if (Either.isRight(a) && Either.isRight(b)) for (const v of [{ a: "x" }, { a: "" }, {}, ["s"], ["s", 1], 3, { n: 1 }]) assert.strictEqual(a.right.isValid(v), b.right.isValid(v))
    }
  })

  it("a $ref to a configured remote resolves, on a validator made with it", () => {
    const v = Either.getOrThrow(Validator.make({ remotes: { "https://example.com/remote": { type: "integer" } } }))
    const c = Either.getOrThrow(v.compile({ properties: { n: { $ref: "https://example.com/remote" } } }))
    assert.isTrue(c.isValid({ n: 1 }) && !c.isValid({ n: "s" }))
    assert.deepStrictEqual(c.validate({ n: "s" }).map((i) => [i.field, i.keyword]), [["n", "type"]])
  })

  it("a schema that declares one $id twice with two contents is refused for that, not as a clash", () => {
    const twice = { $defs: { a: { $id: "https://example.com/twice", type: "string" }, b: { $id: "https://example.com/twice", type: "integer" } } }
    const c = Either.getOrThrow(Validator.make()).compile(twice)
    assert.isTrue(Either.isLeft(c))
    if (Either.isLeft(c)) assert.match(c.left.message, /resolves to more than one schema/)
  })
})

describe("Validator.compileAt", () => {
  it("compiles a subschema, resolving $refs against the root", () => {
    const root = { $defs: { name: { type: "string", minLength: 2 } }, properties: { user: { properties: { name: { $ref: "#/$defs/name" } } }, "a/b": { type: "integer" } } }
    const at = Validator.compileAt(root, "/properties/user")
    assert.isTrue(Either.isRight(at))
    if (Either.isRight(at)) {
      assert.isTrue(at.right.isValid({ name: "ok" }))
      assert.deepStrictEqual(at.right.validate({ name: "x" }).map((i) => i.field), ["name"])
    }
    const escaped = Validator.compileAt(root, "/properties/a~1b")
    assert.isTrue(Either.isRight(escaped) && escaped.right.isValid(1) && !escaped.right.isValid("1"))
    assert.strictEqual(Validator.compileAt(root, ""), Validator.compile(root))
  })

  it("is a SchemaError for a pointer to nothing or to a non-schema", () => {
    const missing = Validator.compileAt(tool, "/properties/nope")
    assert.isTrue(Either.isLeft(missing) && missing.left.path === "/properties/nope")
    assert.isTrue(Either.isLeft(Validator.compileAt(tool, "/required")))
    assert.isTrue(Either.isLeft(Validator.compileAt(tool, "/__proto__")))
  })

  it("is a SchemaError, not a throw, for a pointer of the wrong type", () => {
    const trap = new Proxy({}, { get: () => { throw new Error("trap") } })
    for (const pointer of [null, undefined, 5, Symbol("p"), trap, ["properties"]]) {
      const r = Validator.compileAt(tool, pointer as never)
      assert.isTrue(Either.isLeft(r) && r.left.message === "The pointer must be a string.", String(typeof pointer))
    }
  })
})

describe("SchemaError", () => {
  const left = (u: unknown) => {
    const c = Validator.compile(u as JsonSchema.JsonSchema)
    assert.isTrue(Either.isLeft(c), String(u))
    return Either.isLeft(c) ? c.left : undefined
  }

  it("names an invalid keyword value and where it is", () => {
    const e = left({ properties: { a: { type: 12 } } })
    assert.strictEqual(e?._tag, "SchemaError")
    assert.strictEqual(e?.path, "/properties/a/type")
  })

  it("covers a bad regex, an unresolvable $ref, $async and non-schemas", () => {
    assert.match(left({ pattern: "(" })?.message ?? "", /Invalid regular expression/)
    assert.match(left({ $ref: "#/$defs/missing" })?.message ?? "", /Cannot resolve reference/)
    assert.match(left({ $ref: "https://example.com/elsewhere.json" })?.message ?? "", /Cannot resolve reference/)
    assert.strictEqual(left({ $async: true })?.path, "/$async")
    for (const u of [null, undefined, 5, "string", [], new Date(), { $schema: "http://example.com/unknown-meta" }]) left(u)
  })

  it("a 10,000-level schema or a cyclic object is an error, not a throw", () => {
    let s: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 10_000; i++) s = { properties: { a: s } }
    const deep = Validator.compile(s as JsonSchema.JsonSchema)
    assert.isTrue(Either.isLeft(deep) || deep.right.isValid({}))
    const cyclic: Record<string, unknown> = { properties: {} }
    ;(cyclic["properties"] as Record<string, unknown>)["self"] = cyclic
    left(cyclic)
  })

  it("an object whose getters or proxy traps throw is an error, not a throw", () => {
    const getter = Object.defineProperty({}, "type", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.match(left(getter)?.message ?? "", /boom|could not be read/)
    const proxy = new Proxy({}, { getPrototypeOf: () => { throw new Error("trap") }, ownKeys: () => { throw new Error("trap") } })
    left(proxy)
  })

  it("make: options whose getters or proxy traps throw, a revoked proxy, a cacheSize that is not a number are a SchemaError, not a throw", () => {
    const trap = () => {
      throw new Error("trap")
    }
    const throwing = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap })
    const r = Proxy.revocable({}, {})
    r.revoke()
    const cases = [throwing, r.proxy, { remotes: throwing }, { remotes: r.proxy }, { cacheSize: throwing }, { cacheSize: "12" }]
    cases.forEach((options, i) => {
      const made = Validator.make(options as never)
      assert.isTrue(Either.isLeft(made) && made.left._tag === "SchemaError", `case ${i}`)
    })
  })

  it("a __proto__ member nested past the stack is a SchemaError saying so", () => {
    const depth = 20_000
    const deep = JSON.parse("{\"properties\":{\"__proto__\":".repeat(depth) + "{}" + "}}".repeat(depth))
    assert.match(left(deep)?.message ?? "", /nested too deeply/)
  })

  it("an unknown format is ignored, as an annotation (tools publish formats of their own)", () => {
    const c = compiled({ type: "string", format: "file-path" })
    assert.isTrue(c.isValid("anything"))
    assert.isFalse(c.isValid(3))
  })
})

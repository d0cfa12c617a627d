import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { JsonSchema } from "../src/JsonSchema.js"
import * as RefAware from "../src/RefAware.js"
import * as Validator from "../src/Validator.js"

const REF = RefAware.refSchema
const wrapped = (s: unknown): any => ({ anyOf: [s, REF] })
const accepts = (schema: JsonSchema, value: unknown): boolean => {
  const c = Validator.compile(schema)
  if (Either.isLeft(c)) throw new Error(c.left.message)
  return c.right.isValid(value)
}
const prototypesClean = () => {
  for (const proto of [Object.prototype, Array.prototype]) {
    for (const k of ["$tool", "polluted", "type", "anyOf", "a"]) assert.isFalse(Object.hasOwn(proto, k), k)
  }
}
const deepFreeze = <A>(a: A): A => {
  if (typeof a === "object" && a !== null) {
    for (const v of Object.values(a)) deepFreeze(v)
    Object.freeze(a)
  }
  return a
}
const str = { type: "string" } as const
const int = { type: "integer" } as const

describe("RefAware.refSchema and isRef", () => {
  const good = [{ $tool: "c1" }, { $tool: "c1", $path: "result.city" }, { $tool: "c1", $artifact: "a1" }, { $tool: "c", $path: "", $artifact: "" }]
  const bad: Array<unknown> = [
    {}, { $tool: "" }, { $tool: 1 }, { $tool: null }, { $tool: "c", extra: 1 }, { $tool: "c", $path: 3 },
    { $tool: "c", $artifact: {} }, { $path: "x" }, [{ $tool: "c" }], null, "c1", 1, true, undefined
  ]

  it("the schema is a closed object with a required non-empty $tool and optional string $path/$artifact", () => {
    assert.deepStrictEqual(REF["required"], ["$tool"])
    assert.strictEqual(REF["additionalProperties"], false)
    assert.deepStrictEqual(Object.keys(REF["properties"] as object), ["$tool", "$path", "$artifact"])
    for (const v of good) assert.isTrue(accepts(REF, v), JSON.stringify(v))
    for (const v of bad) assert.isFalse(accepts(REF, v), JSON.stringify(v))
    assert.isTrue(Object.isFrozen(REF) && Object.isFrozen(REF["properties"]))
  })

  it("isRef agrees with the schema", () => {
    for (const v of good) assert.isTrue(RefAware.isRef(v), JSON.stringify(v))
    for (const v of bad) assert.isFalse(RefAware.isRef(v), JSON.stringify(v))
  })

  it("readRef also reads strict-mode nulls as absent; isRef does not", () => {
    const strict = { $tool: "c1", $path: null, $artifact: null }
    assert.isFalse(RefAware.isRef(strict))
    assert.deepStrictEqual(RefAware.readRef(strict), { $tool: "c1" })
    assert.deepStrictEqual(RefAware.readRef({ $tool: "c1", $path: "r.x", $artifact: null }), { $tool: "c1", $path: "r.x" })
    assert.isUndefined(RefAware.readRef({ $tool: null }))
    assert.isUndefined(RefAware.readRef({ $tool: "c", other: null }))
  })

  it("hostile values are not refs and never throw", () => {
    class K {
      $tool = "c1"
    }
    const throwing = Object.defineProperty({}, "$tool", { enumerable: true, get: () => { throw new Error("boom") } })
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error("trap") } })
    const cases: Array<unknown> = [
      new K(), throwing, proxy, JSON.parse('{"$tool":"c","__proto__":{"x":1}}'), JSON.parse('{"__proto__":"c"}'),
      { $tool: "c", constructor: "x" }, Object.create({ $tool: "c" }), () => 1, Symbol("s"), 10n
    ]
    for (const c of cases) {
      assert.isFalse(RefAware.isRef(c))
      assert.isUndefined(RefAware.readRef(c))
    }
    assert.isTrue(RefAware.isRef(Object.assign(Object.create(null), { $tool: "c" })))
    prototypesClean()
  })
})

describe("RefAware.widen: value positions", () => {
  it("wraps every value position as anyOf [original, ref]", () => {
    const a = { type: "number", minimum: 0 }
    const cases: Array<[JsonSchema, (w: any) => unknown, unknown]> = [
      [{ type: "object", properties: { a } }, (w) => w.properties.a, a],
      [{ type: "object", patternProperties: { "^x": a } }, (w) => w.patternProperties["^x"], a],
      [{ type: "object", additionalProperties: a }, (w) => w.additionalProperties, a],
      [{ type: "object", unevaluatedProperties: a }, (w) => w.unevaluatedProperties, a],
      [{ type: "array", items: a }, (w) => w.items, a],
      [{ type: "array", prefixItems: [a, str] }, (w) => w.prefixItems, [wrapped(a), wrapped(str)]],
      [{ type: "array", items: [a], additionalItems: str }, (w) => [w.items, w.additionalItems], [[wrapped(a)], wrapped(str)]],
      [{ type: "array", unevaluatedItems: a }, (w) => w.unevaluatedItems, a],
      [{ type: "array", contains: a }, (w) => w.contains, a]
    ]
    for (const [schema, at, original] of cases) {
      const got = at(RefAware.widen(schema))
      assert.deepStrictEqual(got, Array.isArray(original) ? original : wrapped(original), JSON.stringify(schema))
    }
  })

  it("a ref is accepted at each position, and the base schema rejected it", () => {
    const schema = {
      type: "object",
      properties: { city: str, tags: { type: "array", items: str }, pair: { type: "array", prefixItems: [int, str], items: false } },
      patternProperties: { "^n_": int },
      additionalProperties: { type: "boolean" }
    }
    const w = RefAware.widen(schema)
    const ref = { $tool: "call_1", $path: "result.city" }
    for (const value of [{ city: ref }, { tags: ["a", ref] }, { pair: [ref, ref] }, { n_x: ref }, { other: ref }, { city: "Paris", tags: [ref] }]) {
      assert.isTrue(accepts(w, value), JSON.stringify(value))
      assert.isFalse(accepts(schema, value), JSON.stringify(value))
    }
    assert.isFalse(accepts(w, { pair: [1, "a", ref] }), "items: false still admits no extra item")
    assert.isFalse(accepts(w, { city: { $tool: "" } }))
    assert.isFalse(accepts(w, { city: { $tool: "c", more: 1 } }))
    assert.isFalse(accepts(w, ref), "the root is not a value position")
  })

  it("the root is not wrapped, even when it is a union; its branches are traversed", () => {
    const obj = { type: "object", properties: { a: str } }
    assert.deepStrictEqual(RefAware.widen(obj), { type: "object", properties: { a: wrapped(str) } })
    assert.deepStrictEqual(RefAware.widen({ anyOf: [obj, { type: "null" }] }), {
      anyOf: [{ type: "object", properties: { a: wrapped(str) } }, { type: "null" }]
    })
  })

  it("a pure anyOf gets the ref appended in place (annotations kept); one with constraining siblings is wrapped", () => {
    const pure = { description: "a number or text", anyOf: [int, str] }
    const constrained = { anyOf: [int, str], minimum: 3 }
    const w: any = RefAware.widen({ type: "object", properties: { pure, constrained } })
    assert.deepStrictEqual(w.properties.pure, { description: "a number or text", anyOf: [int, str, REF] })
    assert.deepStrictEqual(w.properties.constrained, wrapped(constrained))
  })

  it("combinators are traversed, not wrapped: nothing is wrapped twice", () => {
    const w: any = RefAware.widen({
      type: "object",
      allOf: [{ properties: { a: str } }, { properties: { a: { minLength: 2 } } }],
      oneOf: [{ properties: { b: int } }],
      properties: { u: { oneOf: [{ type: "object", properties: { c: int } }, str] } }
    })
    assert.deepStrictEqual(w.allOf, [{ properties: { a: wrapped(str) } }, { properties: { a: wrapped({ minLength: 2 }) } }])
    assert.deepStrictEqual(w.oneOf, [{ properties: { b: wrapped(int) } }])
    assert.deepStrictEqual(w.properties.u, wrapped({ oneOf: [{ type: "object", properties: { c: wrapped(int) } }, str] }))
    assert.isTrue(accepts(w, { a: { $tool: "c" }, b: { $tool: "d" }, u: { c: { $tool: "e" } } }))
  })

  it("then/else and dependentSchemas are traversed; not, if and propertyNames are left alone", () => {
    const ifS = { properties: { kind: { const: "a" } } }
    const notS = { properties: { a: { const: "x" } } }
    const names = { maxLength: 5 }
    const w: any = RefAware.widen({
      type: "object", if: ifS, then: { properties: { a: str } }, else: { properties: { b: int } }, not: notS, propertyNames: names,
      dependentSchemas: { a: { properties: { c: int } } }
    })
    assert.strictEqual(w.if, ifS)
    assert.strictEqual(w.not, notS)
    assert.strictEqual(w.propertyNames, names)
    assert.deepStrictEqual(w.then, { properties: { a: wrapped(str) } })
    assert.deepStrictEqual(w.else, { properties: { b: wrapped(int) } })
    assert.deepStrictEqual(w.dependentSchemas, { a: { properties: { c: wrapped(int) } } })
    assert.isTrue(accepts(w, { kind: { $tool: "k" }, a: { $tool: "x" }, b: { $tool: "y" }, c: { $tool: "z" } }))
  })

  it("$defs entries are traversed, not wrapped; a $ref at a value position is wrapped (recursion works)", () => {
    const schema = {
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "object", properties: { name: str, children: { type: "array", items: { $ref: "#/$defs/node" } } } } }
    }
    const w: any = RefAware.widen(schema)
    assert.deepStrictEqual(w.properties.root, wrapped({ $ref: "#/$defs/node" }))
    assert.deepStrictEqual(w.$defs.node.properties.name, wrapped(str))
    assert.deepStrictEqual(w.$defs.node.properties.children.anyOf[0].items, wrapped({ $ref: "#/$defs/node" }))
    const value = { root: { name: "a", children: [{ name: { $tool: "c1" }, children: [{ $tool: "c2" }] }] } }
    assert.isTrue(accepts(w, value))
    assert.isFalse(accepts(schema, value))
    assert.isTrue(accepts(w, { root: { $tool: "c3" } }))
  })

  it("local $ref pointers through wrapped positions are re-pointed to the same subschema", () => {
    const style = { $anchor: "top", type: "object", properties: { color: str } }
    const schema = {
      type: "object",
      properties: {
        data: { type: "object", properties: { style, "my key": int, u: { anyOf: [str, int] } } },
        again: { $ref: "#/properties/data/properties/style" },
        spaced: { $ref: "#/properties/data/properties/my%20key" },
        branch: { $ref: "#/properties/data/properties/u/anyOf/1" },
        guarded: { not: { $ref: "#/properties/data/properties/style" } },
        defs: { $ref: "#/$defs/d" }, anchor: { $ref: "#top" }, whole: { $ref: "#" }
      },
      $defs: { d: { type: "object", properties: { x: { $ref: "#/properties/data/properties/style/properties/color" } } } }
    }
    const w: any = RefAware.widen(schema)
    const at = (s: any) => s.anyOf[0]
    assert.deepStrictEqual(at(w.properties.again), { $ref: "#/properties/data/anyOf/0/properties/style/anyOf/0" })
    assert.deepStrictEqual(at(w.properties.spaced), { $ref: "#/properties/data/anyOf/0/properties/my%20key/anyOf/0" })
    assert.deepStrictEqual(at(w.properties.branch), { $ref: "#/properties/data/anyOf/0/properties/u/anyOf/1" })
    assert.deepStrictEqual(at(w.properties.guarded).not, { $ref: "#/properties/data/anyOf/0/properties/style/anyOf/0" })
    assert.strictEqual(at(w.properties.defs).$ref, "#/$defs/d")
    assert.strictEqual(at(w.properties.anchor).$ref, "#top")
    assert.strictEqual(at(w.properties.whole).$ref, "#")
    assert.deepStrictEqual(w.$defs.d.properties.x, wrapped({ $ref: "#/properties/data/anyOf/0/properties/style/anyOf/0/properties/color/anyOf/0" }))
    assert.deepStrictEqual(RefAware.widen(w), w)
    const value = { data: { style: { color: "red" } }, again: { color: { $tool: "c1" } }, spaced: { $tool: "c2" }, branch: 3, guarded: 1 }
    assert.isTrue(accepts(w, value))
    assert.isFalse(accepts(w, { ...value, again: { color: 1 } }))
    assert.isFalse(accepts(w, { ...value, guarded: { color: "red" } }))
  })

  it("boolean subschemas stay as they are; a boolean root comes back as it is", () => {
    const w: any = RefAware.widen({ type: "object", properties: { t: true, f: false }, additionalProperties: false, items: false })
    assert.deepStrictEqual(w, { type: "object", properties: { t: true, f: false }, additionalProperties: false, items: false })
    assert.strictEqual(RefAware.widen(true), true)
    assert.strictEqual(RefAware.widen(false), false)
    assert.isFalse(accepts(w, { g: { $tool: "c" } }), "additionalProperties: false admits no ref under a new key")
  })

  it("a ref schema already in the input is neither wrapped nor widened inside", () => {
    const copy = JSON.parse(JSON.stringify(REF))
    const w: any = RefAware.widen({ type: "object", properties: { r: copy, s: { anyOf: [str, copy] } } })
    assert.strictEqual(w.properties.r, copy)
    assert.deepStrictEqual(w.properties.s, { anyOf: [str, copy] })
  })

  it("is idempotent and leaves the input untouched, sharing the subtrees it did not change", () => {
    const leaf = { type: "string", enum: ["a", "b"] }
    const input = deepFreeze({
      type: "object",
      properties: { a: leaf, b: { anyOf: [int, { type: "array", items: leaf }] }, c: { type: "object", additionalProperties: leaf } },
      $defs: { d: { type: "array", prefixItems: [leaf] } }
    })
    const before = JSON.stringify(input)
    const once: any = RefAware.widen(input)
    assert.deepStrictEqual(RefAware.widen(once), once)
    assert.strictEqual(JSON.stringify(input), before)
    assert.strictEqual(once.properties.a.anyOf[0], leaf)
  })

  it("no anyOf branch is a union holding the ref: the ref branch is spliced flat, once", () => {
    const w = RefAware.widen({
      type: "object",
      properties: { a: { anyOf: [{ anyOf: [int, str] }, { type: "null" }] }, b: { type: ["string", "null"] }, c: { oneOf: [int, str] } }
    })
    const anyOfs: Array<ReadonlyArray<unknown>> = []
    const walk = (u: unknown): void => {
      if (typeof u !== "object" || u === null) return
      if (!Array.isArray(u) && Array.isArray((u as any).anyOf)) anyOfs.push((u as any).anyOf)
      for (const v of Object.values(u)) walk(v)
    }
    walk(w)
    for (const list of anyOfs) {
      assert.isAtMost(list.filter((b) => b === REF).length, 1)
      for (const b of list) assert.isFalse(Array.isArray((b as any)?.anyOf) && (b as any).anyOf.includes(REF))
    }
    assert.strictEqual(anyOfs.filter((l) => l.includes(REF)).length, 3)
  })
})

describe("RefAware.widen: hostile input", () => {
  it("__proto__ and constructor property names are ordinary names; no prototype is touched", () => {
    const input = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"$defs":{"__proto__":{"properties":{"__proto__":{"type":"null"}}}}}')
    const w: any = RefAware.widen(input)
    assert.isTrue(Object.hasOwn(w.properties, "__proto__"))
    assert.deepStrictEqual(w.properties["__proto__"], wrapped(str))
    assert.deepStrictEqual(w.properties.constructor, wrapped(int))
    assert.deepStrictEqual(w.$defs["__proto__"].properties["__proto__"], wrapped({ type: "null" }))
    assert.strictEqual(Object.getPrototypeOf(w.properties), Object.prototype)
    assert.isTrue(accepts(w, JSON.parse('{"__proto__":{"$tool":"c"},"constructor":7}')))
    prototypesClean()
  })

  it("10,000 levels of nesting through properties, items and allOf", () => {
    let s: any = str
    for (let i = 0; i < 10_000; i++) s = i % 3 === 0 ? { type: "object", properties: { a: s } } : i % 3 === 1 ? { type: "array", items: s } : { allOf: [s] }
    let w: any = RefAware.widen(s)
    let wraps = 0
    for (;;) {
      if (Array.isArray(w.anyOf) && w.anyOf[1] === REF) {
        wraps++
        w = w.anyOf[0]
      } else if (w.properties) w = w.properties.a
      else if (w.items) w = w.items
      else if (w.allOf) w = w.allOf[0]
      else break
    }
    assert.deepStrictEqual(w, str)
    assert.strictEqual(wraps, 6667)
  })

  it("non-schemas, cycles and unreadable objects come back as they are", () => {
    for (const v of [null, [], 1, "x", undefined] as Array<any>) assert.strictEqual(RefAware.widen(v), v)
    const cyc: any = { type: "object", properties: {} }
    cyc.properties.self = cyc
    cyc.properties.x = str
    const w: any = RefAware.widen(cyc)
    assert.deepStrictEqual(w.properties.x, wrapped(str))
    assert.strictEqual(w.properties.self, cyc)
    const throwing = Object.defineProperty({ type: "object" }, "properties", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.strictEqual(RefAware.widen(throwing as any), throwing)
    const proxy = new Proxy({ type: "object" }, { ownKeys: () => { throw new Error("trap") } })
    assert.strictEqual(RefAware.widen(proxy as any), proxy)
    class Schema {
      type = "object"
    }
    const inst = new Schema()
    assert.strictEqual((RefAware.widen({ type: "object", properties: { i: inst } } as any) as any).properties.i, inst)
  })
})

describe("RefAware.refs", () => {
  it("lists every ref in document order with its pointer and field", () => {
    const args = {
      city: { $tool: "c1", $path: "result.city" },
      filters: [{ name: "x", value: { $tool: "c2" } }, { $tool: "c3", $artifact: "a9" }],
      "a/b": { "~k": { $tool: "c4" } },
      plain: { $tool: "c5", note: "not a ref: another key" }
    }
    assert.deepStrictEqual(RefAware.refs(args), [
      { path: "/city", field: "city", ref: { $tool: "c1", $path: "result.city" } },
      { path: "/filters/0/value", field: "filters.0.value", ref: { $tool: "c2" } },
      { path: "/filters/1", field: "filters.1", ref: { $tool: "c3", $artifact: "a9" } },
      { path: "/a~1b/~0k", field: "a/b.~k", ref: { $tool: "c4" } }
    ])
  })

  it("the whole arguments can be a ref; it does not look inside a ref; strict-mode nulls read as absent", () => {
    assert.deepStrictEqual(RefAware.refs({ $tool: "c1" }), [{ path: "", field: "", ref: { $tool: "c1" } }])
    assert.deepStrictEqual(RefAware.refs({ a: { $tool: "c1", $path: null, $artifact: null } }), [{ path: "/a", field: "a", ref: { $tool: "c1" } }])
    assert.deepStrictEqual(RefAware.refs({ a: { $tool: "" }, b: "c1", c: null, d: [1, true] }), [])
  })

  it("hostile arguments: __proto__ keys, 10,000 levels, cycles, class instances, unreadable objects", () => {
    assert.deepStrictEqual(RefAware.refs(JSON.parse('{"__proto__":{"$tool":"c1"},"constructor":{"$tool":"c2"}}')), [
      { path: "/__proto__", field: "__proto__", ref: { $tool: "c1" } },
      { path: "/constructor", field: "constructor", ref: { $tool: "c2" } }
    ])
    let deep: unknown = { $tool: "deep" }
    for (let i = 0; i < 10_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep }
    const found = RefAware.refs(deep)
    assert.strictEqual(found.length, 1)
    assert.strictEqual(found[0]!.path.split("/").length, 10_001)
    assert.strictEqual(found[0]!.field.split(".").length, 10_000)
    const cyc: any = { a: { $tool: "c1" } }
    cyc.self = cyc
    cyc.list = [cyc]
    assert.deepStrictEqual(RefAware.refs(cyc), [{ path: "/a", field: "a", ref: { $tool: "c1" } }])
    const shared = { $tool: "c9", $path: "result" }
    assert.deepStrictEqual(RefAware.refs({ a: shared, b: [shared, shared] }).map((r) => r.path), ["/a", "/b/0", "/b/1"])
    let dag: unknown = { leaf: 1 }
    for (let i = 0; i < 40; i++) dag = { l: dag, r: dag }
    assert.deepStrictEqual(RefAware.refs(dag), [], "2^40 places: past the revisit budget, unreadable")
    class Box {
      inner = { $tool: "c1" }
    }
    assert.deepStrictEqual(RefAware.refs({ box: new Box(), m: new Map([["k", { $tool: "c" }]]) }), [])
    const throwing = Object.defineProperty({}, "x", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.deepStrictEqual(RefAware.refs({ a: { $tool: "c1" }, t: throwing }), [])
    for (const v of [null, undefined, 1, "s", () => 1]) assert.deepStrictEqual(RefAware.refs(v), [])
    prototypesClean()
  })
})

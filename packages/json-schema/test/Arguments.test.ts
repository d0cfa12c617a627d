import { assert, describe, it } from "@effect/vitest"
import { Arguments, type JsonSchema } from "@toolgate/json-schema"

type Schema = JsonSchema.JsonSchema

const weather: Schema = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    days: { type: "integer", minimum: 1 },
    units: { type: "string", enum: ["metric", "imperial"] }
  },
  required: ["city"],
  additionalProperties: false
}

const issuesOf = (r: Arguments.Prepared) => {
  assert.strictEqual(r._tag, "Invalid", JSON.stringify(r))
  return (r as Arguments.Invalid).issues
}

const valueOf = (r: Arguments.Prepared) => {
  assert.strictEqual(r._tag, "Valid", JSON.stringify(r))
  return (r as Arguments.Valid).value
}

describe("Arguments.prepare: raw input", () => {
  it("reads a JSON string as providers stream it", () => {
    assert.deepStrictEqual(valueOf(Arguments.prepare(weather, "{\"city\": \"Oslo\", \"days\": 3}")), { city: "Oslo", days: 3 })
  })
  it("null, omitted and \"\" are {} for an object schema", () => {
    const open: Schema = { type: "object", properties: { verbose: { type: "boolean" } } }
    for (const raw of [null, undefined, "", "  \n"]) assert.deepStrictEqual(valueOf(Arguments.prepare(open, raw)), {})
    assert.deepStrictEqual(valueOf(Arguments.prepare({ properties: {} }, null)), {})
    assert.deepStrictEqual(valueOf(Arguments.prepare({ type: ["object", "null"] }, undefined)), {})
    const missing = issuesOf(Arguments.prepare(weather, null))
    assert.strictEqual(missing[0]!.keyword, "required")
  })
  it("null stays null for a schema that is not an object schema", () => {
    assert.strictEqual(valueOf(Arguments.prepare(true, null)), null)
    issuesOf(Arguments.prepare({ type: "string" }, undefined))
  })
  it("unparseable JSON is Invalid and says where it broke", () => {
    const truncated = issuesOf(Arguments.prepare(weather, "{\"city\": \"Os"))
    assert.strictEqual(truncated.length, 1)
    assert.strictEqual(truncated[0]!.keyword, "json")
    assert.match(truncated[0]!.message, /not valid JSON.*stop after 12 characters.*truncated/)
    const broken = issuesOf(Arguments.prepare(weather, "{\"city\": \"Oslo\",\n \"days\" 3}"))
    assert.match(broken[0]!.message, /line 2, column 9/)
    assert.match(broken[0]!.message, /near `.*"days" 3/)
  })
  it("a parsed value that is not JSON is Invalid, naming where", () => {
    class Point {
      x = 1
    }
    const cyclic: Record<string, unknown> = { city: "x" }
    cyclic.self = cyclic
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [{ city: () => "Oslo" }, /a function at `city`/],
      [{ city: "x", days: Number.NaN }, /the number NaN at `days`/],
      [{ city: "x", days: Infinity }, /the number Infinity/],
      [new Point(), /an instance of Point/],
      [{ city: new Date(0) }, /an instance of Date at `city`/],
      [cyclic, /a cycle .* at `self`/],
      [{ city: "x", days: undefined }, /undefined at `days`/],
      [{ city: [1, , 3] }, /holes/],
      [{ city: 10n }, /a bigint/],
      [Symbol("x"), /a symbol/]
    ]
    for (const [raw, message] of cases) {
      const issues = issuesOf(Arguments.prepare(weather, raw))
      assert.match(issues[0]!.message, message)
    }
  })
  it("a cycle deep inside is found without blowing up, fan-out or not", () => {
    const a: Record<string, unknown> = {}
    a.left = a
    a.right = a
    let deep: Record<string, unknown> = { tail: a }
    for (let i = 0; i < 100; i++) deep = { next: deep }
    assert.match(issuesOf(Arguments.prepare({ type: "object" }, deep))[0]!.message, /cycle/)
  })
  it("a null-prototype object is a plain JSON object", () => {
    const o = Object.assign(Object.create(null) as object, { city: "Oslo" })
    assert.deepStrictEqual(valueOf(Arguments.prepare(weather, o)), { city: "Oslo" })
  })
  it("a getter is read like a data property, on every read: the value is Valid as it is, not a copy", () => {
    let reads = 0
    const o = Object.defineProperty({}, "city", { enumerable: true, get: () => (reads++, "Oslo") })
    assert.strictEqual(valueOf(Arguments.prepare(weather, o)), o)
    // the proof that it is JSON and the validation each read it: plain data is what `prepare` can vouch for
    assert.isAbove(reads, 1)
  })
  it("a getter that throws is Invalid, not a throw", () => {
    const o = Object.defineProperty({}, "city", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.match(issuesOf(Arguments.prepare(weather, o))[0]!.message, /could not be read.*boom/)
  })
  it("reads what JSON.stringify reads: symbol keys and non-enumerable members are not the arguments; a proxy is read through its traps", () => {
    const withSymbol = { city: "Oslo", [Symbol("s")]: Number.NaN }
    assert.strictEqual(valueOf(Arguments.prepare(weather, withSymbol)), withSymbol)
    const hidden = Object.defineProperty({ city: "Oslo" }, "note", { enumerable: false, value: Number.NaN })
    assert.strictEqual(valueOf(Arguments.prepare(weather, hidden)), hidden)
    const proxied = new Proxy({ city: "Oslo", days: 2 }, {})
    assert.strictEqual(valueOf(Arguments.prepare(weather, proxied)), proxied)
    const nanBehind = new Proxy({ city: "Oslo" }, { get: (t, k) => k === "city" ? Number.NaN : Reflect.get(t, k) })
    assert.match(issuesOf(Arguments.prepare(weather, nanBehind))[0]!.message, /the number NaN at `city`/)
    const noKeys = new Proxy({ city: "Oslo" }, { ownKeys: () => { throw new Error("no keys") } })
    assert.match(issuesOf(Arguments.prepare(weather, noKeys))[0]!.message, /could not be read.*no keys/)
  })
})

describe("Arguments.prepare: policies", () => {
  const near = { city: "Oslo", days: "3", units: "Metric" }
  it("lenient (the default) repairs and reports each repair", () => {
    const r = Arguments.prepare(weather, near)
    assert.deepStrictEqual(valueOf(r), { city: "Oslo", days: 3, units: "metric" })
    assert.deepStrictEqual((r as Arguments.Valid).coercions.map((c) => c.rule), ["string-to-integer", "enum-case"])
  })
  it("strict validates only and names every field", () => {
    const issues = issuesOf(Arguments.prepare(weather, near, { policy: "strict" }))
    assert.deepStrictEqual(issues.map((i) => i.field).sort(), ["days", "units"])
    const ok = { city: "Oslo", units: "metric", days: 2 }
    const r = Arguments.prepare(weather, ok, { policy: "strict" })
    assert.strictEqual(valueOf(r), ok)
  })
  it("strict keeps empty optional fillers: the value is the model's own", () => {
    const v = { city: "Oslo", units: "" }
    issuesOf(Arguments.prepare(weather, v, { policy: "strict" }))
    const open: Schema = { type: "object", properties: { note: { type: "string" } } }
    assert.deepStrictEqual(valueOf(Arguments.prepare(open, { note: "" }, { policy: "strict" })), { note: "" })
    assert.deepStrictEqual(valueOf(Arguments.prepare(open, { note: "" })), {})
  })
  it("issues after coercion speak of what is still wrong", () => {
    const issues = issuesOf(Arguments.prepare(weather, { days: "0", units: "kelvin" }))
    assert.deepStrictEqual(issues.map((i) => [i.field, i.keyword]).sort(), [["city", "required"], ["days", "minimum"], ["units", "enum"]])
  })
  it("a valid value comes back as the same reference with no coercions", () => {
    const v = { city: "Oslo", days: 2 }
    const r = Arguments.prepare(weather, v) as Arguments.Valid
    assert.strictEqual(r.value, v)
    assert.strictEqual(r.coercions.length, 0)
  })
  it("dropping a filler that would make the value invalid keeps the value", () => {
    const s: Schema = { type: "object", properties: { a: { type: "string" } }, minProperties: 1 }
    assert.deepStrictEqual(valueOf(Arguments.prepare(s, { a: "" })), { a: "" })
  })
})

describe("Arguments.prepare: fromStrictProvider", () => {
  const local: Schema = {
    type: "object",
    properties: { query: { type: "string" }, limit: { type: "integer" }, cursor: { type: ["string", "null"] } },
    required: ["query"],
    additionalProperties: false
  }
  it("drops nulls on optional, non-nullable properties first, under both policies", () => {
    for (const policy of ["lenient", "strict"] as const) {
      const r = Arguments.prepare(local, "{\"query\": \"q\", \"limit\": null, \"cursor\": null}", { policy, fromStrictProvider: true })
      assert.deepStrictEqual(valueOf(r), { query: "q", cursor: null }, policy)
      assert.deepStrictEqual((r as Arguments.Valid).coercions.map((c) => [c.path, c.rule]), [["/limit", "drop-strict-null"]])
    }
  })
  it("keeps a null on a required property, and does nothing without the option", () => {
    issuesOf(Arguments.prepare(local, { query: null }, { fromStrictProvider: true }))
    issuesOf(Arguments.prepare(local, { query: "q", limit: null }))
  })
})

describe("Arguments.prepare: schema errors and hostile input", () => {
  it("a schema that cannot be compiled is a SchemaError value, not blame on the model", () => {
    const r = Arguments.prepare({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, {})
    assert.strictEqual(r._tag, "SchemaError")
    assert.strictEqual(Arguments.prepare({ type: "string", pattern: "([" }, "\"x\"")._tag, "SchemaError")
  })
  it("a value that is not a schema at all is a SchemaError too", () => {
    for (const schema of [null, 42, "object", [], undefined]) {
      assert.strictEqual(Arguments.prepare(schema as unknown as Schema, {})._tag, "SchemaError", String(schema))
    }
  })
  it("10,000-level nesting neither throws nor passes silently when the schema recurses", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const tree: Schema = { $defs: { t: { type: "array", items: { $ref: "#/$defs/t" } } }, $ref: "#/$defs/t" }
    const r = Arguments.prepare(tree, deep)
    assert.isTrue(r._tag === "Valid" || (r._tag === "Invalid" && r.issues[0]!.keyword === "depth"))
    const objects = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000)
    const s: Schema = { type: "object", properties: { a: { type: "string" } } }
    assert.strictEqual(Arguments.prepare(s, objects)._tag, "Invalid")
  })
  it("a 10 MB string is handled", () => {
    const big = "x".repeat(10 * 1024 * 1024)
    assert.strictEqual((valueOf(Arguments.prepare(weather, { city: big })) as { city: string }).city.length, big.length)
    assert.strictEqual(Arguments.prepare(weather, { city: "x", days: big })._tag, "Invalid")
    assert.strictEqual(Arguments.prepare(weather, "{\"city\": \"" + big)._tag, "Invalid")
  })
  it("__proto__ and constructor keys stay own keys and pollute nothing", () => {
    const s: Schema = { type: "object", properties: { ["__proto__"]: { type: "integer" }, constructor: { type: "boolean" } } }
    const r = Arguments.prepare(s, "{\"__proto__\": \"1\", \"constructor\": \"yes\", \"toString\": \"x\"}")
    const v = valueOf(r) as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(v), Object.prototype)
    assert.strictEqual(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, 1)
    assert.strictEqual(Object.getOwnPropertyDescriptor(v, "constructor")?.value, true)
    assert.strictEqual(({} as Record<string, unknown>).toString, Object.prototype.toString)
    const closed: Schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }
    const polluted = issuesOf(Arguments.prepare(closed, "{\"__proto__\": {\"admin\": true}}"))
    assert.strictEqual(polluted[0]!.field, "__proto__")
    assert.strictEqual(({} as Record<string, unknown>).admin, undefined)
  })
  it("a call against a 200,000-value enum reads a bounded number of its values: a set lookup, a message listing a dozen", () => {
    // the enum is counted as it is read: once compiled (and its coercion index built), no call scans it
    let armed = false
    let reads = 0
    const values = Array.from({ length: 200_000 }, (_, k) => `v${k}`)
    const counted = new Proxy(values, {
      get: (t, k, r) => {
        if (armed && typeof k === "string" && /^\d+$/.test(k)) reads++
        return Reflect.get(t, k, r)
      }
    })
    const s = { type: "object", properties: { color: { enum: counted, description: "The color." } }, required: ["color"] } as unknown as Schema
    assert.deepStrictEqual(valueOf(Arguments.prepare(s, { color: "V5" })), { color: "v5" })
    armed = true
    assert.deepStrictEqual(valueOf(Arguments.prepare(s, { color: "V7" })), { color: "v7" })
    assert.deepStrictEqual(valueOf(Arguments.prepare(s, { color: "v199999" })), { color: "v199999" })
    const wrong = issuesOf(Arguments.prepare(s, { color: "nope" }))
    assert.strictEqual(wrong[0]!.expected, "one of: v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, … (199988 more)")
    assert.isBelow(reads, 100)
  }, 120_000)
  it("keepEmptyStrings: an optional \"\" the tool means (clear the body) is kept, on a valid call and on a repaired one; the default drops it", () => {
    const updateIssue: Schema = {
      type: "object",
      properties: { number: { type: "integer" }, title: { type: "string" }, body: { type: "string" } },
      required: ["number"]
    }
    assert.deepStrictEqual(valueOf(Arguments.prepare(updateIssue, { number: 1, body: "" })), { number: 1 })
    assert.deepStrictEqual(valueOf(Arguments.prepare(updateIssue, { number: 1, body: "" }, { keepEmptyStrings: true })), { number: 1, body: "" })
    const repaired = Arguments.prepare(updateIssue, "{\"number\": \"7\", \"body\": \"\", \"title\": \" \"}", { keepEmptyStrings: true })
    assert.deepStrictEqual(valueOf(repaired), { number: 7, body: "", title: " " })
    assert.deepStrictEqual(repaired._tag === "Valid" ? repaired.coercions.map((c) => c.rule) : [], ["string-to-integer"])
    assert.deepStrictEqual(valueOf(Arguments.prepare(updateIssue, "{\"number\": \"7\", \"body\": \"\"}")), { number: 7 })
  })
  it("huge fan-out is fine", () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, String(i)]))
    const s: Schema = { type: "object", additionalProperties: { type: "integer" } }
    const v = valueOf(Arguments.prepare(s, wide)) as Record<string, number>
    assert.strictEqual(v.k99999, 99999)
    assert.strictEqual(wide.k99999, "99999")
  })
})

describe("Arguments.preparer: the schema compiled once", () => {
  it("answers as prepare does, for every kind of raw input and both policies", () => {
    const p = Arguments.preparer(weather)
    const inputs: ReadonlyArray<unknown> = [
      { city: "Oslo" }, "{\"city\": \"Oslo\", \"days\": \"3\"}", { city: "Oslo", days: "3" }, null, undefined, "", "{\"city\"",
      { city: "Oslo", days: Number.NaN }, { city: "Oslo", units: " " }, { city: 1 }, [1], 42
    ]
    for (const raw of inputs) {
      for (const policy of ["lenient", "strict"] as const) {
        assert.deepStrictEqual(p(raw, { policy }), Arguments.prepare(weather, raw, { policy }), `${String(raw)} ${policy}`)
      }
    }
  })
  it("is one function per schema object, and a schema that cannot be compiled gives its SchemaError on every call", () => {
    assert.strictEqual(Arguments.preparer(weather), Arguments.preparer(weather))
    const broken = Arguments.preparer({ type: "string", pattern: "([" })
    assert.strictEqual(broken("\"x\"")._tag, "SchemaError")
    assert.strictEqual(broken({ __proto__: null })._tag, "SchemaError")
    assert.strictEqual(Arguments.preparer(null as unknown as Schema)({})._tag, "SchemaError")
  })
  it("hostile input through a held preparer: throwing getter, cycle, 10,000-level nesting, __proto__ key", () => {
    const p = Arguments.preparer({ type: "object" })
    const getter = Object.defineProperty({}, "a", { enumerable: true, get: () => { throw new Error("boom") } })
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    assert.strictEqual(issuesOf(p(getter))[0]!.keyword, "json")
    assert.match(issuesOf(p(cycle))[0]!.message, /cycle/)
    assert.include(["Valid", "Invalid"], p("{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000))._tag)
    const v = valueOf(p("{\"__proto__\": {\"admin\": true}}")) as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(v), Object.prototype)
    assert.strictEqual(({} as Record<string, unknown>).admin, undefined)
  })
})

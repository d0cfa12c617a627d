/**
 * `ToolgateSchema` on its own: the AI SDK `Schema` it builds and its `validate` (called as the AI SDK calls
 * it, with the value it parsed), the policies, the errors, and hostile values.
 */
import { assert, describe, it } from "@effect/vitest"
import { asSchema } from "ai"
import { FastCheck as fc } from "effect"
import { ToolgateSchema } from "../src/index.js"

const forecast = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    days: { type: "integer", minimum: 1, maximum: 14 },
    metric: { type: "boolean" },
    units: { enum: ["celsius", "fahrenheit"] }
  },
  required: ["city", "days"],
  additionalProperties: false
} as const

const validate = ToolgateSchema.validator(forecast)

/** The issues' sentences, or the valid value, of one result. */
const outcome = (result: ToolgateSchema.Result<unknown>) => result.success ? { value: result.value } : { error: result.error }

describe("make", () => {
  it("is an AI SDK Schema: the JSON Schema as written, and a validate", async () => {
    const schema = ToolgateSchema.make(forecast)
    assert.strictEqual(await asSchema(schema).jsonSchema, forecast)
    assert.isFunction(schema.validate)
  })

  it("a schema that does not compile throws InvalidSchema when the tool is defined", () => {
    const error = assert.throws(() => ToolgateSchema.make({ type: "object", properties: { a: { type: 12 } } }))
    assert.instanceOf(error, ToolgateSchema.InvalidSchema)
    assert.include(error.message, "does not compile at /properties/a/type")
  })

  it("the validator alone answers a schema error as a failure, never a throw", () => {
    const result = ToolgateSchema.validator({ pattern: "(" })("a")
    assert.isFalse(result.success)
    if (!result.success) assert.instanceOf(result.error, ToolgateSchema.InvalidSchema)
  })
})

describe("hostile schemas", () => {
  it("a schema of the wrong type, 10,000 levels deep, cyclic, or throwing when read: make throws InvalidSchema, the validator answers it, nothing else throws", () => {
    let deep: unknown = { type: "integer" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    const cyclic: Record<string, unknown> = { type: "object", properties: {} }
    ;(cyclic["properties"] as Record<string, unknown>)["a"] = cyclic
    const getter = Object.defineProperty({}, "type", { enumerable: true, get: () => { throw new Error("boom") } })
    const trap = new Proxy({}, { get: () => { throw new Error("trap") }, ownKeys: () => { throw new Error("trap") } })
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [5, /a boolean or a plain object/],
      [null, /a boolean or a plain object/],
      ["{\"type\":\"object\"}", /a boolean or a plain object/],
      [[{ type: "object" }], /a boolean or a plain object/],
      [undefined, /a boolean or a plain object/],
      [deep, /nested too deeply/],
      [cyclic, /nested too deeply/],
      [getter, /could not be read: boom/],
      [trap, /does not compile/]
    ]
    for (const [schema, message] of cases) {
      const error = assert.throws(() => ToolgateSchema.make(schema as never))
      assert.instanceOf(error, ToolgateSchema.InvalidSchema)
      assert.match(error.message, message)
      const result = ToolgateSchema.validator(schema as never)({ a: 1 })
      assert.isFalse(result.success)
      if (!result.success) assert.instanceOf(result.error, ToolgateSchema.InvalidSchema)
    }
  })

  it("a __proto__ property a schema requires is required: without it, the issue names it, nothing is polluted", () => {
    const schema = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":\"integer\"}},\"required\":[\"__proto__\"]}")
    const missing = ToolgateSchema.validator(schema)({})
    assert.isFalse(missing.success)
    if (!missing.success) assert.strictEqual(missing.error.message, "Missing required argument `__proto__` (integer).")
    assert.isFalse("polluted" in {})
  })
})

describe("validate", () => {
  it("coerces leniently by default: \"15\" → 15 where an integer belongs", () => {
    assert.deepStrictEqual(outcome(validate({ city: "Oslo", days: "5", metric: "yes", units: "Celsius" })), {
      value: { city: "Oslo", days: 5, metric: true, units: "celsius" }
    })
  })

  it("strict policy validates only", () => {
    const result = ToolgateSchema.validator(forecast, { policy: "strict" })({ city: "Oslo", days: "5" })
    assert.isFalse(result.success)
    if (!result.success) assert.strictEqual(result.error.message, "Argument `days` must be integer, got string \"5\".")
  })

  it("fromStrictProvider drops the nulls an OpenAI-strict schema made the model send", () => {
    const result = ToolgateSchema.validator(forecast, { policy: "strict", fromStrictProvider: true })({
      city: "Oslo",
      days: 3,
      metric: null,
      units: null
    })
    assert.deepStrictEqual(outcome(result), { value: { city: "Oslo", days: 3 } })
  })

  it("an invalid value fails with InvalidToolInput: every issue, one sentence a line", () => {
    const result = validate({ days: "30", extra: 1 })
    assert.isFalse(result.success)
    if (result.success) return
    const error = result.error as ToolgateSchema.InvalidToolInput
    assert.instanceOf(error, ToolgateSchema.InvalidToolInput)
    assert.deepStrictEqual(error.issues.map((i) => i.keyword).sort(), ["additionalProperties", "maximum", "required"])
    assert.deepStrictEqual(error.message.split("\n").sort(), [
      "Argument `days` must be at most 14; got integer 30.",
      "Missing required argument `city` (string).",
      "Unknown argument `extra`; allowed: city, days, metric, units."
    ])
    assert.match(String(error), /^InvalidToolInput: /)
  })

  it("a string is the model's value, not JSON text; double-encoded arguments are read leniently", () => {
    const text = JSON.stringify({ city: "Oslo", days: "4" })
    assert.deepStrictEqual(outcome(validate(text)), { value: { city: "Oslo", days: 4 } })
    const strict = ToolgateSchema.validator(forecast, { policy: "strict" })(text)
    assert.isFalse(strict.success)
    assert.deepStrictEqual(outcome(ToolgateSchema.validator({ type: "string" })("hello")), { value: "hello" })
    assert.deepStrictEqual(outcome(ToolgateSchema.validator({ type: "string" })("{\"a\":1}")), { value: "{\"a\":1}" })
  })

  it("an empty call is {} for an object schema (the AI SDK sends {} for blank input)", () => {
    assert.deepStrictEqual(outcome(ToolgateSchema.validator({ type: "object", properties: { q: { type: "string" } } })({})), {
      value: {}
    })
    const result = validate(undefined)
    assert.isFalse(result.success)
    if (!result.success) assert.strictEqual(result.error.message, "Missing required argument `city` (string).\nMissing required argument `days` (integer).")
  })
})

describe("issuesOf", () => {
  it("finds toolgate's issues through the AI SDK's cause chain, and nothing elsewhere", () => {
    const issues = [{ path: "/days", field: "days", keyword: "type", expected: "integer", message: "Argument `days` must be integer." }]
    const wrapped = new Error("outer", { cause: new Error("middle", { cause: new ToolgateSchema.InvalidToolInput({ issues }) }) })
    assert.deepStrictEqual(ToolgateSchema.issuesOf(wrapped), issues)
    assert.isUndefined(ToolgateSchema.issuesOf(new Error("other")))
    assert.isUndefined(ToolgateSchema.issuesOf("text"))
    const cyclic: Error & { cause?: unknown } = new Error("loop")
    cyclic.cause = cyclic
    assert.isUndefined(ToolgateSchema.issuesOf(cyclic))
  })
})

describe("hostile values", () => {
  const open = ToolgateSchema.validator({ type: "object", properties: { n: { type: "integer" } } })

  it("__proto__ and constructor are ordinary keys: kept, never polluting a prototype", () => {
    const value = JSON.parse("{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"x\":1}},\"n\":\"2\"}")
    const result = open(value)
    assert.isTrue(result.success)
    if (!result.success) return
    const out = result.value as Record<string, unknown>
    assert.strictEqual(out["n"], 2)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out, "__proto__")?.value, { polluted: true })
    assert.strictEqual(Object.getPrototypeOf(out), Object.prototype)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.strictEqual(value.n, "2", "the input is not mutated")
  })

  it("a closed schema names a __proto__ key as unknown", () => {
    const result = validate(JSON.parse("{\"city\":\"Oslo\",\"days\":2,\"__proto__\":{}}"))
    assert.isFalse(result.success)
    if (!result.success) assert.strictEqual(result.error.message, "Unknown argument `__proto__`; allowed: city, days, metric, units.")
  })

  it("100,000 levels of nesting under a recursive schema: a depth issue, no throw", () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = { n: deep }
    const tree = { $defs: { node: { anyOf: [{ type: "integer" }, { type: "object", properties: { n: { $ref: "#/$defs/node" } } }] } }, $ref: "#/$defs/node" }
    const result = ToolgateSchema.validator(tree)(deep)
    assert.isFalse(result.success)
    if (!result.success) assert.instanceOf(result.error, ToolgateSchema.InvalidToolInput)
  })

  it("a 10 MB string is quoted short in the issue", () => {
    const result = validate({ city: "Oslo", days: "x".repeat(10_000_000) })
    assert.isFalse(result.success)
    if (!result.success) {
      assert.isBelow(result.error.message.length, 200)
      assert.include(result.error.message, "(10000000 characters)")
    }
  })

  it("values that are not JSON are named, not thrown", () => {
    for (const [value, where] of [[{ n: () => 1 }, "function"], [{ n: Number.NaN }, "NaN"], [{ n: new Date(0) }, "Date"]] as const) {
      const result = open(value)
      assert.isFalse(result.success)
      if (!result.success) assert.include(result.error.message, where)
    }
    const cycle: Record<string, unknown> = {}
    cycle["self"] = cycle
    assert.isFalse(open(cycle).success)
    const getter = Object.defineProperty({}, "n", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.isFalse(open(getter).success)
  })
})

describe("properties", () => {
  const city = fc.string({ minLength: 1 }).filter((s) => s.trim() !== "")
  const validArgs = fc.record(
    {
      city,
      days: fc.integer({ min: 1, max: 14 }),
      metric: fc.boolean(),
      units: fc.constantFrom("celsius", "fahrenheit")
    },
    { requiredKeys: ["city", "days"] }
  )

  it.prop("any valid argument object passes unchanged (the same object)", [validArgs], ([args]) => {
    const result = validate(args)
    assert.isTrue(result.success)
    if (result.success) assert.strictEqual(result.value, args)
  })

  it.prop("any integer written as a string is coerced, then judged by the bounds", [city, fc.integer({ min: -1e6, max: 1e6 })], ([c, n]) => {
    const result = validate({ city: c, days: String(n) })
    if (n >= 1 && n <= 14) assert.deepStrictEqual(outcome(result), { value: { city: c, days: n } })
    else {
      assert.isFalse(result.success)
      if (!result.success) assert.match(result.error.message, new RegExp(`^Argument \`days\` must be at (least 1|most 14); got integer ${n}\\.$`))
    }
  })

  it.prop("strict never changes a value", [fc.dictionary(fc.string(), fc.jsonValue()).map((d): unknown => d)], ([args]) => {
    const result = ToolgateSchema.validator({ type: "object" }, { policy: "strict" })(args)
    assert.isTrue(result.success)
    if (result.success) assert.strictEqual(result.value, args)
  })
})

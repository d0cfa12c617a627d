import { assert, describe, it } from "@effect/vitest"
import { tools as loadTools, type Tool } from "./suite.js"
import { Arguments, JsonSchema, type JsonValue } from "@toolgate/json-schema"

// The corpus is part of the repository (corpus/, with SOURCES.md and the licence files).
const tools: ReadonlyArray<Tool & { readonly schema: JsonSchema.JsonSchema }> = loadTools()
  .filter((t) => t.examples.length > 0)
  .map((t) => ({ ...t, schema: JsonSchema.upgrade(t.parameters).schema }))

type Outcome = "valid" | "coerced" | "invalid" | "schemaError"

const outcome = (r: Arguments.Prepared): Outcome =>
  r._tag === "SchemaError" ? "schemaError" : r._tag === "Invalid" ? "invalid" : r.coercions.length > 0 ? "coerced" : "valid"

const tally = (options?: Arguments.Options) => {
  const counts: Record<Outcome, number> = { valid: 0, coerced: 0, invalid: 0, schemaError: 0 }
  const rules: Record<string, number> = {}
  for (const t of tools) {
    for (const ex of t.examples) {
      const r = Arguments.prepare(t.schema, ex, options)
      counts[outcome(r)]++
      if (r._tag === "Valid") for (const c of r.coercions) rules[c.rule] = (rules[c.rule] ?? 0) + 1
    }
  }
  return { counts, rules }
}

/** The prepared example `index` of the first tool with this source and name whose example there matches. */
const example = (
  source: string,
  name: string,
  index: number,
  options?: Arguments.Options,
  match: (ex: JsonValue.JsonValue) => boolean = () => true
) => {
  const t = tools.find((t) => t.source === source && t.name === name && t.examples.length > index && match(t.examples[index]!))
  assert.isDefined(t, `${source} ${name}`)
  return { input: t!.examples[index]!, result: Arguments.prepare(t!.schema, t!.examples[index]!, options) }
}

describe("Arguments.prepare over corpus/tools.jsonl", () => {
  it("reads the whole corpus", () => {
    assert.strictEqual(tools.length, 2376)
    assert.strictEqual(tools.reduce((n, t) => n + t.examples.length, 0), 4600)
  })

  it("pins the outcomes under the lenient policy", () => {
    const { counts, rules } = tally()
    assert.deepStrictEqual(counts, { valid: 4343, coerced: 18, invalid: 239, schemaError: 0 })
    assert.deepStrictEqual(rules, { "string-to-integer": 28, "string-to-boolean": 3, "enum-case": 1, "drop-empty-optional": 2 })
  }, 60_000)

  it("pins the outcomes under the strict policy (2 lenient-coerced examples only lost a filler: strict keeps them)", () => {
    const { counts, rules } = tally({ policy: "strict" })
    assert.deepStrictEqual(counts, { valid: 4345, coerced: 0, invalid: 255, schemaError: 0 })
    assert.deepStrictEqual(rules, {})
  }, 60_000)

  it("pins the outcomes when the arguments come from a strict provider (BFCL's explicit nulls)", () => {
    const { counts, rules } = tally({ fromStrictProvider: true })
    assert.deepStrictEqual(counts, { valid: 4343, coerced: 119, invalid: 138, schemaError: 0 })
    // 364 of the corpus's 377 explicit nulls: the others sit on required or nullable properties.
    assert.strictEqual(rules["drop-strict-null"], 364)
  }, 60_000)

  it("repairs real near misses: string-encoded integers and booleans (API-Bank)", () => {
    const hotel = example("api-bank", "BookHotel", 0)
    assert.strictEqual(hotel.result._tag, "Valid")
    const coercions = (hotel.result as Arguments.Valid).coercions
    assert.deepInclude(coercions, { path: "/room_count", field: "room_count", rule: "string-to-integer", from: "1", to: 1 })
    assert.strictEqual((hotel.input as Record<string, unknown>).room_count, "1")
    const timer = example("api-bank", "TimedSwitch", 0)
    assert.deepInclude((timer.result as Arguments.Valid).coercions, { path: "/on", field: "on", rule: "string-to-boolean", from: "True", to: true })
  })

  it("repairs real near misses: enum case and empty fillers (BFCL)", () => {
    const movies = example("bfcl:live_multiple", "Media_3_FindMovies", 11, {}, (ex) => (ex as { genre?: unknown }).genre === "horror")
    assert.deepStrictEqual((movies.result as Arguments.Valid).coercions.map((c) => [c.field, c.rule, c.from, c.to]), [["genre", "enum-case", "horror", "Horror"]])
    const ticket = example("bfcl:multi_turn_func_doc/ticket_api", "create_ticket", 3)
    assert.deepStrictEqual((ticket.result as Arguments.Valid).coercions.map((c) => [c.field, c.rule]), [["description", "drop-empty-optional"]])
    assert.isFalse(Object.hasOwn((ticket.result as Arguments.Valid).value as object, "description"))
  })

  it("keeps what is meant: a space separator with a string default is not a filler", () => {
    const join = example("bfcl:live_simple", "concat_strings", 0)
    assert.deepStrictEqual(join.result, { _tag: "Valid", value: { strings: ["John", "Doe"], separator: " " }, coercions: [] })
  })

  it("rejects what is wrong, naming the field: bare strings are not arrays, nulls are not numbers", () => {
    const fit = example("bfcl:parallel_multiple", "linear_regression_fit", 0)
    assert.strictEqual(fit.result._tag, "Invalid")
    assert.include((fit.result as Arguments.Invalid).issues.map((i) => i.field), "x")
    const products = example("bfcl:live_multiple", "search_products", 0)
    assert.include((products.result as Arguments.Invalid).issues.map((i) => i.field), "price_max")
    assert.strictEqual(example("bfcl:live_multiple", "search_products", 0, { fromStrictProvider: true }).result._tag, "Valid")
  })
})

/**
 * Soundness properties of the prover: whenever it says `Subtype`, no generated value the cloud validator
 * accepts is rejected locally; whenever it says `Drift`, the witness is accepted by the cloud validator and
 * rejected by the local one. Pairs are random, random-with-a-mutated-copy, and mutated real corpus schemas.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import { corpus } from "@toolgate/test-support/corpus"

const keys = ["a", "b", "c", "constructor"] as const

const schema = FastCheck.letrec((tie) => {
  const kw = <A>(name: string, arb: FastCheck.Arbitrary<A>) => FastCheck.tuple(FastCheck.constant(name), arb)
  const sub = tie("s") as FastCheck.Arbitrary<JsonSchema.JsonSchema>
  const subs = FastCheck.array(sub, { minLength: 1, maxLength: 3 })
  const keyword = FastCheck.oneof(
    kw("type", FastCheck.oneof(
      FastCheck.constantFrom("string", "integer", "number", "boolean", "null", "object", "array"),
      FastCheck.uniqueArray(FastCheck.constantFrom("string", "integer", "null", "object", "array"), { minLength: 1, maxLength: 3 })
    )),
    kw("enum", FastCheck.array(FastCheck.constantFrom<JsonValue>("a", "b", "", 0, 1, 2.5, -1, null, true, false, {}, []), { minLength: 1, maxLength: 4 })),
    kw("const", FastCheck.constantFrom<JsonValue>("a", 1, null, true, 0)),
    kw("minimum", FastCheck.integer({ min: -3, max: 3 })),
    kw("maximum", FastCheck.integer({ min: -3, max: 3 })),
    kw("exclusiveMinimum", FastCheck.constantFrom(-2, -0.5, 0, 1.5)),
    kw("exclusiveMaximum", FastCheck.constantFrom(-1, 0, 0.5, 2)),
    kw("multipleOf", FastCheck.constantFrom(1, 2, 3, 0.5)),
    kw("minLength", FastCheck.nat(3)),
    kw("maxLength", FastCheck.nat(3)),
    kw("pattern", FastCheck.constantFrom("^a", "b$", "[0-9]", "^a")),
    kw("format", FastCheck.constantFrom("date", "email", "uuid", "custom-thing")),
    kw("minItems", FastCheck.nat(2)),
    kw("maxItems", FastCheck.nat(2)),
    kw("uniqueItems", FastCheck.boolean()),
    kw("items", sub),
    kw("prefixItems", FastCheck.array(sub, { minLength: 1, maxLength: 2 })),
    kw("contains", sub),
    kw("properties", FastCheck.dictionary(FastCheck.constantFrom(...keys), sub, { maxKeys: 3 })),
    kw("patternProperties", FastCheck.dictionary(FastCheck.constantFrom("^a", "^x"), sub, { maxKeys: 1 })),
    kw("required", FastCheck.uniqueArray(FastCheck.constantFrom(...keys), { maxLength: 2 })),
    kw("additionalProperties", sub),
    kw("minProperties", FastCheck.nat(2)),
    kw("maxProperties", FastCheck.nat(2)),
    kw("propertyNames", FastCheck.constantFrom<JsonSchema.JsonSchema>({ maxLength: 1 }, { enum: ["a", "b"] })),
    kw("dependentRequired", FastCheck.dictionary(FastCheck.constantFrom("a", "b"), FastCheck.constant(["c"]), { maxKeys: 1 })),
    kw("anyOf", subs),
    kw("oneOf", subs),
    kw("allOf", subs),
    kw("not", sub),
    kw("if", sub),
    kw("then", sub),
    kw("else", sub)
  )
  return {
    s: FastCheck.oneof(
      { depthSize: "small", withCrossShrink: true },
      FastCheck.boolean(),
      FastCheck.array(keyword, { maxLength: 3 }).map((entries) => Object.fromEntries(entries) as JsonSchema.JsonSchemaObject)
    )
  }
}).s as FastCheck.Arbitrary<JsonSchema.JsonSchema>

const value: FastCheck.Arbitrary<JsonValue> = FastCheck.letrec((tie) => ({
  v: FastCheck.oneof(
    { depthSize: "small" },
    FastCheck.constantFrom<JsonValue>("", "a", "ab", "b", "abc", "1", "2024-01-31", "a@b.co", "123e4567-e89b-12d3-a456-426614174000", null, true, false),
    FastCheck.integer({ min: -4, max: 6 }),
    FastCheck.constantFrom(0.5, -0.5, 2.5, 1e21, -1e21),
    FastCheck.array(tie("v") as FastCheck.Arbitrary<JsonValue>, { maxLength: 3 }),
    FastCheck.dictionary(FastCheck.constantFrom(...keys, "x", "ab"), tie("v") as FastCheck.Arbitrary<JsonValue>, { maxKeys: 3 })
  )
})).v

/** A narrowed or widened copy: one keyword added, removed or replaced at the top or one level down. */
const mutate = (s: JsonSchema.JsonSchema, edit: readonly [string, JsonValue | undefined], deep: boolean): JsonSchema.JsonSchema => {
  if (typeof s !== "object") return s
  const copy: Record<string, JsonValue> = JSON.parse(JSON.stringify(s))
  const props = copy["properties"]
  const target: Record<string, JsonValue> = deep && typeof props === "object" && props !== null && !Array.isArray(props)
    ? (Object.values(props).find((p) => typeof p === "object" && p !== null && !Array.isArray(p)) as Record<string, JsonValue> | undefined) ?? copy
    : copy
  if (edit[1] === undefined) delete target[edit[0]]
  else target[edit[0]] = edit[1]
  return copy
}

const edit = FastCheck.tuple(
  FastCheck.constantFrom("type", "required", "additionalProperties", "minimum", "maxLength", "enum", "items", "minItems", "format", "pattern"),
  FastCheck.option(FastCheck.constantFrom<JsonValue>("string", ["string", "null"], "integer", "number", ["a"], [], false, true, 0, 3, { type: "string" }, ["x", 1], "email", "^a"), { nil: undefined })
)

const accepts = (s: JsonSchema.JsonSchema) => {
  const c = Validator.compile(s)
  return Either.isRight(c) ? c.right : undefined
}

/** The soundness property for one pair and some values. */
const sound = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, values: ReadonlyArray<JsonValue>): void => {
  const v = Subschema.check(cloud, local)
  const c = accepts(cloud), l = accepts(local)
  if (v._tag === "Drift") {
    assert.isTrue(c !== undefined && l !== undefined && c.isValid(v.witness) && !l.isValid(v.witness), JSON.stringify({ cloud, local, v }))
  }
  if (v._tag !== "Subtype" || c === undefined || l === undefined) return
  for (const x of values) {
    let inCloud = false, inLocal = true
    try {
      inCloud = c.isValid(x)
      inLocal = l.isValid(x)
    } catch {
      continue
    }
    assert.isFalse(inCloud && !inLocal, JSON.stringify({ cloud, local, x }))
  }
}

const tools: ReadonlyArray<JsonSchema.JsonSchema> = fs.readFileSync(path.join(corpus, "tools.jsonl"), "utf8").split("\n")
  .filter((line) => line.length > 0)
  .map((line) => JsonSchema.upgrade((JSON.parse(line) as { parameters: unknown }).parameters).schema)

describe("Subschema soundness properties", () => {
  it.prop("random pairs", [schema, schema, FastCheck.array(value, { maxLength: 30 })], ([cloud, local, values]) => {
    sound(cloud, local, values)
  }, { timeout: 120_000, fastCheck: { numRuns: 1500 } })

  it.prop("a random schema against a mutated copy of itself, both ways", [schema, edit, FastCheck.boolean(), FastCheck.array(value, { maxLength: 30 })], ([s, e, deep, values]) => {
    const m = mutate(s, e, deep)
    sound(m, s, values)
    sound(s, m, values)
  }, { timeout: 120_000, fastCheck: { numRuns: 800 } })

  it.prop("a corpus schema against a narrowed or widened copy, with values built from its property names", [
    FastCheck.integer({ min: 0, max: tools.length - 1 }),
    edit,
    FastCheck.boolean(),
    FastCheck.array(FastCheck.tuple(FastCheck.array(FastCheck.nat(20), { maxLength: 4 }), FastCheck.array(value, { minLength: 4, maxLength: 4 })), { maxLength: 20 })
  ], ([i, e, deep, shapes]) => {
    const local = tools[i]!
    const cloud = mutate(local, e, deep)
    const props = typeof local === "object" && typeof local["properties"] === "object" && local["properties"] !== null ? Object.keys(local["properties"]) : []
    const values = shapes.map(([picks, vs]) => Object.fromEntries(picks.flatMap((p, j) => (props[p] === undefined ? [] : [[props[p]!, vs[j]!] as const]))))
    sound(cloud, local, values)
    sound(local, cloud, values)
  }, { timeout: 120_000, fastCheck: { numRuns: 400 } })
})

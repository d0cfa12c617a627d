/**
 * Test arbitraries for `Arguments.prepare`: a handful of tool schemas, and for each one pairs
 * `{ accepted, miss }` where `accepted` is a value the schema accepts (with no empty optional fillers) and
 * `miss` is the same value as a sloppy model would write it, using only repairs the lenient policy
 * promises to undo (string-encoded scalars and arrays, enum case, empty optional fillers, key spelling).
 */
import { FastCheck as fc } from "effect"
import { JsonSchema, JsonValue } from "@toolgate/json-schema"

type Pair = { readonly accepted: JsonValue.JsonValue; readonly miss: JsonValue.JsonValue }
type Arb = fc.Arbitrary<Pair>

/** The names of the schemas the properties run over. */
export type Name = "weather" | "search" | "geometry" | "account"

/** The schemas the properties run over. */
export const schemas: Readonly<Record<Name, JsonSchema.JsonSchemaObject>> = {
  weather: {
    type: "object",
    properties: {
      city: { type: "string" },
      days: { type: "integer", minimum: 1, maximum: 14 },
      units: { type: "string", enum: ["metric", "imperial", "Kelvin"] },
      verbose: { type: "boolean" },
      note: { type: "string" }
    },
    required: ["city"],
    additionalProperties: false
  },
  search: {
    type: "object",
    properties: {
      filters: {
        type: "array",
        items: {
          type: "object",
          properties: { name: { type: "string" }, op: { enum: ["eq", "ne", "lt"] }, value: { type: "number" } },
          required: ["name", "op", "value"]
        }
      },
      limit: { type: "integer" },
      tags: { type: "array", items: { type: "string" } },
      options: { type: "object", properties: { depth: { type: "integer" }, exact: { type: "boolean" } } }
    },
    required: ["filters"]
  },
  geometry: {
    $defs: {
      point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] }
    },
    type: "object",
    properties: {
      start: { $ref: "#/$defs/point" },
      path: { type: "array", items: { $ref: "#/$defs/point" } },
      label: { anyOf: [{ type: "string" }, { type: "null" }] }
    },
    required: ["start"]
  },
  account: {
    type: "object",
    properties: { userId: { type: "integer" }, pageSize: { type: "integer" }, includeArchived: { type: "boolean" } },
    required: ["userId"],
    additionalProperties: false
  }
}

const same = (v: JsonValue.JsonValue): Pair => ({ accepted: v, miss: v })

// Non-blank text: a blank string in an optional property is a filler the lenient policy drops.
const text = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0)

const integer = (min = -1_000_000, max = 1_000_000): Arb =>
  fc.integer({ min, max }).chain((n) =>
    fc.constantFrom<Pair>(same(n), { accepted: n, miss: String(n) }, { accepted: n, miss: `${n}.0` })
  )

const number: Arb = fc.double({ min: -1e9, max: 1e9, noNaN: true })
  .map((x) => (x === 0 ? 0 : x))
  .chain((x) => fc.constantFrom<Pair>(same(x), { accepted: x, miss: String(x) }))

const boolean: Arb = fc.boolean().chain((b) =>
  fc.constantFrom<Pair>(
    same(b),
    { accepted: b, miss: String(b) },
    { accepted: b, miss: b ? " YES" : "No " },
    { accepted: b, miss: b ? "1" : "0" }
  )
)

const enumOf = (values: ReadonlyArray<string>): Arb =>
  fc.constantFrom(...values).chain((v) => {
    const upper = v.toUpperCase()
    const unique = values.filter((w) => w.toLowerCase() === v.toLowerCase()).length === 1 && upper !== v
    return unique ? fc.constantFrom<Pair>(same(v), { accepted: v, miss: upper }) : fc.constant(same(v))
  })

const arrayOf = (item: Arb): Arb =>
  fc.array(item, { maxLength: 4 }).chain((pairs) => {
    const accepted = pairs.map((p) => p.accepted)
    const miss = pairs.map((p) => p.miss)
    return fc.constantFrom<Pair>({ accepted, miss }, { accepted, miss: JSON.stringify(miss) })
  })

const snake = (k: string): string => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())

// Blank fillers as models send them: empty, ASCII whitespace, and Unicode spaces `String.prototype.trim` removes.
const blank = fc.constantFrom("", " ", "\t\n", "\u00a0", "\u3000 ", "\ufeff")

/** An object: required keys always, optional ones sometimes, an absent optional sometimes as a blank filler. */
const objectOf = (props: Record<string, Arb>, required: ReadonlyArray<string>, rename: boolean): Arb => {
  const fields = Object.keys(props).map((k) =>
    fc.record({
      pair: props[k]!,
      present: required.includes(k) ? fc.constant(true) : fc.boolean(),
      filler: required.includes(k) ? fc.constant(undefined) : fc.option(blank, { nil: undefined }),
      renamed: rename && k !== snake(k) ? fc.boolean() : fc.constant(false)
    }).map((f) => ({ key: k, ...f }))
  )
  return fc.tuple(...fields).map((fs) => {
    const accepted: Array<[string, JsonValue.JsonValue]> = []
    const miss: Array<[string, JsonValue.JsonValue]> = []
    for (const f of fs) {
      if (f.present) {
        accepted.push([f.key, f.pair.accepted])
        miss.push([f.renamed ? snake(f.key) : f.key, f.pair.miss])
      } else if (f.filler !== undefined) miss.push([f.key, f.filler])
    }
    return { accepted: JsonValue.fromEntries(accepted), miss: JsonValue.fromEntries(miss) }
  })
}

const point: Arb = objectOf({ x: number, y: number }, ["x", "y"], false)

/** `{ accepted, miss }` pairs for each schema in `schemas`. */
export const pairs: Readonly<Record<Name, Arb>> = {
  weather: objectOf(
    { city: text.map(same), days: integer(1, 14), units: enumOf(["metric", "imperial", "Kelvin"]), verbose: boolean, note: text.map(same) },
    ["city"],
    false
  ),
  search: objectOf(
    {
      filters: arrayOf(objectOf({ name: text.map(same), op: enumOf(["eq", "ne", "lt"]), value: number }, ["name", "op", "value"], false)),
      limit: integer(),
      tags: arrayOf(text.map(same)),
      options: objectOf({ depth: integer(0, 10), exact: boolean }, [], false)
    },
    ["filters"],
    false
  ),
  geometry: objectOf(
    { start: point, path: arrayOf(point), label: fc.oneof(text, fc.constant(null)).map(same) },
    ["start"],
    false
  ),
  account: objectOf({ userId: integer(), pageSize: integer(1, 500), includeArchived: boolean }, ["userId"], true)
}

/** A schema name with one of its pairs. */
export const anyPair: fc.Arbitrary<readonly [Name, Pair]> = fc.oneof(
  ...(Object.keys(pairs) as Array<Name>).map((name) => pairs[name].map((p) => [name, p] as const))
)

const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "city", "userId", "properties")

/** JSON values with hostile keys (`__proto__`, `constructor`, …) built without touching a prototype. */
export const hostile: fc.Arbitrary<JsonValue.JsonValue> = fc.letrec<{ value: JsonValue.JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), fc.constantFrom("", " ", "null", "1", "[1]", "{\"__proto__\":{\"x\":1}}")),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(fc.oneof(hostileKey, fc.string()), tie("value")), { maxLength: 5 }).map((es) => JsonValue.fromEntries(es))
  )
})).value

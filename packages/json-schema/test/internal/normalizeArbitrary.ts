/**
 * Random tool schemas for the Normalize property tests: every keyword the passes treat (type lists,
 * `const`, `enum`, unions, `not`, validation keywords, boolean subschemas, local `$ref`s, recursive ones
 * included) and property names that look like keywords or prototype members.
 */
import { FastCheck as fc } from "effect"
import { JsonValue } from "@toolgate/json-schema"

type Schema = JsonValue.JsonValue

const names = fc.constantFrom("a", "b", "__proto__", "constructor", "pattern", "anyOf", "$ref", "nullable", "x/y")
const types = fc.constantFrom("string", "integer", "number", "boolean", "object", "array", "null")
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }))
const refs = fc.constantFrom("#/$defs/a", "#/$defs/b", "#", "#/$defs/missing", "#/properties/a")

const object = (entries: ReadonlyArray<readonly [string, Schema]>): Schema => JsonValue.fromEntries(entries)

const keyword = (tie: (k: "schema") => fc.Arbitrary<Schema>): fc.Arbitrary<readonly [string, Schema]> => fc.oneof(
  fc.tuple(fc.constant("type"), fc.oneof(types, fc.uniqueArray(types, { minLength: 1, maxLength: 3 }))),
  fc.tuple(fc.constant("enum"), fc.array(scalar, { maxLength: 4 })),
  fc.tuple(fc.constant("const"), scalar),
  fc.tuple(fc.constant("description"), fc.string({ maxLength: 6 })),
  fc.tuple(fc.constantFrom("minimum", "maxLength", "minItems"), fc.integer({ min: 0, max: 9 })),
  fc.tuple(fc.constantFrom("pattern", "format"), fc.constantFrom("^a", "date-time", "email")),
  fc.tuple(fc.constant("nullable"), fc.boolean()),
  fc.tuple(fc.constant("default"), scalar),
  fc.tuple(fc.constant("$ref"), refs),
  fc.tuple(fc.constantFrom("anyOf", "oneOf", "allOf", "prefixItems"), fc.array(tie("schema"), { minLength: 1, maxLength: 3 })),
  fc.tuple(fc.constantFrom("items", "not", "additionalProperties"), tie("schema")),
  fc.tuple(fc.constant("properties"), fc.array(fc.tuple(names, tie("schema")), { maxLength: 3 }).map(object)),
  fc.tuple(fc.constant("required"), fc.uniqueArray(names, { maxLength: 3 }))
)

/** A random subschema (a boolean now and then). */
export const schema: fc.Arbitrary<Schema> = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.array(keyword(tie), { maxLength: 4 }).map(object)
  )
})).schema

/** A random tool schema: an object with properties and (sometimes) `$defs` the refs can point at. */
export const tool: fc.Arbitrary<JsonValue.JsonObject> = fc.record({
  properties: fc.array(fc.tuple(names, schema), { maxLength: 4 }).map(object),
  required: fc.uniqueArray(names, { maxLength: 3 }),
  defs: fc.option(fc.tuple(schema, schema), { nil: undefined }),
  extra: fc.array(keyword(() => schema), { maxLength: 2 })
}).map(({ defs, extra, properties, required }) =>
  JsonValue.fromEntries([
    ["type", "object"],
    ["properties", properties],
    ["required", required],
    ...(defs === undefined ? [] : [["$defs", object([["a", defs[0]], ["b", defs[1]]])] as const]),
    ...extra.filter(([k]) => k !== "type" && k !== "properties")
  ]) as JsonValue.JsonObject
)

/** A schema nested `depth` levels deep through `properties`. */
export const deep = (depth: number): JsonValue.JsonObject => {
  let s: JsonValue.JsonObject = { type: "string", pattern: "^a" }
  for (let i = 0; i < depth; i++) s = { type: "object", properties: { n: s }, required: ["n"] }
  return s
}

/** Freezes a value all the way down, so any write into it throws (ESM code runs strict). */
export const freeze = <A>(v: A): A => {
  const stack: Array<unknown> = [v]
  while (stack.length > 0) {
    const x = stack.pop()
    if (typeof x !== "object" || x === null || Object.isFrozen(x)) continue
    Object.freeze(x)
    for (const k of Object.keys(x)) stack.push((x as Record<string, unknown>)[k])
  }
  return v
}

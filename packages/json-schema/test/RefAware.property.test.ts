import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import type { JsonSchema } from "../src/JsonSchema.js"
import * as JsonValue from "../src/JsonValue.js"
import * as RefAware from "../src/RefAware.js"
import * as Validator from "../src/Validator.js"

type S = JsonSchema
type Obj = Record<string, any>

const isValid = (schema: S, value: unknown): boolean => {
  const c = Validator.compile(schema)
  if (Either.isLeft(c)) throw new Error(`${c.left.message}: ${JSON.stringify(schema)}`)
  return c.right.isValid(value)
}

// Simple schemas whose values can be generated: unions only at the leaves, so the subschema that judges
// each value position is known; property names never start with `p_` (those are for patternProperties).
const scalar: fc.Arbitrary<S> = fc.oneof(
  fc.constant({ type: "string" }),
  fc.nat(3).map((n) => ({ type: "string", minLength: n })),
  fc.tuple(fc.integer({ min: -50, max: 0 }), fc.nat(50)).map(([minimum, span]) => ({ type: "integer", minimum, maximum: minimum + span })),
  fc.constant({ type: "number" }),
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.constant({ enum: ["asc", "desc", 1] }),
  fc.constant({ const: "fixed" }),
  fc.constant({ type: ["string", "null"] }),
  fc.constant({ anyOf: [{ type: "integer" }, { type: "string" }], description: "id or name" }),
  fc.constant({ oneOf: [{ type: "integer" }, { type: "boolean" }] }),
  fc.constant(true)
)
const names = fc.constantFrom("a", "b", "city", "constructor", "$tool", "$path")

const { node } = fc.letrec<{ node: S; object: S; array: S; tuple: S }>((tie) => ({
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("object"), tie("array"), tie("tuple")),
  object: fc.record({
    props: fc.uniqueArray(fc.tuple(names, tie("node")), { selector: (e) => e[0], maxLength: 4 }),
    required: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    additional: fc.option(fc.oneof(fc.constant(false), tie("node")), { nil: undefined }),
    pattern: fc.option(tie("node"), { nil: undefined })
  }).map(({ additional, pattern, props, required }) => ({
    type: "object",
    properties: JsonValue.fromEntries(props as Array<[string, JsonValue.JsonValue]>),
    required: props.filter((_, i) => required[i]).map(([k]) => k),
    ...(additional === undefined ? {} : { additionalProperties: additional }),
    ...(pattern === undefined ? {} : { patternProperties: { "^p_": pattern } })
  }) as S),
  array: tie("node").map((items) => ({ type: "array", items }) as S),
  tuple: fc.tuple(fc.array(tie("node"), { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant(false), tie("node")))
    .map(([prefixItems, items]) => ({ type: "array", prefixItems, items }) as S)
}))

/** A root object schema, sometimes with a `$defs` entry that a property reaches by `$ref`. */
const rootSchema: fc.Arbitrary<S> = fc.tuple(node, fc.option(node, { nil: undefined })).map(([n, def]) => {
  const base = typeof n === "object" && n["type"] === "object" ? n : { type: "object", properties: { a: n }, required: ["a"] }
  if (def === undefined) return base
  return { ...base, properties: { ...(base["properties"] as Obj), r: { $ref: "#/$defs/D" } }, $defs: { D: def } }
})

const resolve = (root: S, s: S): S => (typeof s === "object" && s["$ref"] === "#/$defs/D" ? (root as Obj)["$defs"].D : s)

const valueOf = (root: S, schema: S): fc.Arbitrary<JsonValue.JsonValue> => {
  const s = resolve(root, schema)
  if (s === true) return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue.JsonValue>
  if (s === false) throw new Error("no value for false")
  if (s["const"] !== undefined) return fc.constant(s["const"])
  if (Array.isArray(s["enum"])) return fc.constantFrom(...s["enum"])
  if (Array.isArray(s["anyOf"]) || Array.isArray(s["oneOf"])) return fc.oneof(fc.integer(), fc.string()).filter((v) => isValid(s, v))
  switch (Array.isArray(s["type"]) ? "string|null" : s["type"]) {
    case "string":
      return fc.string({ minLength: (s["minLength"] as number | undefined) ?? 0, maxLength: 6 })
    case "string|null":
      return fc.option(fc.string({ maxLength: 4 }), { nil: null })
    case "integer":
      return fc.integer({ min: s["minimum"] as number, max: s["maximum"] as number })
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array":
      return arrayOf(root, s)
    default:
      return objectOf(root, s)
  }
}

const arrayOf = (root: S, s: Obj): fc.Arbitrary<JsonValue.JsonValue> => {
  const prefix: Array<S> = s["prefixItems"] ?? []
  const rest = s["items"] === false ? fc.constant([]) : fc.array(valueOf(root, s["items"]), { maxLength: 3 })
  return fc.tuple(fc.tuple(...prefix.map((p) => valueOf(root, p))), rest).map(([a, b]) => [...a, ...b])
}

const objectOf = (root: S, s: Obj): fc.Arbitrary<JsonValue.JsonValue> => {
  const props: Obj = s["properties"]
  const required: Array<string> = s["required"]
  const entries = Object.keys(props).map((k) =>
    required.includes(k)
      ? valueOf(root, props[k]).map((v) => [[k, v]])
      : fc.option(valueOf(root, props[k]), { nil: undefined }).map((v) => (v === undefined ? [] : [[k, v]]))
  )
  const extra = (key: string, sub: S | undefined) =>
    sub === undefined || sub === false ? fc.constant([]) : fc.option(valueOf(root, sub), { nil: undefined }).map((v) => (v === undefined ? [] : [[key, v]]))
  return fc.tuple(fc.tuple(...entries), extra("p_1", s["patternProperties"]?.["^p_"]), extra("x", s["additionalProperties"]))
    .map(([es, p, x]) => JsonValue.fromEntries([...es.flat(), ...p, ...x] as Array<[string, JsonValue.JsonValue]>))
}

/** Every value position in a value, with the subschema that judges it. */
const positions = (root: S, schema: S, value: unknown, tokens: Array<string> = []): Array<{ tokens: Array<string>; schema: S }> => {
  const s = resolve(root, schema)
  const out: Array<{ tokens: Array<string>; schema: S }> = []
  const visit = (token: string, sub: S, v: unknown) => {
    out.push({ tokens: [...tokens, token], schema: sub })
    out.push(...positions(root, sub, v, [...tokens, token]))
  }
  if (typeof s !== "object" || typeof value !== "object" || value === null) return out
  if (Array.isArray(value) && s["type"] === "array") {
    const prefix = (s["prefixItems"] ?? []) as Array<S>
    value.forEach((v, i) => visit(String(i), i < prefix.length ? prefix[i]! : s["items"] as S, v))
  } else if (!Array.isArray(value) && s["type"] === "object") {
    const props = s["properties"] as Obj
    for (const k of Object.keys(value)) {
      const sub: S = Object.hasOwn(props, k) ? props[k] : k.startsWith("p_") ? (s as Obj)["patternProperties"]["^p_"] : (s["additionalProperties"] ?? true) as S
      visit(k, sub, (value as Obj)[k])
    }
  }
  return out
}

/** A subschema compiled on its own: the root's `$defs` come along, so its `$ref`s still resolve. */
const standalone = (root: S, sub: S): S => {
  const s = resolve(root, sub)
  const defs = (root as Obj)["$defs"]
  return typeof s === "boolean" || defs === undefined ? s : { ...s, $defs: defs }
}

const setAt = (value: unknown, tokens: ReadonlyArray<string>, to: unknown): unknown => {
  if (tokens.length === 0) return to
  const [t, ...rest] = tokens as [string, ...Array<string>]
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === t ? setAt(v, rest, to) : v))
  const o = value as Obj
  return JsonValue.fromEntries(Object.keys(o).map((k) => [k, (k === t ? setAt(o[k], rest, to) : o[k]) as JsonValue.JsonValue]))
}

const ref = fc.record({ $tool: fc.string({ minLength: 1, maxLength: 8 }), $path: fc.string({ maxLength: 8 }), $artifact: fc.string({ maxLength: 4 }) }, {
  requiredKeys: ["$tool"]
})

const schemaAndValue = rootSchema.chain((schema) => fc.tuple(fc.constant(schema), valueOf(schema, schema), ref))

describe("RefAware.widen properties", () => {
  it.prop("a valid value stays valid against the widened schema", [schemaAndValue], ([[schema, value]]) => {
    assert.isTrue(isValid(schema, value), "generator: the value is valid against its schema")
    assert.isTrue(isValid(RefAware.widen(schema), value))
  }, { timeout: 60_000 })

  it.prop("a ref at any value position is valid widened, and invalid against the base unless the base takes that object there", [schemaAndValue], ([[schema, value, r]]) => {
    const widened = RefAware.widen(schema)
    for (const p of positions(schema, schema, value)) {
      const replaced = setAt(value, p.tokens, r)
      assert.isTrue(isValid(widened, replaced), `${p.tokens.join(".")}: ${JSON.stringify(replaced)}`)
      const pointer = p.tokens.map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1")).map((t) => `/${t}`).join("")
      assert.isTrue(RefAware.refs(replaced).some((found) => found.path === pointer && found.field === p.tokens.join(".")))
      const baseTakesIt = isValid(standalone(schema, p.schema), r)
      if (!baseTakesIt) assert.isFalse(isValid(schema, replaced), `${p.tokens.join(".")}: ${JSON.stringify(replaced)}`)
    }
  }, { timeout: 60_000 })

  it.prop("idempotent, pure, and the root is not wrapped", [rootSchema], ([schema]) => {
    const before = JSON.stringify(schema)
    const once = RefAware.widen(schema)
    assert.deepStrictEqual(RefAware.widen(once), once)
    assert.strictEqual(JSON.stringify(schema), before)
    assert.deepStrictEqual(Object.keys(once as Obj), Object.keys(schema as Obj))
    assert.strictEqual((once as Obj)["type"], "object")
  })
})

/**
 * The fuzz suite's seeded generator of schema pairs: random schemas over every keyword family the prover
 * reads (both dialects, `$ref` recursion through `$defs`/`definitions`, `nullable`, the other dialect's
 * keywords where they are only annotations), mutated copies, corpus tools and their mutations.
 */
import * as JsonSchemas from "@toolgate/json-schema/JsonSchema"
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"

/** A seeded random source (mulberry32): the same seed gives the same pairs on every machine. */
export interface Rng {
  readonly next: () => number
  readonly int: (n: number) => number
  readonly pick: <A>(xs: ReadonlyArray<A>) => A
  readonly chance: (p: number) => boolean
}

/** A random source from a seed. */
export const rng = (seed: number): Rng => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: (xs) => xs[int(xs.length)]!, chance: (p) => next() < p }
}

type Obj = Record<string, JsonValue>

/** Property names: plain, pattern-matched, names `Object.prototype` also has, and `__proto__` (Ajv skips it in `properties`). */
export const names = ["a", "b", "c", "n_1", "n_2", "x", "toString", "constructor", "valueOf", "__proto__"] as const
/** Patterns the generator uses (each also drives the value sampler's string pool). */
export const patterns = ["^a", "b$", "^[a-z]{3}$", "[0-9]", "^n_", "abc", "^abc$", "^(foo|bar)$", "^[a-c]+$", "x"] as const
const formats = ["date", "email", "uuid", "date-time", "ipv4", "custom-format", "int32", "int64"] as const
const bounds = [-3, -1, 0, 0.5, 1, 2, 3, 9.99, 10, 100] as const
const steps = [1, 2, 3, 5, 10, 0.5, 0.25, 0.1, 0.01] as const
const types = ["null", "boolean", "integer", "number", "string", "array", "object"] as const

/** Literal values for `const`/`enum`, hostile keys included. */
export const literals: ReadonlyArray<JsonValue> = [
  "a", "b", "", "foo", 0, 1, 2, -1, 2.5, 10, null, true, false, [], [1], {}, { a: 1 }, { toString: true }, { valueOf: 1 }
]

interface Env {
  readonly r: Rng
  readonly draft07: boolean
  readonly defs: ReadonlyArray<string>
}

const refTo = (e: Env, name: string): string => (e.draft07 ? `#/definitions/${name}` : `#/$defs/${name}`)

/** One random subschema of at most `depth` levels. */
const schema = (e: Env, depth: number): JsonSchema => {
  const { r } = e
  if (depth <= 0 || r.chance(0.15)) {
    const leaf = r.int(10)
    if (leaf === 0) return r.chance(0.7)
    if (leaf === 1 && e.defs.length > 0) return { $ref: refTo(e, r.pick(e.defs)) }
    return typed(e, r.pick(types), depth)
  }
  const out: Obj = r.chance(0.6) ? typed(e, r.pick(types), depth - 1) : {}
  for (let i = 1 + r.int(2); i > 0; i--) Object.assign(out, family(e, depth - 1))
  return out
}

/** A schema of one type with a few of that type's keywords. */
const typed = (e: Env, t: (typeof types)[number], depth: number): Obj => {
  const { r } = e
  const other = r.pick(types)
  const out: Obj = { type: r.chance(0.15) && other !== t ? [t, other] : t }
  if (r.chance(0.12) && typeof out["type"] === "string" && t !== "null") out["nullable"] = true
  const more = r.int(3)
  for (let i = 0; i < more; i++) {
    if (t === "integer" || t === "number") Object.assign(out, numeric(r))
    else if (t === "string") Object.assign(out, stringy(r))
    else if (t === "array" && depth > 0) Object.assign(out, arrayish(e, depth - 1))
    else if (t === "object" && depth > 0) Object.assign(out, objectish(e, depth - 1))
  }
  return out
}

const numeric = (r: Rng): Obj => {
  const k = r.pick(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"])
  if (k === "multipleOf") return { multipleOf: r.pick(steps) }
  if (k === "format") return { format: r.pick(["int32", "int64", "float"]) }
  return { [k]: r.pick(bounds) }
}

const stringy = (r: Rng): Obj => {
  const k = r.pick(["minLength", "maxLength", "pattern", "pattern", "format"])
  if (k === "pattern") return { pattern: r.pick(patterns) }
  if (k === "format") return { format: r.pick(formats) }
  return { [k]: r.int(5) }
}

const arrayish = (e: Env, depth: number): Obj => {
  const { r } = e
  switch (r.int(7)) {
    case 0: return { items: schema(e, depth) }
    case 1: return e.draft07 ? { items: [schema(e, depth), schema(e, depth)], additionalItems: schema(e, depth) } : { prefixItems: [schema(e, depth)] }
    case 2: return { minItems: r.int(3) }
    case 3: return { maxItems: r.int(4) }
    case 4: return { uniqueItems: r.chance(0.8) }
    case 5: return r.chance(0.7) ? { contains: schema(e, depth) } : { contains: schema(e, depth), minContains: r.int(3) }
    default: return { prefixItems: [schema(e, depth)], items: r.chance(0.5) ? false : schema(e, depth) }
  }
}

const objectish = (e: Env, depth: number): Obj => {
  const { r } = e
  const some = (n: number) => [...new Set(Array.from({ length: 1 + r.int(n) }, () => r.pick(names)))]
  switch (r.int(10)) {
    case 0:
    case 1: return { properties: Object.fromEntries(some(3).map((k) => [k, schema(e, depth)])) }
    case 2: return { required: some(2) }
    case 3: return { additionalProperties: r.chance(0.5) ? false : schema(e, depth) }
    case 4: return { patternProperties: { [r.pick(["^n_", "^a", "x"])]: schema(e, depth) } }
    case 5: return { propertyNames: r.pick<JsonValue>([{ maxLength: 1 }, { pattern: "^[a-c]$" }, { enum: ["a", "b", "n_1"] }]) }
    case 6: return r.chance(0.5) ? { minProperties: r.int(3) } : { maxProperties: r.int(3) }
    case 7: return e.draft07 && r.chance(0.6) ? { dependencies: { [r.pick(names)]: r.chance(0.5) ? some(2) : schema(e, depth) } } : { dependentRequired: { [r.pick(names)]: some(2) } }
    case 8: return { dependentSchemas: { [r.pick(names)]: schema(e, depth) } }
    default: return { properties: { [r.pick(names)]: schema(e, depth) }, required: some(1), additionalProperties: r.chance(0.5) }
  }
}

/** One keyword family on an untyped node: applicators, literals, or another type's keywords. */
const family = (e: Env, depth: number): Obj => {
  const { r } = e
  const subs = () => Array.from({ length: 1 + r.int(3) }, () => schema(e, depth))
  switch (r.int(12)) {
    case 0: return { anyOf: subs() }
    case 1: return { oneOf: subs() }
    case 2: return { allOf: subs() }
    case 3: return { not: schema(e, depth) }
    case 4: return r.chance(0.7) ? { if: schema(e, depth), then: schema(e, depth), else: schema(e, depth) } : { if: schema(e, depth), then: schema(e, depth) }
    case 5: return { enum: Array.from({ length: 1 + r.int(4) }, () => r.pick(literals)).filter((v, i, a) => a.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i) }
    case 6: return { const: r.pick(literals) }
    case 7: return e.defs.length > 0 ? { $ref: refTo(e, r.pick(e.defs)) } : numeric(r)
    case 8: return numeric(r)
    case 9: return stringy(r)
    case 10: return depth > 0 ? arrayish(e, depth - 1) : stringy(r)
    default: return depth > 0 ? objectish(e, depth - 1) : numeric(r)
  }
}

/** A random root schema: maybe draft-07, maybe with `$defs` (one of them recursive through a property). */
export const rootSchema = (r: Rng, draft07 = r.chance(0.25)): JsonSchema => {
  const defNames = r.chance(0.35) ? ["d1", ...(r.chance(0.4) ? ["node"] : [])] : []
  const e: Env = { r, draft07, defs: defNames }
  const body = schema(e, 3)
  const root: Obj = typeof body === "boolean" ? (body ? {} : { not: {} }) : { ...body }
  if (defNames.length > 0) {
    const defs: Obj = { d1: schema({ ...e, defs: [] }, 2) as JsonValue }
    if (defNames.includes("node")) {
      defs["node"] = { type: "object", properties: { value: schema({ ...e, defs: [] }, 1) as JsonValue, next: { $ref: refTo(e, "node") } } }
    }
    root[draft07 ? "definitions" : "$defs"] = defs
  }
  if (draft07) root["$schema"] = "http://json-schema.org/draft-07/schema#"
  return root
}

/** Every subschema object of a schema (schema positions only: not the `properties` map itself). */
export const objects = (root: JsonValue): Array<Obj> => {
  const out: Array<Obj> = []
  const stack: Array<JsonSchema> = typeof root === "object" && root !== null && !Array.isArray(root) ? [root as JsonSchema] : []
  while (stack.length > 0) {
    const v = stack.pop()!
    if (typeof v !== "object") continue
    out.push(v as Obj)
    for (const c of JsonSchemas.subschemas(v)) stack.push(c.schema)
  }
  return out
}

const copy = <A>(x: A): A => JSON.parse(JSON.stringify(x)) as A

/** A copy with one random edit at a random node: a keyword removed, added, replaced, or nudged. */
export const mutate = (r: Rng, s: JsonSchema): JsonSchema => {
  if (typeof s === "boolean") return r.chance(0.5) ? !s : rootSchema(r)
  const out = copy(s) as Obj
  const draft07 = typeof out["$schema"] === "string" && out["$schema"].includes("draft-07")
  const nodes = objects(out as JsonValue)
  const n = r.pick(nodes)
  const keys = Object.keys(n).filter((k) => k !== "$schema" && k !== "$defs" && k !== "definitions")
  const e: Env = { r, draft07, defs: [] }
  switch (r.int(8)) {
    case 0: if (keys.length > 0) delete n[r.pick(keys)]; break
    case 1: Object.assign(n, family(e, 1)); break
    case 2: if (typeof n["type"] === "string" && n["type"] !== "null") n["type"] = [n["type"], "null"]; else n["type"] = r.pick(types); break
    case 3: for (const k of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) if (typeof n[k] === "number") n[k] = Math.max(0, (n[k] as number) + r.pick([-1, 1])); break
    case 4: n["additionalProperties"] = n["additionalProperties"] === false ? true : false; break
    case 5: n["required"] = [...new Set([...(Array.isArray(n["required"]) ? n["required"] : []), r.pick(names)])]; break
    case 6: if (Array.isArray(n["required"]) && n["required"].length > 0) n["required"] = (n["required"] as Array<JsonValue>).slice(1); else Object.assign(n, typed(e, r.pick(types), 1)); break
    default: if (out["$schema"] !== undefined) delete out["$schema"]; else out["$schema"] = "http://json-schema.org/draft-07/schema#"
  }
  return out
}

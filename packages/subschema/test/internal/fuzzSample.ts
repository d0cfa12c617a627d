/**
 * The fuzz suite's sampler: values a schema probably accepts, built from its keywords (through `$ref`,
 * branches, tuples, required and pattern properties, bounds and multiples, patterns and formats), plus
 * near misses and hostile values. The caller keeps the ones the cloud validator really accepts.
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import type { Rng } from "@toolgate/test-support/fuzzGenerate"
import { literals, names } from "@toolgate/test-support/fuzzGenerate"

type Obj = { readonly [k: string]: JsonValue }

const strings = [
  "", "a", "b", "ab", "abc", "xabcx", "aaa", "bbb", "foo", "bar", "n_1", "x", "0", "a1", "zzz", "c",
  "2024-01-31", "2024-01-31T10:00:00Z", "a@b.co", "123e4567-e89b-12d3-a456-426614174000", "10.0.0.1", "toString", "__proto__"
]
const numbers = [0, 1, -1, 2, 3, 5, 10, 0.5, -0.5, 2.5, 9.99, 9.995, 19.99, 0.01, 100, 1e21, 5e21, 2 ** 31, 2 ** 53, -3, 1.5]

/** An object with the given entries, every key an own data property (`__proto__` included). */
const object = (entries: ReadonlyArray<readonly [string, JsonValue]>): JsonValue => {
  const out: Record<string, JsonValue> = {}
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  return out
}

/** A random JSON value of any type. */
export const anyValue = (r: Rng, depth = 2): JsonValue => {
  switch (r.int(depth > 0 ? 7 : 5)) {
    case 0: return r.pick(strings)
    case 1: return r.pick(numbers)
    case 2: return r.pick<JsonValue>([null, true, false])
    case 3: return r.pick(literals)
    case 4: return r.int(5)
    case 5: return Array.from({ length: r.int(3) }, () => anyValue(r, depth - 1))
    default: return object(Array.from({ length: r.int(3) }, () => [r.pick(names), anyValue(r, depth - 1)] as const))
  }
}

const own = (o: Obj, k: string): JsonValue | undefined => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined)
const isObj = (v: JsonValue | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** A value the schema probably accepts (its root resolves `$ref`s). */
export const sample = (r: Rng, root: JsonSchema.JsonSchema, s: JsonValue | undefined, depth = 4): JsonValue => {
  if (!isObj(s) || depth <= 0) return anyValue(r, 1)
  const ref = own(s, "$ref")
  if (typeof ref === "string" && r.chance(0.8)) {
    const t = JsonSchema.resolveRef(root, ref)
    if (t._tag === "Resolved") return sample(r, root, t.schema, depth - 1)
  }
  const c = own(s, "const"), e = own(s, "enum")
  if (c !== undefined && r.chance(0.9)) return c
  if (Array.isArray(e) && e.length > 0 && r.chance(0.9)) return r.pick(e)
  for (const k of ["anyOf", "oneOf", "allOf"]) {
    const bs = own(s, k)
    if (Array.isArray(bs) && bs.length > 0 && r.chance(0.5)) return sample(r, root, r.pick(bs), depth - 1)
  }
  if (own(s, "if") !== undefined && r.chance(0.4)) return sample(r, root, r.chance(0.5) ? own(s, "then") : own(s, "if"), depth - 1)
  const t = own(s, "type")
  const ts = typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : []
  const type = ts.length > 0 ? r.pick(ts) : guess(r, s)
  switch (type) {
    case "null": return null
    case "boolean": return r.chance(0.5)
    case "integer": return Math.round(num(r, s))
    case "number": return num(r, s)
    case "string": return str(r, s)
    case "array": return arr(r, root, s, depth)
    case "object": return obj(r, root, s, depth)
    default: return anyValue(r)
  }
}

const guess = (r: Rng, s: Obj): string => {
  if (["properties", "required", "additionalProperties", "patternProperties", "dependentRequired"].some((k) => own(s, k) !== undefined)) return "object"
  if (["items", "prefixItems", "contains", "minItems", "uniqueItems"].some((k) => own(s, k) !== undefined)) return "array"
  if (["minLength", "maxLength", "pattern"].some((k) => own(s, k) !== undefined)) return "string"
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => own(s, k) !== undefined)) return "number"
  return r.pick(["null", "boolean", "integer", "number", "string", "array", "object"])
}

const num = (r: Rng, s: Obj): number => {
  const at = (k: string) => { const v = own(s, k); return typeof v === "number" ? v : undefined }
  const lo = at("minimum") ?? at("exclusiveMinimum"), hi = at("maximum") ?? at("exclusiveMaximum")
  const m = at("multipleOf")
  const edges = [lo, hi].filter((x): x is number => x !== undefined).flatMap((x) => [x, x + 0.5, x - 0.5, x + 0.005, x - 0.005, x + 1, x - 1])
  let v = r.chance(0.5) && edges.length > 0 ? r.pick(edges) : lo !== undefined && hi !== undefined ? lo + r.next() * (hi - lo) : r.pick(numbers)
  if (m !== undefined && m > 0 && r.chance(0.7)) v = Math.round(v / m) * m
  return r.chance(0.3) ? Math.round(v) : Number(v.toPrecision(6))
}

const str = (r: Rng, s: Obj): string => {
  const p = own(s, "pattern")
  let re: RegExp | undefined
  try {
    re = typeof p === "string" ? new RegExp(p, "u") : undefined
  } catch {
    re = undefined
  }
  const pool = re === undefined ? strings : strings.filter((x) => re.test(x))
  let v = r.pick(pool.length > 0 && r.chance(0.9) ? pool : strings)
  const min = own(s, "minLength"), max = own(s, "maxLength")
  if (typeof min === "number" && v.length < min && r.chance(0.7)) v = v.padEnd(min, v.slice(-1) || "a")
  if (typeof max === "number" && v.length > max && r.chance(0.7)) v = v.slice(0, max)
  return v
}

const arr = (r: Rng, root: JsonSchema.JsonSchema, s: Obj, depth: number): JsonValue => {
  const tuple = own(s, "prefixItems") ?? (Array.isArray(own(s, "items")) ? own(s, "items") : undefined)
  const rest = Array.isArray(own(s, "items")) ? own(s, "additionalItems") : own(s, "items")
  const min = typeof own(s, "minItems") === "number" ? (own(s, "minItems") as number) : 0
  const len = Math.min(min + r.int(3), 6)
  const out: Array<JsonValue> = []
  for (let i = 0; i < len; i++) {
    const sub = Array.isArray(tuple) && i < tuple.length ? tuple[i] : rest
    out.push(sample(r, root, sub, depth - 1))
  }
  const c = own(s, "contains")
  if (c !== undefined && r.chance(0.7)) out.splice(r.int(out.length + 1), 0, sample(r, root, c, depth - 1))
  return out
}

const obj = (r: Rng, root: JsonSchema.JsonSchema, s: Obj, depth: number): JsonValue => {
  const props = isObj(own(s, "properties")) ? (own(s, "properties") as Obj) : {}
  const req = Array.isArray(own(s, "required")) ? (own(s, "required") as Array<JsonValue>).filter((x): x is string => typeof x === "string") : []
  const keys = new Set<string>(req)
  for (const k of Object.keys(props)) if (r.chance(0.5)) keys.add(k)
  if (r.chance(0.3)) keys.add(r.pick(names))
  const pats = isObj(own(s, "patternProperties")) ? (own(s, "patternProperties") as Obj) : {}
  return object([...keys].map((k) => {
    const pat = Object.keys(pats).find((p) => { try { return new RegExp(p, "u").test(k) } catch { return false } })
    const sub = own(props, k) ?? (pat !== undefined ? pats[pat] : own(s, "additionalProperties"))
    return [k, sample(r, root, sub, depth - 1)] as const
  }))
}

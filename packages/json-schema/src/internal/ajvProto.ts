/**
 * The schema Ajv compiles in place of one that names `__proto__` where Ajv's generated code skips that
 * name: a `properties`, `patternProperties` or `dependencies` entry keyed `__proto__` (Ajv filters the key
 * out, so `{"__proto__": "x"}` passed `properties: {"__proto__": {"type": "integer"}}` unchecked). Each such
 * entry is also stated in a form Ajv checks, with the same subschema object:
 *
 * - `properties.__proto__: S` → also `patternProperties["^__proto__$"]: S` (a property a pattern matches is
 *   not additional nor unevaluated either, so `additionalProperties`/`unevaluatedProperties` read the same);
 * - `patternProperties.__proto__: S` → also `patternProperties["(?:__proto__)"]: S`, the same regex;
 * - `dependencies.__proto__: X` → also an `allOf` member `{"if": {"type": "object", "required": ["__proto__"]}, "then": X}`
 *   (`X` a list of names becomes `{"required": X}`).
 *
 * The original entries stay (Ajv still skips them), so every JSON pointer into the schema, `$ref`s
 * included, names what it named. Objects on the way to a change are copied; the rest is shared.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import type { JsonValue } from "../JsonValue.js"
import { isObject } from "../JsonValue.js"
import { children } from "./keywords.js"

type Obj = Record<string, JsonValue>

const PROTO = "__proto__"

/** Sets an own property, `__proto__` included, without touching any prototype. */
const put = (o: Obj | Array<JsonValue>, key: string | number, value: JsonValue): void => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A shallow copy keeping every own key (`__proto__` as a key). */
const copy = (o: JsonValue): Obj | Array<JsonValue> => {
  if (Array.isArray(o)) return [...o]
  const out: Obj = {}
  for (const k of Object.keys(o as Obj)) put(out, k, (o as Obj)[k]!)
  return out
}

const own = (o: JsonValue | undefined, key: string): JsonValue | undefined =>
  isObject(o) && Object.hasOwn(o, key) ? o[key] : undefined

/** `__proto__` as a regex, wrapped in `depth` non-capturing groups: the same pattern, another key. */
const spelling = (depth: number, anchored: boolean): string => {
  const core = `${"(?:".repeat(depth)}__proto__${")".repeat(depth)}`
  return anchored ? `^${core}$` : core
}

/** Adds a spelling of `__proto__` as a pattern (anchored or not), one not yet a key, to the object's `patternProperties` (copied). */
const addPattern = (out: Obj, anchored: boolean, value: JsonValue): void => {
  const current = own(out, "patternProperties")
  if (current !== undefined && !isObject(current)) return // an invalid schema: left for the meta-schema to refuse
  let depth = anchored ? 0 : 1
  while (own(current, spelling(depth, anchored)) !== undefined) depth++
  const next = (isObject(current) ? copy(current) : {}) as Obj
  put(next, spelling(depth, anchored), value)
  put(out, "patternProperties", next)
}

/** The object's own entries keyed `__proto__` restated in forms Ajv checks (see the module comment). */
const restate = (s: Obj): Obj | undefined => {
  const prop = own(own(s, "properties"), PROTO)
  const pattern = own(own(s, "patternProperties"), PROTO)
  const dep = own(own(s, "dependencies"), PROTO)
  if (prop === undefined && pattern === undefined && dep === undefined) return undefined
  const out = copy(s) as Obj
  if (prop !== undefined) addPattern(out, true, prop)
  if (pattern !== undefined) addPattern(out, false, pattern)
  if (dep !== undefined) {
    const all = own(out, "allOf")
    const then = Array.isArray(dep) ? { required: dep } : dep
    // an `allOf` that is not a list is an invalid schema, left for the meta-schema to refuse
    if (all === undefined || Array.isArray(all)) put(out, "allOf", [...(all ?? []), { if: { type: "object", required: [PROTO] }, then }])
  }
  return out
}

const rewrite = (s: JsonValue, memo: Map<object, JsonValue>): JsonValue => {
  if (!isObject(s)) return s
  const known = memo.get(s)
  if (known !== undefined) return known
  memo.set(s, s) // a cycle (not JSON, but possible in hostile input) ends here
  let out: Obj | undefined
  const copied = new Set<string>()
  for (const c of children(s)) {
    const r = rewrite(c.schema, memo)
    if (r === c.schema) continue
    out ??= copy(s) as Obj
    const [key, member] = c.tokens as [string, string | undefined]
    if (member === undefined) {
      put(out, key, r)
      continue
    }
    if (!copied.has(key)) (copied.add(key), put(out, key, copy(out[key]!)))
    put(out[key] as Obj, Array.isArray(out[key]) ? Number(member) : member, r)
  }
  const result = restate(out ?? s) ?? out ?? s
  memo.set(s, result)
  return result
}

/**
 * The schema Ajv should compile for `schema`: `schema` itself when it names no `__proto__` entry Ajv skips
 * (`content`, its canonical text when known, answers that at once), else the restated copy.
 */
export const forAjv = (schema: JsonSchema, content?: string): JsonSchema => {
  if (typeof schema !== "object" || (content !== undefined && !content.includes("\"__proto__\""))) return schema
  return rewrite(schema, new Map()) as JsonSchema
}

const spelled = /^\^?(?:\(\?:)*__proto__\)*\$?$/

/** Whether `pattern` of `schema`'s `patternProperties` is one `forAjv` added (a message lists the original entry only). */
export const isRestated = (schema: JsonSchema | undefined, pattern: string): boolean => {
  if (!isObject(schema) || pattern === PROTO || !spelled.test(pattern)) return false
  const patterns = own(schema, "patternProperties")
  const value = own(patterns, pattern)
  return value !== undefined && (value === own(own(schema, "properties"), PROTO) || value === own(patterns, PROTO))
}

/**
 * The prover's quick reading: a node's answer for one value computed directly from its keywords, as the
 * validator would give it, so that no validator is compiled; undefined wherever only the validator can tell.
 *
 * @internal
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonSchema as Schema } from "@toolgate/json-schema/JsonSchema"
import type { JsonArray, JsonObject, JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals, isObject } from "@toolgate/json-schema/JsonValue"
import { byIdentity } from "@toolgate/json-schema/SchemaCache"
import { Rules } from "@toolgate/json-schema/Validator"
import { inert, nullableRefused, numberFormats, stringFormats, universalFormats } from "./subschemaKeywords.js"
import type { Node } from "./subschemaModel.js"
import { child, isSchemaValue, kw, MAX_SUBSCHEMAS, regex } from "./subschemaModel.js"
import { baseOf, declaredTypes } from "./subschemaTypes.js"

const simple: ReadonlySet<string> = new Set([
  "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern"
])

const applicators: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else"])

// keywords the validator applies to one type of value only: on a value of another type they hold
const objectOnly: ReadonlySet<string> = new Set([
  "required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties", "propertyNames",
  "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"
])
const arrayOnly: ReadonlySet<string> = new Set([
  "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems"
])

// the keywords read on an object and on an array; the rest of each type's keywords are left to the validator
const objectRead: ReadonlySet<string> = new Set([
  "required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties", "propertyNames"
])
const arrayRead: ReadonlySet<string> = new Set(["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems"])

/** Whether key `k` of a node can be read for value `v`: read below, an annotation, an applicator, or for another type. */
const readable = (k: string, v: JsonValue): boolean => {
  if (simple.has(k) || applicators.has(k) || inert.has(k) || k === "format" || k === "multipleOf") return true
  if (objectOnly.has(k)) return !isObject(v) || objectRead.has(k)
  return arrayOnly.has(k) && (!Array.isArray(v) || arrayRead.has(k))
}

const hasOwn = Object.prototype.hasOwnProperty

/** A count keyword as the meta-schema allows it (absent, or a whole number ≥ 0). */
const isCount = (x: JsonValue | undefined): boolean => x === undefined || (Number.isInteger(x) && (x as number) >= 0)

/** A map of names to schemas (`properties`, `patternProperties`) with none Ajv would look up or skip on its own. */
const isSchemaMap = (x: JsonValue | undefined): x is JsonObject =>
  isObject(x) && Object.keys(x).every((k) => !Rules.prototypeNames.has(k) && isSchemaValue(x[k]))

/** Folds readings: false as soon as one is false, else undefined if one is, else true. */
const every = (answers: Iterable<boolean | undefined>): boolean | undefined => {
  let open = false
  for (const a of answers) {
    if (a === false) return false
    if (a === undefined) open = true
  }
  return open ? undefined : true
}

/** An object's members as Ajv checks them (names it looks up on `Object.prototype` are left to it). */
const membersHold = (n: Node, v: JsonObject, at: Reading): boolean | undefined => {
  const req = kw(n, "required"), props = kw(n, "properties"), patterns = kw(n, "patternProperties")
  const extra = kw(n, "additionalProperties"), names = kw(n, "propertyNames")
  const min = kw(n, "minProperties"), max = kw(n, "maxProperties")
  if (req !== undefined && (!Array.isArray(req) || new Set(req).size !== req.length || req.some((r) => typeof r !== "string" || Rules.prototypeNames.has(r)))) return undefined
  if ((props !== undefined && !isSchemaMap(props)) || (patterns !== undefined && !isSchemaMap(patterns))) return undefined
  if (patterns !== undefined && Object.keys(patterns).some((p) => regex(p) === undefined)) return undefined
  if ((extra !== undefined && !isSchemaValue(extra)) || (names !== undefined && !isSchemaValue(names)) || !isCount(min) || !isCount(max)) return undefined
  const keys = Object.keys(v)
  if ((min !== undefined && keys.length < (min as number)) || (max !== undefined && keys.length > (max as number))) return false
  if (req !== undefined && (req as ReadonlyArray<string>).some((r) => !hasOwn.call(v, r))) return false
  return every(keys.flatMap((key) => {
    const x = v[key]!
    const out: Array<boolean | undefined> = names === undefined ? [] : [read(child(n, names, "propertyNames"), key, at)]
    if (props !== undefined && hasOwn.call(props, key)) out.push(read(child(n, props[key] as Schema, "properties", key), x, at))
    const matching = patterns === undefined ? [] : Object.keys(patterns).filter((p) => regex(p)!.test(key))
    for (const p of matching) out.push(read(child(n, patterns![p] as Schema, "patternProperties", p), x, at))
    if (extra !== undefined && matching.length === 0 && !(props !== undefined && hasOwn.call(props, key))) {
      out.push(read(child(n, extra, "additionalProperties"), x, at))
    }
    return out
  }))
}

/**
 * An array's items as the dialect's Ajv checks them: 2020-12 `prefixItems` then `items`; draft-07 `items`
 * (a list of schemas: a tuple, then `additionalItems`, which is ignored beside a single `items` schema).
 */
const itemsHold = (n: Node, v: JsonArray, at: Reading): boolean | undefined => {
  const min = kw(n, "minItems"), max = kw(n, "maxItems"), unique = kw(n, "uniqueItems")
  const items = kw(n, "items"), prefix = kw(n, "prefixItems"), extra = kw(n, "additionalItems")
  if (!isCount(min) || !isCount(max) || (unique !== undefined && typeof unique !== "boolean")) return undefined
  if ((extra !== undefined && !isSchemaValue(extra)) || (prefix !== undefined && !(Array.isArray(prefix) && prefix.every(isSchemaValue)))) return undefined
  const tuple = Array.isArray(items) && n.dialect === "draft-07"
  if (items !== undefined && !isSchemaValue(items) && !(tuple && (items as JsonArray).every(isSchemaValue))) return undefined
  if ((items !== undefined || prefix !== undefined || extra !== undefined) && n.dialect === undefined) return undefined
  if ((min !== undefined && v.length < (min as number)) || (max !== undefined && v.length > (max as number))) return false
  if (unique === true && Rules.duplicateItems(v) !== undefined) return false
  const head = tuple ? items as JsonArray : prefix as JsonArray | undefined ?? []
  const headKey = tuple ? "items" : "prefixItems"
  const rest = tuple ? extra : items, restKey = tuple ? "additionalItems" : "items"
  return every(v.map((x, i) =>
    i < head.length ? read(child(n, head[i] as Schema, headKey, i), x, at) : rest === undefined ? true : read(child(n, rest as Schema, restKey), x, at)
  ))
}

/**
 * Whether `$ref`s in a root name what the prover's resolver says: no subschema below the root has an `$id`
 * (which would give the references under it another base). Once per root.
 */
const plain = byIdentity((root: Schema): boolean => {
  const stack: Array<Schema> = [root]
  for (let seen = 0; stack.length > 0; seen++) {
    const s = stack.pop()!
    if (seen > MAX_SUBSCHEMAS || (seen > 0 && typeof s === "object" && s["$id"] !== undefined)) return false
    for (const c of JsonSchema.subschemas(s)) stack.push(c.schema)
  }
  return true
})

// `$ref`s one reading may follow in all: a loop that never reaches into the value, or branches over
// references (`anyOf: [{$ref: "#"}, {$ref: "#"}]`), gives up here instead of recurring without end
const MAX_FOLLOWS = 64

/** One reading: the root its `$ref`s name subschemas of, and the follows spent so far. */
interface Reading {
  readonly root: Schema | undefined
  follows: number
}

/** The node a `$ref` names in a plain root, or undefined when it names none there. */
const referenced = (root: Schema, n: Node, ref: string): Node | undefined => {
  const r = JsonSchema.resolveRef(root, ref)
  if (r._tag === "Unresolvable") return undefined
  return n.dialect === undefined ? { schema: r.schema, ptr: r.pointer } : { schema: r.schema, ptr: r.pointer, dialect: n.dialect }
}

/**
 * Whether format `f` holds for `v` as the validator (ajv-formats) checks it; undefined for a string format
 * on a string, which needs the format's own test. A format applies to values of its type only, and names
 * ajv-formats does not define are ignored.
 */
const formatHolds = (f: string, v: JsonValue): boolean | undefined => {
  if (typeof v === "string") return stringFormats.has(f) && !universalFormats.has(f) ? undefined : true
  if (typeof v !== "number" || !numberFormats.has(f) || universalFormats.has(f)) return true
  return Number.isInteger(v) && (f === "int64" || (v >= -(2 ** 31) && v <= 2 ** 31 - 1))
}

/** The node's applicators on `v`: false as soon as one certainly fails, undefined where one cannot be read. */
const applied = (n: Node, v: JsonValue, at: Reading): boolean | undefined => {
  const branches = (key: string): ReadonlyArray<boolean | undefined> | undefined => {
    const b = kw(n, key)
    return Array.isArray(b) ? b.map((x, i) => isSchemaValue(x) ? read(child(n, x, key, i), v, at) : undefined) : undefined
  }
  const one = (key: string): boolean | undefined => {
    const x = kw(n, key)
    return x === undefined ? true : isSchemaValue(x) ? read(child(n, x, key), v, at) : undefined
  }
  const answers: Array<boolean | undefined> = []
  if (kw(n, "allOf") !== undefined) {
    const b = branches("allOf")
    answers.push(b === undefined ? undefined : b.includes(false) ? false : b.includes(undefined) ? undefined : true)
  }
  if (kw(n, "anyOf") !== undefined) {
    const b = branches("anyOf")
    answers.push(b === undefined ? undefined : b.includes(true) ? true : b.includes(undefined) ? undefined : false)
  }
  if (kw(n, "oneOf") !== undefined) {
    const b = branches("oneOf")
    const valid = b?.filter((x) => x === true).length ?? 0
    answers.push(b === undefined ? undefined : valid > 1 ? false : b.includes(undefined) ? undefined : valid === 1)
  }
  if (kw(n, "not") !== undefined) {
    const x = one("not")
    answers.push(x === undefined ? undefined : !x)
  }
  if (kw(n, "if") !== undefined) {
    const c = one("if")
    answers.push(c === undefined ? undefined : one(c ? "then" : "else"))
  }
  return answers.includes(false) ? false : answers.includes(undefined) ? undefined : true
}

/** `quick` within one reading (its `$ref` follows counted together). */
const read = (n: Node, v: JsonValue, at: Reading): boolean | undefined => {
  const s = n.schema
  if (typeof s === "boolean") return s
  let applies = false
  for (const k of Object.keys(s)) {
    if (n.skip?.has(k) === true) continue
    if (!readable(k, v) && !(k === "$ref" && at.root !== undefined && plain(at.root))) return undefined
    if (applicators.has(k)) applies = true
  }
  const t = declaredTypes(n)
  if (t === "invalid") return undefined
  // what the validator refuses to compile: a `nullable` it refuses, a format that is not a string, a
  // `multipleOf` that is not a positive number
  const nullable = kw(n, "nullable"), format = kw(n, "format"), m = kw(n, "multipleOf")
  if (nullableRefused(nullable, kw(n, "type"))) return undefined
  if ((format !== undefined && typeof format !== "string") || (m !== undefined && (typeof m !== "number" || !(m > 0)))) return undefined
  const b = baseOf(v)
  if (t !== undefined && !t.has(b)) return false
  const c = kw(n, "const"), e = kw(n, "enum")
  if (c !== undefined && !equals(c, v)) return false
  if (e !== undefined && (!Array.isArray(e) || !e.some((x) => equals(x, v)))) return Array.isArray(e) ? false : undefined
  if (typeof v === "number") {
    const lo = kw(n, "minimum"), elo = kw(n, "exclusiveMinimum"), hi = kw(n, "maximum"), ehi = kw(n, "exclusiveMaximum")
    if ([lo, elo, hi, ehi].some((x) => x !== undefined && typeof x !== "number")) return undefined
    if ((lo !== undefined && v < (lo as number)) || (elo !== undefined && v <= (elo as number))) return false
    if ((hi !== undefined && v > (hi as number)) || (ehi !== undefined && v >= (ehi as number))) return false
    if (m !== undefined && !Rules.isMultipleOf(v, m as number)) return false
  }
  if (format !== undefined) {
    const holds = formatHolds(format as string, v)
    if (holds !== true) return holds
  }
  if (typeof v === "string") {
    const min = kw(n, "minLength"), max = kw(n, "maxLength"), p = kw(n, "pattern")
    if ([min, max].some((x) => x !== undefined && typeof x !== "number") || (p !== undefined && typeof p !== "string")) return undefined
    const len = min !== undefined || max !== undefined ? [...v].length : 0
    if ((min !== undefined && len < (min as number)) || (max !== undefined && len > (max as number))) return false
    if (p !== undefined) {
      const r = regex(p as string)
      if (r === undefined) return undefined
      if (!r.test(v)) return false
    }
  }
  const held = isObject(v) ? membersHold(n, v, at) : Array.isArray(v) ? itemsHold(n, v, at) : true
  if (held !== true) return held
  const ref = kw(n, "$ref")
  if (ref !== undefined) {
    const target = typeof ref === "string" ? referenced(at.root!, n, ref) : undefined
    if (target === undefined || ++at.follows > MAX_FOLLOWS) return undefined
    const r = read(target, v, at)
    if (r !== true) return r
  }
  return applies ? applied(n, v, at) : true
}

/**
 * The validator's answer for a value against a node made only of simple keywords (type with Ajv's
 * `nullable`, enum/const, bounds, exact `multipleOf`, lengths, pattern, a format that needs no string
 * test), an object's members and an array's items read through such nodes, applicators over them,
 * annotations, keywords of other types than the value's, and, given the node's `root`, a `$ref` that
 * names a subschema of a root without embedded `$id`s; computed directly so no validator is compiled;
 * undefined for anything else (`contains`, dependencies, a string format, …).
 */
export const quick = (n: Node, v: JsonValue, root?: Schema): boolean | undefined => read(n, v, { root, follows: 0 })

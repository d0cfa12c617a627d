/**
 * A quick reading of the draft-07 and 2020-12 meta-schemas for the schemas tools publish: `true` only
 * where the meta-schema certainly accepts the schema, every keyword it defines holding a value of the
 * shape it asks for; `false` wherever that is not plain at a glance (an `$id`, an `enum` of objects,
 * a nesting past 64 levels), and then Ajv's check decides. Formats are checked by the meta-schema
 * instance's own format functions. It reads the schema in microseconds where the
 * compiled meta-schema takes a tenth of a millisecond, and the prover asks it of every local schema
 * (`Validator.Rules.metaCheck`).
 *
 * @internal
 */

/** One keyword's rule: whether its value certainly has the meta-schema's shape; schemas in it go on `push`. */
type Rule = (v: unknown, push: (s: unknown) => void) => boolean

const never: Rule = () => false
const any: Rule = () => true
const isString: Rule = (v) => typeof v === "string"
const isBoolean: Rule = (v) => typeof v === "boolean"
const isNumber: Rule = (v) => typeof v === "number" && Number.isFinite(v)
const positive: Rule = (v) => typeof v === "number" && Number.isFinite(v) && v > 0
const count: Rule = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0
const isArray: Rule = (v) => Array.isArray(v)
const schema: Rule = (v, push) => {
  push(v)
  return true
}
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
const schemaArray: Rule = (v, push) => {
  if (!Array.isArray(v) || v.length === 0) return false
  for (const s of v) push(s)
  return true
}
const schemaMap: Rule = (v, push) => {
  if (!isRecord(v)) return false
  for (const k of Object.getOwnPropertyNames(v)) push(v[k])
  return true
}
/** Distinct strings (the meta-schemas' `stringArray`; `uniqueItems` on strings is plain string equality). */
const stringArray: Rule = (v) => Array.isArray(v) && v.every((x) => typeof x === "string") && new Set(v).size === v.length
const simpleTypes: ReadonlySet<unknown> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"])
const type: Rule = (v) =>
  simpleTypes.has(v) || (Array.isArray(v) && v.length > 0 && v.every((x) => simpleTypes.has(x)) && new Set(v).size === v.length)
const anchor: Rule = (v) => typeof v === "string" && /^[A-Za-z_][-A-Za-z0-9._]*$/.test(v)
/** draft-07's `enum`: at least one item, all distinct; certain here only for scalars (`-0` and `0` are equal). */
const enum07: Rule = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x !== "object" || x === null) && new Set(v).size === v.length
const dependencies: Rule = (v, push) => {
  if (!isRecord(v)) return false
  for (const k of Object.getOwnPropertyNames(v)) {
    const d = v[k]
    if (Array.isArray(d)) {
      if (!stringArray(d, push)) return false
    } else push(d)
  }
  return true
}

/** The meta-schema instance's own checks of the `regex` and `uri-reference` formats. */
export interface Formats {
  readonly regex: (s: string) => boolean
  readonly uriReference: (s: string) => boolean
}

/** The keywords both meta-schemas define with the same shape. */
const common = ({ regex, uriReference }: Formats): Record<string, Rule> => ({
  $comment: isString, title: isString, description: isString, format: isString, contentMediaType: isString, contentEncoding: isString,
  default: any, const: any, examples: isArray, readOnly: isBoolean, uniqueItems: isBoolean,
  multipleOf: positive, maximum: isNumber, exclusiveMaximum: isNumber, minimum: isNumber, exclusiveMinimum: isNumber,
  maxLength: count, minLength: count, maxItems: count, minItems: count, maxProperties: count, minProperties: count,
  pattern: (v) => typeof v === "string" && regex(v),
  required: stringArray, type,
  additionalProperties: schema, propertyNames: schema, contains: schema, if: schema, then: schema, else: schema, not: schema,
  properties: schemaMap, definitions: schemaMap, dependencies,
  patternProperties: (v, push) => isRecord(v) && Object.getOwnPropertyNames(v).every((k) => regex(k)) && schemaMap(v, push),
  allOf: schemaArray, anyOf: schemaArray, oneOf: schemaArray,
  $ref: (v) => typeof v === "string" && uriReference(v), $id: never
})

/** Every keyword of the draft-07 meta-schema (any other keyword is free there). */
const draft07 = (formats: Formats): ReadonlyMap<string, Rule> =>
  new Map(Object.entries({
    ...common(formats),
    $schema: (v: unknown) => v === "http://json-schema.org/draft-07/schema#",
    items: (v: unknown, push: (s: unknown) => void) => Array.isArray(v) ? schemaArray(v, push) : schema(v, push),
    additionalItems: schema,
    enum: enum07
  }))

/** Every keyword of the 2020-12 meta-schema and its vocabularies (any other keyword is free there). */
const draft2020 = (formats: Formats): ReadonlyMap<string, Rule> => {
  const uriReference = (v: unknown) => typeof v === "string" && formats.uriReference(v)
  return new Map(Object.entries({
    ...common(formats),
    $schema: (v: unknown) => v === "https://json-schema.org/draft/2020-12/schema",
    items: schema, prefixItems: schemaArray, enum: isArray,
    maxContains: count, minContains: count, dependentRequired: (v: unknown) => isRecord(v) && Object.values(v).every((x) => stringArray(x, () => {})),
    dependentSchemas: schemaMap, $defs: schemaMap, unevaluatedItems: schema, unevaluatedProperties: schema, contentSchema: schema,
    deprecated: isBoolean, writeOnly: isBoolean,
    $anchor: anchor, $dynamicAnchor: anchor, $recursiveAnchor: anchor, $dynamicRef: uriReference, $recursiveRef: uriReference, $vocabulary: never
  }))
}

const MAX_DEPTH = 64
const MAX_NODES = 4_000

/**
 * The reader for one dialect: whether its meta-schema certainly accepts a schema. `formats` are those of
 * the meta-schema's own Ajv instance.
 */
export const certainlyValid = (dialect: "2020-12" | "draft-07", formats: Formats): (root: unknown) => boolean => {
  const rules = dialect === "2020-12" ? draft2020(formats) : draft07(formats)
  return (root) => {
    const stack: Array<readonly [unknown, number]> = [[root, 0]]
    let depth = 0
    const push = (s: unknown) => stack.push([s, depth + 1])
    for (let n = 0; stack.length > 0; n++) {
      const [s, d] = stack.pop()!
      if (typeof s === "boolean") continue
      if (!isRecord(s) || d > MAX_DEPTH || n > MAX_NODES) return false
      depth = d
      for (const k of Object.getOwnPropertyNames(s)) {
        const rule = rules.get(k)
        if (rule !== undefined && !rule(s[k], push)) return false
      }
    }
    return true
  }
}

/** The keywords each reader knows, for the test that holds them to the meta-schemas' own lists. */
export const keywords = (dialect: "2020-12" | "draft-07"): ReadonlyArray<string> =>
  [...(dialect === "2020-12" ? draft2020 : draft07)({ regex: () => false, uriReference: () => false }).keys()]

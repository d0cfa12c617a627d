/**
 * Keyword tables and the enumeration of subschema locations, shared by dialect detection, `upgrade`,
 * `$anchor` lookup and the prover (through `JsonSchema.Keywords` and `JsonSchema.subschemas`).
 *
 * @internal
 */
import type { JsonValue } from "../JsonValue.js"

/** Keywords whose value is one subschema. */
export const singleSchema: ReadonlySet<string> = new Set([
  "not",
  "if",
  "then",
  "else",
  "additionalItems",
  "additionalProperties",
  "propertyNames",
  "contains",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema"
])

/** Keywords whose value is an array of subschemas. */
export const schemaArray: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])

/** Keywords whose value is an object of subschemas. */
export const schemaMap: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas"
])

/** Applicator keywords (they apply subschemas), per dialect. */
export const applicators: Readonly<Record<"2020-12" | "draft-07", ReadonlySet<string>>> = {
  "2020-12": new Set([
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
    "contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "$ref", "$dynamicRef"
  ]),
  "draft-07": new Set([
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependencies", "items", "additionalItems",
    "contains", "properties", "patternProperties", "additionalProperties", "propertyNames", "$ref"
  ])
}

/** Assertion keywords (they constrain the instance directly), per dialect. */
export const assertions: Readonly<Record<"2020-12" | "draft-07", ReadonlySet<string>>> = {
  "2020-12": new Set([
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired", "format"
  ]),
  "draft-07": new Set([
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties",
    "minProperties", "required", "format"
  ])
}

/** Annotation-only keywords: they never change what validates. */
export const annotations: ReadonlySet<string> = new Set([
  "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment",
  "contentEncoding", "contentMediaType"
])

/** Core identifier keywords. */
export const core: ReadonlySet<string> = new Set([
  "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions", "$ref", "$dynamicRef"
])

/** Keywords that exist only in draft-07 (or whose draft-07 form is invalid in 2020-12). */
export const draft07Only: ReadonlySet<string> = new Set(["definitions", "additionalItems", "dependencies"])

/** Keywords that exist only since 2019-09 / 2020-12. */
export const since2019: ReadonlySet<string> = new Set([
  "$defs", "prefixItems", "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
  "$dynamicRef", "$dynamicAnchor", "$anchor", "maxContains", "minContains", "$vocabulary"
])

const isSchemaLike = (v: JsonValue | undefined): boolean =>
  typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))

/** A subschema location: the path tokens from the parent schema and the subschema itself. */
export interface Child {
  readonly tokens: ReadonlyArray<string>
  readonly schema: JsonValue
}

/** The direct subschemas of a schema object, in key order (both dialects' locations). */
export const children = (schema: { readonly [k: string]: JsonValue }): Array<Child> => {
  const out: Array<Child> = []
  for (const key of Object.keys(schema)) {
    const v = schema[key]
    if (v === undefined) continue
    if (singleSchema.has(key) || key === "items") {
      if (isSchemaLike(v)) out.push({ tokens: [key], schema: v })
      else if (key === "items" && Array.isArray(v)) pushArray(out, key, v)
    } else if (schemaArray.has(key)) {
      if (Array.isArray(v)) pushArray(out, key, v)
    } else if (schemaMap.has(key) || key === "dependencies") {
      if (typeof v === "object" && v !== null && !Array.isArray(v)) {
        for (const name of Object.keys(v)) {
          const s = (v as { readonly [k: string]: JsonValue })[name]
          if (isSchemaLike(s)) out.push({ tokens: [key, name], schema: s! })
        }
      }
    }
  }
  return out
}

const pushArray = (out: Array<Child>, key: string, v: ReadonlyArray<JsonValue>): void => {
  for (let i = 0; i < v.length; i++) {
    const s = v[i]
    if (isSchemaLike(s)) out.push({ tokens: [key, String(i)], schema: s! })
  }
}

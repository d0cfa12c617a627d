/**
 * The prover's explicit keyword lists, per dialect: what it models on the local side, what the local
 * validator enforces but the prover does not model (`Unsupported`), and what it may ignore (annotations,
 * vendor keys, keywords the validator itself ignores).
 *
 * @internal
 */
import type { Dialect, JsonSchema } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { Rules } from "@toolgate/json-schema/Validator"
import { Pointer as P, subschemas as children } from "@toolgate/json-schema/JsonSchema"
import type { Node } from "./subschemaModel.js"

const shared = [
  "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "format", "maxItems", "minItems", "uniqueItems", "items", "contains",
  "maxProperties", "minProperties", "required", "properties", "patternProperties", "additionalProperties",
  "propertyNames", "dependencies", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref"
]

/** Local keywords the prover models, per dialect (the rest of Ajv's vocabulary is `Unsupported`). */
export const modelled: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  "2020-12": new Set([...shared, "prefixItems", "dependentRequired", "dependentSchemas"]),
  "draft-07": new Set([...shared, "additionalItems"])
}

/**
 * Keywords one dialect's validator enforces and the other's ignores (Ajv's draft-07 class has no
 * `dependentRequired`, `prefixItems`, …; its 2020-12 class no `additionalItems`). Read on a node of the
 * other dialect they are not facts: the prover reads every keyword by the dialect of its root.
 */
export const foreign: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  "draft-07": new Set([
    "prefixItems", "dependentRequired", "dependentSchemas", "minContains", "maxContains", "unevaluatedProperties",
    "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"
  ]),
  "2020-12": new Set(["additionalItems"])
}

/** The comparison keywords ajv-formats adds. */
const formatLimits = ["formatMaximum", "formatMinimum", "formatExclusiveMaximum", "formatExclusiveMinimum"]

/** Keywords the local validator (Ajv, per dialect) enforces that the prover does not model. */
export const unmodelled: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  "2020-12": new Set([
    "$dynamicRef", "$recursiveRef", "maxContains", "minContains", "unevaluatedProperties", "unevaluatedItems", "id",
    "$async", ...formatLimits
  ]),
  // `$async`: the validator refuses asynchronous schemas, so the executor would reject every call
  "draft-07": new Set(["id", "$async", ...formatLimits])
}

/**
 * Keywords with no effect on what validates, for either side: annotations, identifiers, containers.
 * `nullable` only ever widens the local schema (Ajv accepts `null` with it), so ignoring it is safe for
 * a proof; a witness is checked against the real validator anyway. Every other key the dialect's Ajv does
 * not know (vendor `x-*` keys, `optional`, `example_value`, …) is ignored by the validator too.
 */
export const inert: ReadonlySet<string> = new Set([
  "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "$comment", "$defs",
  "definitions", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
  "contentEncoding", "contentMediaType", "contentSchema", "nullable"
])

/** The first local keyword on a node that the local validator enforces but the prover does not model. */
export const firstUnmodelled = (n: Node, dialect: Dialect): string | undefined => {
  if (typeof n.schema !== "object") return undefined
  const bad = unmodelled[dialect]
  for (const k of Object.keys(n.schema)) {
    if (n.skip?.has(k) === true) continue
    if (bad.has(k)) return k
    if (k === "$id" && n.ptr !== "" && !String(n.schema[k]).startsWith("#")) return "embedded $id"
  }
  return undefined
}

/**
 * Whether Ajv refuses a node's `nullable` at compile: not a boolean, without a `type`, or `false` beside
 * type `null` (the meta-schema does not know the keyword, so it says nothing of these).
 */
export const nullableRefused = (nullable: JsonValue | undefined, type: JsonValue | undefined): boolean => {
  if (nullable === undefined) return false
  const withNull = type === "null" || (Array.isArray(type) && type.includes("null"))
  return typeof nullable !== "boolean" || type === undefined || (nullable === false && withNull)
}

/** The formats the validator enforces, as it reads them: strings, numbers, and those that accept every value of their type. */
export const { numberFormats, stringFormats, universalFormats } = Rules

// Where Ajv runs first-error code: `not`, an `if`'s condition, and definitions a `$ref` there may inline.
const firstErrorAt: ReadonlySet<string> = new Set(["not", "if", "$defs", "definitions"])

/**
 * The first construct where Ajv's code is known to answer otherwise than the specification the prover
 * reads, so a proof would not hold for the validator that runs the schema (both found by the fuzz suite):
 * - `contains` beside a tuple (2020-12 `prefixItems`, a draft-07 `items` array) under a `not`, an `if` or in
 *   definitions: in the first-error code Ajv runs there, an array shorter than the tuple skips `contains`, so
 *   `{not: {contains: true, prefixItems: [false]}}` rejects `[]` (seed 40404);
 * - `patternProperties` beside an `if`, `anyOf` or `oneOf` in one schema object: Ajv's code merging the
 *   properties its branches evaluated has thrown on a value with a matching key (`Cannot set properties of
 *   undefined`, seeds 50505 and 9).
 */
export const misjudged = (root: JsonSchema): { readonly construct: string; readonly path: string } | undefined => {
  const stack: Array<readonly [JsonValue, string, boolean]> = [[root, "", false]]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const [v, p, firstError] = stack.pop()!
    if (typeof v !== "object" || v === null || Array.isArray(v) || seen.has(v)) continue
    seen.add(v)
    const s = v as { readonly [k: string]: JsonValue }
    if (firstError && s["contains"] !== undefined && (Array.isArray(s["prefixItems"]) || Array.isArray(s["items"]))) {
      return { construct: "contains beside a tuple under not or if (Ajv skips it on shorter arrays there)", path: P.append(p, "contains") }
    }
    if (s["patternProperties"] !== undefined && (s["if"] !== undefined || s["anyOf"] !== undefined || s["oneOf"] !== undefined)) {
      return { construct: "patternProperties beside an if, anyOf or oneOf (Ajv's code for it throws on some values)", path: P.append(p, "patternProperties") }
    }
    for (const c of children(s)) stack.push([c.schema, c.tokens.reduce(P.append, p), firstError || firstErrorAt.has(c.tokens[0]!)])
  }
  return undefined
}

/**
 * The first construct in a local schema whose validator semantics the prover does not trust (Ajv is known
 * to differ from the specification there; see the Conformance pins): dynamic references, `unevaluated*`
 * next to `contains` or an `if` without `then`, and a draft-07 `$ref` with sibling keywords. A finite cloud
 * side is not decided by the validator, and no witness is reported, when a schema has one.
 */
export const untrusted = (root: JsonSchema, dialect: Dialect): { readonly construct: string; readonly path: string } | undefined => {
  const stack: Array<readonly [JsonValue, string]> = [[root, ""]]
  const seen = new Set<object>()
  const found = new Map<string, string>()
  while (stack.length > 0) {
    const [v, p] = stack.pop()!
    if (typeof v !== "object" || v === null || Array.isArray(v) || seen.has(v)) continue
    seen.add(v)
    const s = v as { readonly [k: string]: JsonValue }
    for (const k of Object.keys(s)) {
      if (!found.has(k)) found.set(k, P.append(p, k))
      if (k === "if" && s["then"] === undefined) found.set("if without then", p)
      if (k === "$ref" && dialect === "draft-07" && Object.keys(s).some((o) => o !== "$ref" && !inert.has(o))) {
        return { construct: "draft-07 $ref with sibling keywords", path: P.append(p, k) }
      }
    }
    for (const c of children(s)) stack.push([c.schema, c.tokens.reduce(P.append, p)])
  }
  for (const k of ["$dynamicRef", "$recursiveRef"]) if (found.has(k)) return { construct: k, path: found.get(k)! }
  const ui = found.get("unevaluatedItems"), up = found.get("unevaluatedProperties")
  if (ui !== undefined && ["contains", "if without then"].some((k) => found.has(k))) {
    return { construct: "unevaluatedItems with contains or an if without then", path: ui }
  }
  if (up !== undefined && found.has("if without then")) return { construct: "unevaluatedProperties with an if without then", path: up }
  return undefined
}

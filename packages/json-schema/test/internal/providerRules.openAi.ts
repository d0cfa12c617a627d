/**
 * OpenAI's published rules for strict-mode tool schemas, written once as a checker the tests share. It is
 * an oracle: it reads the schema on its own terms and imports nothing of the transform it checks.
 * Sources: the contract (shared/seeds/002, section 1) and OpenAI's Structured Outputs "supported schemas".
 */
import * as JsonSchema from "../../src/JsonSchema.js"
import type { JsonValue } from "../../src/JsonValue.js"

/** One broken rule: where (a JSON pointer into the checked schema) and which rule. */
export interface Violation {
  readonly path: string
  readonly rule: string
}

/** Keywords strict mode does not accept (contract 1.1, plus draft-07's `dependencies`). */
export const unsupportedKeywords: ReadonlyArray<string> = [
  "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "minItems", "maxItems", "uniqueItems", "multipleOf", "$schema", "examples", "default", "title", "$comment",
  "if", "then", "else", "not", "unevaluatedProperties", "unevaluatedItems", "patternProperties", "propertyNames",
  "contains", "minContains", "maxContains", "dependentRequired", "dependentSchemas", "contentEncoding",
  "contentMediaType", "contentSchema", "deprecated", "readOnly", "writeOnly", "minProperties", "maxProperties",
  "$dynamicRef", "$dynamicAnchor", "dependencies", "const", "oneOf", "allOf"
]

/** OpenAI's published size limits. */
export const openAiLimits = { properties: 5000, objectNesting: 10, enumValues: 1000 } as const

type Node = { readonly [k: string]: JsonValue }

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)
const isNode = (u: unknown): u is Node => typeof u === "object" && u !== null && !Array.isArray(u)
const types = (n: Node): ReadonlyArray<unknown> =>
  !has(n, "type") ? [] : Array.isArray(n["type"]) ? n["type"] : [n["type"]]
const pureUnion = (n: JsonValue): boolean =>
  isNode(n) && Array.isArray(n["anyOf"]) && Object.keys(n).every((k) => k === "anyOf" || k === "description")

/** Every rule the schema breaks (empty when OpenAI strict mode would accept it). */
export const checkOpenAiStrict = (root: JsonValue): ReadonlyArray<Violation> => {
  const out: Array<Violation> = []
  if (!isNode(root) || root["type"] !== "object" || has(root, "anyOf")) {
    out.push({ path: "", rule: "the root is a plain `type: \"object\"` schema" })
  }
  let properties = 0
  let enumValues = 0
  const stack: Array<{ node: JsonValue; path: string; objects: number }> = [{ node: root, path: "", objects: 0 }]
  while (stack.length > 0) {
    const { node, objects, path } = stack.pop()!
    if (!isNode(node)) {
      out.push({ path, rule: "every node is a schema object (no boolean schemas)" })
      continue
    }
    const ts = types(node)
    if (ts.length === 0 && !Array.isArray(node["anyOf"]) && typeof node["$ref"] !== "string") {
      out.push({ path, rule: "every node has a `type`, an `anyOf` or a `$ref`" })
    }
    for (const k of unsupportedKeywords) if (has(node, k)) out.push({ path, rule: `no \`${k}\`` })
    const level = ts.includes("object") ? objects + 1 : objects
    if (level > openAiLimits.objectNesting) out.push({ path, rule: `at most ${openAiLimits.objectNesting} levels of objects` })
    if (ts.includes("object")) {
      const props = isNode(node["properties"]) ? Object.keys(node["properties"]) : undefined
      if (node["additionalProperties"] !== false) out.push({ path, rule: "every object has `additionalProperties: false`" })
      if (props === undefined) out.push({ path, rule: "every object has `properties`" })
      const req = node["required"]
      const same = Array.isArray(req) && props !== undefined && req.length === props.length &&
        props.every((p) => req.includes(p))
      if (!same) out.push({ path, rule: "every object requires exactly its properties" })
      properties += props?.length ?? 0
    }
    if (ts.includes("array") && !has(node, "items") && !has(node, "prefixItems")) {
      out.push({ path, rule: "every array has `items`" })
    }
    if (Array.isArray(node["enum"])) enumValues += node["enum"].length
    if (typeof node["$ref"] === "string" && JsonSchema.resolveRef(root as JsonSchema.JsonSchema, node["$ref"])._tag !== "Resolved") {
      out.push({ path, rule: "every `$ref` resolves inside the schema" })
    }
    if (Array.isArray(node["anyOf"])) {
      if (node["anyOf"].length === 0) out.push({ path, rule: "`anyOf` is not empty" })
      node["anyOf"].forEach((b, i) => {
        if (pureUnion(b)) out.push({ path: `${path}/anyOf/${i}`, rule: "no `anyOf` branch is itself a pure union" })
      })
    }
    for (const c of children(node, path)) stack.push({ ...c, objects: level })
  }
  if (properties > openAiLimits.properties) out.push({ path: "", rule: `at most ${openAiLimits.properties} properties` })
  if (enumValues > openAiLimits.enumValues) out.push({ path: "", rule: `at most ${openAiLimits.enumValues} enum values` })
  return out
}

const esc = (t: string | number): string => String(t).replace(/~/g, "~0").replace(/\//g, "~1")

const children = (node: Node, path: string): Array<{ node: JsonValue; path: string }> => {
  const out: Array<{ node: JsonValue; path: string }> = []
  for (const key of ["properties", "$defs", "definitions"]) {
    const map = node[key]
    if (has(node, key) && isNode(map)) for (const k of Object.keys(map)) out.push({ node: map[k]!, path: `${path}/${key}/${esc(k)}` })
  }
  for (const key of ["anyOf", "prefixItems", "items", "additionalItems", "additionalProperties"]) {
    if (!has(node, key)) continue
    const v = node[key]!
    if (Array.isArray(v)) v.forEach((x, i) => out.push({ node: x, path: `${path}/${key}/${i}` }))
    else if (v !== false) out.push({ node: v, path: `${path}/${key}` })
  }
  return out
}

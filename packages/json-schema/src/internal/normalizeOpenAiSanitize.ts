/**
 * The sanitize pass of OpenAI strict mode (contract section 1.1 and 1.2): a copy of the schema without
 * the keywords strict mode does not support, `default` inlined into `description`, `const` as `enum`.
 * Only schema positions are walked, so a property named `format` stays a property.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import type { JsonObject, JsonValue } from "../JsonValue.js"
import { append } from "./pointer.js"
import { type Changes, type Draft, draft, isObject, maxDepth, NotStrict, own, set, show } from "./normalizeOpenAiNode.js"

/** The keywords strict mode does not accept (contract 1.1), removed wherever they are keywords. */
export const removed: ReadonlySet<string> = new Set([
  "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "minItems", "maxItems", "uniqueItems", "multipleOf",
  "$schema", "examples", "default", "title", "$comment",
  "if", "then", "else", "not",
  "unevaluatedProperties", "unevaluatedItems", "patternProperties",
  "propertyNames", "contains", "minContains", "maxContains",
  "dependentRequired", "dependentSchemas",
  "contentEncoding", "contentMediaType", "contentSchema",
  "deprecated", "readOnly", "writeOnly",
  "minProperties", "maxProperties",
  "$dynamicRef", "$dynamicAnchor",
  // draft-07's spelling of dependentRequired/dependentSchemas, which JSON Schema 2020-12 split in two
  "dependencies"
])

/** Keywords whose value is a map of name → subschema (the names are never keywords). */
const schemaMaps: ReadonlySet<string> = new Set(["properties", "$defs", "definitions"])

/** Keywords whose value is a list of subschemas. */
const schemaLists: ReadonlySet<string> = new Set(["anyOf", "oneOf", "allOf", "prefixItems", "items"])

/** Keywords whose value is one subschema. */
const schemaSingles: ReadonlySet<string> = new Set(["items", "additionalProperties", "additionalItems"])

/** Sanitizes a schema (a copy; the input is never touched), reporting each removal and rewrite. */
export const sanitize = (schema: JsonSchema, changes: Changes): JsonSchema => node(schema, "", 0, changes)

const node = (schema: JsonSchema | JsonValue, path: string, depth: number, changes: Changes): JsonSchema => {
  if (typeof schema === "boolean") return schema
  if (!isObject(schema)) throw new NotStrict(path, "is not a schema (neither an object nor a boolean)")
  if (depth > maxDepth) throw new NotStrict(path, `nests deeper than ${maxDepth} schema levels`)
  const out = draft()
  for (const key of Object.keys(schema)) keyword(schema, key, out, path, depth, changes)
  return out
}

const keyword = (schema: JsonObject, key: string, out: Draft, path: string, depth: number, changes: Changes): void => {
  const value = schema[key]!
  const at = append(path, key)
  if (key === "patternProperties" && isObject(value) && Object.keys(value).length > 0) {
    throw new NotStrict(path, "declares a map (`patternProperties`), which strict mode cannot express")
  }
  if (removed.has(key)) return remove(schema, key, value, out, at, changes)
  // a `default` seen earlier already wrote the description with its hint
  if (key === "description" && Object.prototype.hasOwnProperty.call(out, "description")) return
  if (key === "const") {
    set(out, "enum", [value])
    changes.push({ path: at, change: `\`const\` ${show(value)} became \`enum: [${show(value)}]\`` })
    return
  }
  if (key === "enum" && own(schema, "const") !== undefined) {
    changes.push({ path: at, change: "`enum` gave way to the `const` value, which it must contain anyway" })
    return
  }
  if (schemaMaps.has(key) && isObject(value)) {
    const map = draft()
    for (const name of Object.keys(value)) set(map, name, node(value[name]!, append(at, name), depth + 1, changes))
    return set(out, key, map)
  }
  if (schemaLists.has(key) && Array.isArray(value)) {
    return set(out, key, value.map((v, i) => node(v, append(at, i), depth + 1, changes)))
  }
  if (schemaSingles.has(key) && (isObject(value) || typeof value === "boolean")) {
    return set(out, key, node(value, at, depth + 1, changes))
  }
  set(out, key, value)
}

const remove = (schema: JsonObject, key: string, value: JsonValue, out: Draft, at: string, changes: Changes): void => {
  if (key === "default") {
    const description = own(schema, "description")
    if (typeof description === "string" && !description.includes("(default:")) {
      const hint = ` (default: ${JSON.stringify(value)})`
      set(out, "description", description + hint)
      changes.push({ path: at, change: `\`default\` ${show(value)} moved into \`description\` as ${show(hint.trim())}` })
      return
    }
  }
  changes.push({ path: at, change: `removed \`${key}\`: ${show(value)} (strict mode does not support it)` })
}

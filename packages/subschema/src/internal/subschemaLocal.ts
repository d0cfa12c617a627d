/**
 * Whether the executor's validator can be built for the local schema at all: a proof says nothing when
 * that validator rejects every call. The meta-schema answers most schemas in microseconds; what it cannot
 * see (an unresolvable `$ref`, Ajv's `nullable` rules, an empty `enum`, a `$ref` loop Ajv overflows on) is
 * found here or by the real compile.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import { Rules } from "@toolgate/json-schema/Validator"
import { nullableRefused } from "./subschemaKeywords.js"
import { MAX_SUBSCHEMAS } from "./subschemaModel.js"
import * as Validators from "./subschemaValidator.js"

/**
 * Why the local validator cannot be built, or undefined: a proof says nothing when the executor's own
 * validator rejects every call (`minimum: "5"`, `required: ["a", "a"]`). The meta-schema check costs
 * microseconds; when it cannot tell (it throws), or the schema says `nullable` (which Ajv refuses without a
 * `type`) or a `$ref` that may not resolve, beyond what the meta-schema sees, the real compile decides.
 */
export const invalidLocal = (local: JsonSchema.JsonSchema, dialect: JsonSchema.Dialect, content: string): { readonly message: string; readonly path: string } | undefined => {
  const compiled = () => {
    const c = Validators.shared.compile(local)
    return Either.isLeft(c) ? { message: c.left.message, path: c.left.path } : undefined
  }
  const e = Rules.metaCheck(local, dialect, content)
  if (e === "unknown") return compiled()
  if (e !== "valid") return { message: `\`${e.path.split("/").pop() ?? ""}\` ${e.message}`, path: e.path }
  try {
    if (beyondMeta(local)) return compiled()
    // a loop needs a `$ref`: without one the in-place applicators form a tree (`content` is plain JSON, no cycle)
    return content.includes("\"$ref\"") && unguardedLoop(local) ? { message: "a $ref loop that never descends into a property or item (the validator overflows its stack)", path: "" } : undefined
  } catch {
    return compiled()
  }
}

/**
 * Whether a schema may fail to compile where its meta-schema passes it: a `$ref` the resolver does not
 * resolve, an empty `enum` (2020-12's meta-schema allows it, Ajv does not), a `nullable` Ajv refuses, or
 * `patternProperties` beside an applicator whose evaluated properties Ajv merges, where its code has thrown
 * once a matching key is present (fuzz seed 50505: `Validator` probes such keys and refuses that code).
 */
const beyondMeta = (root: JsonSchema.JsonSchema): boolean => {
  const stack: Array<JsonSchema.JsonSchema> = [root]
  const seen = new Set<object>()
  let patterns = false
  let merging = false
  while (stack.length > 0) {
    const s = stack.pop()!
    if (typeof s !== "object" || seen.has(s)) continue
    seen.add(s)
    const ref = s["$ref"]
    if (ref !== undefined && (typeof ref !== "string" || JsonSchema.resolveRef(root, ref)._tag === "Unresolvable")) return true
    if (Array.isArray(s["enum"]) && s["enum"].length === 0) return true
    if (nullableRefused(s["nullable"], s["type"])) return true
    patterns ||= s["patternProperties"] !== undefined
    merging ||= merges.some((k) => s[k] !== undefined)
    if (patterns && merging) return true
    for (const c of JsonSchema.subschemas(s)) stack.push(c.schema)
  }
  return false
}

// Applicators whose evaluated properties Ajv merges into the enclosing schema's.
const merges = ["if", "anyOf", "oneOf", "allOf", "dependentSchemas", "$ref", "unevaluatedProperties"] as const

const inPlace = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "$ref"] as const

/**
 * Whether a schema can reach itself through `$ref`s and in-place applicators without descending into a
 * property or item: Ajv compiles such a loop and then overflows its stack on every value that reaches it,
 * so the executor rejects those calls even where a proof would not look (`if: {$ref: "#"}`).
 */
const unguardedLoop = (root: JsonSchema.JsonSchema): boolean => {
  const state = new Map<object, 1 | 2>()
  const next = (s: JsonSchema.JsonSchemaObject): Array<JsonSchema.JsonSchema> => inPlace.flatMap((k) => {
    const v = s[k]
    if (k === "$ref") {
      const r = typeof v === "string" ? JsonSchema.resolveRef(root, v) : undefined
      return r?._tag === "Resolved" ? [r.schema] : []
    }
    if (Array.isArray(v)) return v.filter(JsonSchema.isSchema)
    if (k === "dependentSchemas") return typeof v === "object" && v !== null ? Object.values(v).filter(JsonSchema.isSchema) : []
    return JsonSchema.isSchema(v) ? [v] : []
  })
  const all: Array<JsonSchema.JsonSchema> = [root]
  for (let i = 0; i < all.length && i < MAX_SUBSCHEMAS; i++) for (const c of JsonSchema.subschemas(all[i]!)) all.push(c.schema)
  for (const start of all) {
    if (typeof start !== "object" || state.has(start)) continue
    const stack: Array<readonly [JsonSchema.JsonSchemaObject, Array<JsonSchema.JsonSchema>]> = [[start, next(start)]]
    state.set(start, 1)
    while (stack.length > 0) {
      const [node, todo] = stack[stack.length - 1]!
      const c = todo.pop()
      if (c === undefined) {
        state.set(node, 2)
        stack.pop()
        continue
      }
      if (typeof c !== "object") continue
      const st = state.get(c)
      if (st === 1) return true
      if (st === undefined) {
        state.set(c, 1)
        stack.push([c, next(c)])
      }
    }
  }
  return false
}

/**
 * Static readings of a schema that the coercion rules need: which keys a node requires, whether a
 * property schema accepts `null`, whether a blank string is a declared value.
 *
 * @internal
 */
import { type JsonSchema, type JsonSchemaObject, resolveRef } from "../JsonSchema.js"
import * as S from "./coercionScalars.js"

/** The schema a node's own `$ref` points at, when it resolves. */
export const refTarget = (root: JsonSchema, schema: JsonSchema): JsonSchema | undefined => {
  if (typeof schema !== "object") return undefined
  const ref = S.own(schema, "$ref")
  if (typeof ref !== "string") return undefined
  const r = resolveRef(root, ref)
  return r._tag === "Resolved" ? r.schema : undefined
}

/**
 * The keys a value must have under `schema`: its own `required`, and those of the schemas that apply to
 * the same value unconditionally (`$ref` targets and `allOf` members).
 */
export const requiredOf = (root: JsonSchema, schema: JsonSchema): ReadonlySet<string> => {
  const out = new Set<string>()
  const seen = new Set<object>()
  const visit = (s: JsonSchema): void => {
    if (typeof s !== "object" || seen.has(s)) return
    seen.add(s)
    for (const k of S.arrayKeyword(s, "required") ?? []) if (typeof k === "string") out.add(k)
    const target = refTarget(root, s)
    if (target !== undefined) visit(target)
    for (const m of S.arrayKeyword(s, "allOf") ?? []) if (S.isSchemaValue(m)) visit(m)
  }
  visit(schema)
  return out
}

/**
 * Whether `null` can satisfy a schema, read statically: `type`, `enum` and `const` can exclude it,
 * `allOf` needs every member, `anyOf`/`oneOf` some branch. Keywords it does not read count as accepting,
 * so a doubtful property keeps its `null` and validation speaks.
 */
export const acceptsNull = (root: JsonSchema, schema: JsonSchema): boolean => {
  const seen = new Set<object>()
  const visit = (s: JsonSchema): boolean => {
    if (typeof s === "boolean") return s
    if (seen.has(s)) return true
    seen.add(s)
    const types = S.allowedTypes(s)
    if (types !== undefined && !types.has("null")) return false
    const target = refTarget(root, s)
    if (target !== undefined && !visit(target)) return false
    for (const m of S.arrayKeyword(s, "allOf") ?? []) if (S.isSchemaValue(m) && !visit(m)) return false
    for (const kw of ["anyOf", "oneOf"]) {
      const branches = S.arrayKeyword(s, kw)
      if (branches !== undefined && !branches.some((b) => S.isSchemaValue(b) && visit(b))) return false
    }
    return true
  }
  return visit(schema)
}

/**
 * Which blank strings are fillers for a property: none when a blank string is a declared value (`enum`,
 * `const`); only `""` when the property declares a string `default` (a separator, a prefix: a space is
 * then a value, as in the corpus's `concat_strings` with `separator: " "`); otherwise `""` and whitespace.
 */
export const fillers = (root: JsonSchema, schema: JsonSchema): "none" | "empty" | "blank" => {
  if (typeof schema !== "object") return "blank"
  const target = refTarget(root, schema)
  const nodes = typeof target === "object" && target !== schema ? [schema, target] : [schema]
  const declared = (n: JsonSchemaObject) => {
    const values = S.enumValues(n)
    return values !== undefined && S.enumHasBlank(values)
  }
  if (nodes.some(declared)) return "none"
  return nodes.some((n) => typeof S.own(n, "default") === "string") ? "empty" : "blank"
}

/** Whether a string is a filler under a property's `fillers` rule. */
export const isFiller = (rule: "none" | "empty" | "blank", s: string): boolean =>
  rule === "blank" ? S.isBlank(s) : rule === "empty" && s.length === 0

/** Whether a property schema can hold a string at all (a blank filler is only possible then). */
export const mayBeString = (root: JsonSchema, schema: JsonSchema): boolean => {
  if (typeof schema !== "object") return schema
  const types = S.allowedTypes(schema)
  if (types !== undefined && !types.has("string")) return false
  const target = refTarget(root, schema)
  return target === undefined || target === schema || typeof target !== "object" ||
    (S.allowedTypes(target)?.has("string") ?? true)
}

/**
 * The JSON Schema type (draft 2020-12, draft-07 read too): dialect detection, keyword tables, JSON
 * pointers, local `$ref` resolution with cycle detection, and `upgrade` for schemas as tools publish them.
 *
 * @since 0.1.0
 */
import * as K from "./internal/keywords.js"
import * as P from "./internal/pointer.js"
import * as R from "./internal/resolve.js"
import * as SK from "./internal/stableKey.js"
import * as UE from "./internal/unenforced.js"
import * as U from "./internal/upgrade.js"
import type { JsonValue } from "./JsonValue.js"

/** A JSON Schema: a boolean schema or a schema object. */
export type JsonSchema = boolean | JsonSchemaObject

/** A schema object: keywords to JSON values. */
export interface JsonSchemaObject {
  readonly [keyword: string]: JsonValue
}

/** The two dialects toolgate reads. Draft-04/06 and 2019-09 are read as their nearest neighbour. */
export type Dialect = "2020-12" | "draft-07"

/** Whether `u` can be a schema: a boolean or a plain object (arrays, null and class instances cannot). */
export const isSchema = (u: unknown): u is JsonSchema => {
  if (typeof u === "boolean") return true
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** The dialect of a schema: its `$schema`, else draft-07 when it uses draft-07-only forms, else 2020-12. */
export const dialect = (schema: JsonSchema): Dialect => {
  try {
    return dialectOf(schema)
  } catch {
    return "2020-12" // an object whose getters or proxy traps throw is no schema a tool published
  }
}

const dialectOf = (schema: JsonSchema): Dialect => {
  if (typeof schema !== "object" || schema === null) return "2020-12"
  const declared = dialectOfUri(schema["$schema"])
  if (declared !== undefined) return declared
  let old = false
  const seen = new Set<object>()
  const stack: Array<JsonValue> = [schema]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== "object" || v === null || Array.isArray(v) || seen.has(v)) continue
    const s = v as JsonSchemaObject
    seen.add(s)
    for (const key of Object.keys(s)) {
      if (K.since2019.has(key)) return "2020-12"
      if (K.draft07Only.has(key) || (key === "items" && Array.isArray(s[key]))) old = true
    }
    for (const c of K.children(s)) stack.push(c.schema)
  }
  return old ? "draft-07" : "2020-12"
}

/** The dialect a `$schema` URI names, or `undefined` when it names none toolgate knows. */
export const dialectOfUri = (uri: JsonValue | undefined): Dialect | undefined => {
  if (typeof uri !== "string") return undefined
  if (/draft-0[3-7]\b/.test(uri)) return "draft-07"
  if (/draft\/20(19-09|20-12)\b/.test(uri)) return "2020-12"
  return undefined
}

/** The `$schema` URI of draft 2020-12. */
export const uri2020 = "https://json-schema.org/draft/2020-12/schema"

/** The `$schema` URI of draft-07. */
export const uriDraft07 = "http://json-schema.org/draft-07/schema#"

/** JSON pointers (RFC 6901) for instance and schema paths alike; `#`-fragments are percent-decoded. */
export const Pointer: {
  /** The tokens of a pointer or `#` URI fragment; `""` and `"#"` are the root; a missing leading `/` is tolerated. */
  readonly parse: (p: string) => ReadonlyArray<string>
  /** A pointer from tokens, escaping `~` as `~0` and `/` as `~1`. */
  readonly format: (tokens: ReadonlyArray<string | number>) => string
  /** The value at a pointer (own properties only, canonical array indices), or `undefined`. */
  readonly get: (root: JsonValue, p: string) => JsonValue | undefined
  /** A pointer with one more token. */
  readonly append: (p: string, token: string | number) => string
} = {
  parse: (p) => (typeof p === "string" ? P.parse(p) : []),
  format: (tokens) => (Array.isArray(tokens) ? P.format(tokens) : ""),
  get: (root, p) => (typeof p === "string" ? P.get(root, p) : undefined),
  append: (p, token) => P.append(typeof p === "string" ? p : "", typeof token === "number" ? token : String(token))
}

/** The outcome of resolving a local `$ref`. */
export type Resolved =
  | { readonly _tag: "Resolved"; readonly schema: JsonSchema; readonly pointer: string }
  | { readonly _tag: "Unresolvable"; readonly ref: string; readonly reason: "external" | "missing" | "cycle" }

/**
 * Resolves a `$ref` against the root document: `#`, `#/$defs/x`, `#/definitions/x`, percent-encoded
 * fragments, `$anchor` names and the root's own `$id`. A target that is only another `$ref` (plus
 * annotations) is followed; a chain that comes back on itself is `cycle`.
 */
export const resolveRef = (root: JsonSchema, ref: string): Resolved =>
  typeof ref === "string" ? R.resolveRef(root, ref) : { _tag: "Unresolvable", ref: String(ref), reason: "missing" }

/** One change `upgrade` made: where (a pointer into the input schema) and a readable sentence. */
export interface Change {
  readonly path: string
  readonly change: string
}

/** How `upgrade` reads keywords beside a `$ref` in a draft-07 schema. */
export interface UpgradeOptions {
  /**
   * `"apply"` (the default): as Ajv applies them, the reading of an executor whose validator toolgate compiles.
   * `"ignore"`: as draft-07 says (they are ignored), so they are dropped, each reported: the broadest reading,
   * for a schema another party enforces, such as the cloud side of a proof. Annotations and `definitions`
   * stay. Another value is read as `"apply"` and reported.
   */
  readonly refSiblings?: "apply" | "ignore"
}

/** The `refSiblings` option as given, or why it cannot be read (options whose getter throws). */
const refSiblingsOf = (options: UpgradeOptions | undefined): unknown => {
  try {
    return options?.refSiblings
  } catch (e) {
    return `unreadable (${e instanceof Error ? e.message : String(e)})`
  }
}

/**
 * Brings a schema as tools publish it (draft-07 tuples, OpenAPI `nullable`, BFCL and Java-ish type names)
 * to draft 2020-12. Pure and total: it never throws and never mutates its input; idempotent.
 */
export const upgrade = (
  schema: unknown,
  options?: UpgradeOptions
): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  const siblings = refSiblingsOf(options)
  const ignore = siblings === "ignore" && isSchema(schema) && dialect(schema) === "draft-07"
  const upgraded = U.upgrade(schema, ignore)
  if (siblings === undefined || siblings === "apply" || siblings === "ignore") return upgraded
  const note = { path: "", change: `unknown refSiblings option ${JSON.stringify(siblings) ?? String(siblings)}; keywords beside \`$ref\` applied` }
  return { schema: upgraded.schema, changes: [note, ...upgraded.changes] }
}

/**
 * The canonical JSON text of a schema (object keys sorted), a cache key by content: equal text, equal
 * schema. `undefined` for anything that is not plain JSON (cycles, non-finite numbers) or is nested too deeply.
 */
export const stableKey = (schema: unknown): string | undefined => SK.stableKey(schema)

/**
 * The keyword tables: which keywords apply subschemas, assert, or only annotate, per dialect; and where a
 * keyword holds subschemas, their shape: one schema, an array of schemas, or a map of names to schemas
 * (`items` holds one, or a draft-07 array; draft-07 `dependencies` maps names to schemas or name lists).
 */
export const Keywords = {
  applicators: K.applicators,
  assertions: K.assertions,
  annotations: K.annotations,
  core: K.core,
  draft07Only: K.draft07Only,
  since2019: K.since2019,
  singleSchema: K.singleSchema,
  schemaArray: K.schemaArray,
  schemaMap: K.schemaMap
} as const

/**
 * What a schema says that the validator will not enforce (for warnings): keywords its dialect's Ajv does
 * not know, such as misspellings (`maxLenght`) or the other dialect's keywords, and formats ajv-formats
 * does not define. Annotations, `x-*` keys and the corpus's `optional`/`example_value` stay silent.
 */
export const unenforced = (schema: JsonSchema): ReadonlyArray<{ readonly path: string; readonly kind: "keyword" | "format"; readonly name: string; readonly likely?: string }> => {
  try {
    return UE.unenforced(schema, dialect(schema))
  } catch {
    return [] // getters or proxy traps that throw
  }
}

/** The direct subschemas of a schema, each with its path tokens (`["properties", "a"]`). */
export const subschemas = (schema: JsonSchema): ReadonlyArray<{ readonly tokens: ReadonlyArray<string>; readonly schema: JsonSchema }> => {
  if (typeof schema !== "object" || schema === null) return []
  try {
    return K.children(schema) as ReadonlyArray<{ readonly tokens: ReadonlyArray<string>; readonly schema: JsonSchema }>
  } catch {
    return [] // getters or proxy traps that throw
  }
}

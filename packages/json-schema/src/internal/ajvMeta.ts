/**
 * Checking a schema against its dialect's meta-schema, quicker than Ajv's own check on every compile: the
 * 2020-12 meta-schema flattened (no dynamic scopes), a quick reading of the shapes tools publish
 * (`metaQuick.ts`) before Ajv, answers kept by content, and compiling after that check.
 *
 * @internal
 */
import type { Ajv, AnySchema, ValidateFunction } from "ajv"
import addMeta2020Module from "ajv/dist/refs/json-schema-2020-12/index.js"
import type { Dialect, JsonSchema } from "../JsonSchema.js"
import { type AnyAjv, type Failure, makeAjv, tryCompile } from "./ajv.js"
import { Lru } from "./compileCache.js"
import { certainlyValid } from "./metaQuick.js"

const addMeta2020: typeof addMeta2020Module.default =
  (addMeta2020Module as unknown as { default?: typeof addMeta2020Module.default }).default ??
    (addMeta2020Module as unknown as typeof addMeta2020Module.default)

const META_2020 = "https://json-schema.org/draft/2020-12/schema"
const FLAT_2020 = "https://toolgate.invalid/meta/2020-12/"

/**
 * A part of the 2020-12 meta-schema under toolgate's own `$id`s, each `$dynamicRef: "#meta"` a `$ref` to the
 * whole meta-schema: a check that starts at the whole meta-schema has it as the outermost `meta` anchor of
 * every dynamic scope, so the answers are the same, at a third of the cost (Ajv's dynamic scopes are slow).
 */
const flatten = (v: unknown, top = true): unknown => {
  if (Array.isArray(v)) return v.map((x) => flatten(x, false))
  if (typeof v !== "object" || v === null) return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) {
    if ((k === "$dynamicAnchor" && x === "meta") || (k === "$schema" && top)) continue
    if (k === "$dynamicRef" && x === "#meta") out["$ref"] = `${FLAT_2020}schema`
    else if (k === "$id" && typeof x === "string") out[k] = x.replace("https://json-schema.org/draft/2020-12/", FLAT_2020)
    else out[k] = flatten(x, false)
  }
  return out
}

/** A meta-schema check: the compiled meta-schema, and the quick reading that passes what it certainly accepts. */
interface MetaCheck {
  readonly validate: (schema: JsonSchema) => { readonly path: string; readonly message: string } | undefined
  readonly quick: (schema: unknown) => boolean
}

/** A format of an instance as a test (a function or a regular expression, as Ajv reads it), or undefined. */
const formatTest = (ajv: AnyAjv, name: string): ((s: string) => boolean) | undefined => {
  const f = ajv.formats[name]
  if (typeof f === "function") return (s) => f(s) === true
  return f instanceof RegExp && !f.global && !f.sticky ? (s) => f.test(s) : undefined
}

/** The reader of `metaQuick.ts` with the formats of the instance that checks. */
const quickOf = (ajv: AnyAjv, dialect: Dialect): (schema: unknown) => boolean => {
  const regex = formatTest(ajv, "regex"), uriReference = formatTest(ajv, "uri-reference")
  return regex === undefined || uriReference === undefined ? () => false : certainlyValid(dialect, { regex, uriReference })
}

let flat2020: MetaCheck | undefined

/** The flattened 2020-12 meta-schema's check, compiled on first use. */
const flatMeta2020 = (): MetaCheck => {
  if (flat2020 === undefined) {
    const ajv = makeAjv("2020-12", false, false)
    const parts: Array<AnySchema> = []
    addMeta2020.call({ addMetaSchema: (s: AnySchema) => parts.push(s) } as unknown as Ajv)
    for (const part of parts) ajv.addSchema(flatten(part) as AnySchema, undefined, undefined, false)
    const fn = ajv.getSchema(`${FLAT_2020}schema`)!
    flat2020 = { validate: (schema) => fn(schema) === true ? undefined : firstOf(fn.errors), quick: quickOf(ajv, "2020-12") }
  }
  return flat2020
}

const metaChecks = new Map<Dialect, MetaCheck>()

/** Ajv's own check of a schema against the meta-schema its `$schema` names (or the dialect's), on one instance per dialect. */
const ajvMeta = (dialect: Dialect): MetaCheck => {
  let check = metaChecks.get(dialect)
  if (check === undefined) {
    const ajv = makeAjv(dialect, false, false)
    const quick = quickOf(ajv, "draft-07")
    check = {
      validate: (schema) => ajv.validateSchema(schema as AnySchema) === true ? undefined : firstOf(ajv.errors),
      // only the draft-07 meta-schema is read quickly: the one a draft-07 instance checks a schema against
      // when it names no other
      quick: dialect === "draft-07" ? quick : () => false
    }
    metaChecks.set(dialect, check)
  }
  return check
}

/**
 * The first complaint of the dialect's meta-schema about `schema`, or `undefined` when it has none (a
 * check of microseconds, on one lazily made instance per dialect; a schema of the plain shapes tools
 * publish passes a quicker reading first). Throws when Ajv cannot tell.
 */
export const metaError = (schema: JsonSchema, dialect: Dialect): { readonly path: string; readonly message: string } | undefined => {
  if (typeof schema === "boolean") return undefined
  const declared = schema["$schema"]
  const check = dialect === "2020-12" && (declared === undefined || declared === META_2020) ? flatMeta2020() : ajvMeta(dialect)
  return check.quick(schema) ? undefined : check.validate(schema)
}

const firstOf = (errors: ValidateFunction["errors"]): { readonly path: string; readonly message: string } => {
  const first = errors?.[0]
  return { path: first?.instancePath ?? "", message: first?.message ?? "is invalid" }
}

/** What a meta-schema says of a schema: nothing wrong, its first complaint, or that Ajv cannot tell. */
export type MetaAnswer = "valid" | "unknown" | { readonly path: string; readonly message: string }

/** `metaError`'s answers by dialect and canonical content, the least recently used dropped past 4,096 or 32 Mi characters of keys. */
const metaAnswers = new Lru<MetaAnswer>(4_096)

/**
 * `metaError` as a value, kept by `content` (the schema's `stableKey`) when given: the prover asks it of a
 * schema it also compiles, and the answer is the content's own.
 */
export const metaAnswer = (schema: JsonSchema, dialect: Dialect, content?: string): MetaAnswer => {
  const key = content === undefined ? undefined : `${dialect}\u0000${content}`
  let a = key === undefined ? undefined : metaAnswers.get(key)
  if (a !== undefined) return a
  try {
    a = metaError(schema, dialect) ?? "valid"
  } catch {
    a = "unknown"
  }
  if (key !== undefined) metaAnswers.set(key, a)
  return a
}

/**
 * Compiles on an instance that holds nothing of any other schema (one made for `schema` alone, or after
 * an `$id` clash). The schema is checked against its meta-schema by `metaError` first, and the instance
 * skips that check: compiling the meta-schema on each new instance was 16 of its 17 ms. A schema whose
 * meta-schema `metaError` cannot read is left to Ajv's own check.
 */
export const tryCompileAlone = (ajv: AnyAjv, schema: AnySchema, dialect: Dialect, content?: string): ValidateFunction | Failure | "clash" =>
  tryCompileChecked(ajv, schema, dialect, true, content)

/**
 * Compiles after `metaError`'s check instead of Ajv's own (the same answers at a third of the cost on
 * 2020-12, see `flatten`), which the instance then skips; where `metaError` cannot tell, Ajv checks.
 */
export const tryCompileChecked = (ajv: AnyAjv, schema: AnySchema, dialect: Dialect, fresh = false, content?: string): ValidateFunction | Failure | "clash" => {
  const problem = metaAnswer(schema as JsonSchema, dialect, content)
  if (problem === "unknown") {
    ajv.opts.validateSchema = true
    try {
      return tryCompile(ajv, schema, fresh)
    } finally {
      ajv.opts.validateSchema = false
    }
  }
  ajv.opts.validateSchema = false
  if (problem !== "valid") return { message: `Invalid schema at \`${problem.path || "/"}\`: ${problem.message}.`, path: problem.path }
  return tryCompile(ajv, schema, fresh)
}

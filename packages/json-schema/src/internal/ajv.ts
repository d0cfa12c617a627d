/**
 * Ajv instances as toolgate configures them, and Ajv's thrown errors turned into a message and a pointer.
 *
 * @internal
 */
import { Ajv } from "ajv"
import type { AnySchema, ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addMeta2020Module from "ajv/dist/refs/json-schema-2020-12/index.js"
import addFormatsModule from "ajv-formats"
import type { Dialect, JsonSchema } from "../JsonSchema.js"
import { isObject } from "../JsonValue.js"
import type { JsonValue } from "../JsonValue.js"
import { safeKeywords } from "./ajvKeywords.js"
import { Lru } from "./compileCache.js"
import { children } from "./keywords.js"
import { certainlyValid } from "./subschemaMeta.js"

const addFormats: typeof addFormatsModule.default =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule.default }).default ??
    (addFormatsModule as unknown as typeof addFormatsModule.default)

const addMeta2020: typeof addMeta2020Module.default =
  (addMeta2020Module as unknown as { default?: typeof addMeta2020Module.default }).default ??
    (addMeta2020Module as unknown as typeof addMeta2020Module.default)

/** An Ajv instance of either class (they share the core API). */
export type AnyAjv = Ajv | Ajv2020

/** Options every instance shares: real tool schemas carry unknown keywords, so `strict` is off. */
const options = { strict: false, allErrors: true, verbose: true, logger: false } as const

/**
 * A fresh, formats-enabled Ajv instance for a dialect. `ownProperties` makes Ajv test own properties only,
 * so `required: ["constructor"]` is not met by `Object.prototype`; it costs about half again per call, so
 * only schemas that name such a property get an instance with it (see `namesPrototypeMembers`).
 * `const`, `enum`, `uniqueItems` and `multipleOf` are toolgate's own (JSON equality, exact decimals).
 * `optimize: false` skips Ajv's pass over the generated code: the same checks, compiled in about half the
 * time, run a few percent slower.
 */
export const makeAjv = (dialect: Dialect, ownProperties = false, allErrors = true, optimize = true): AnyAjv => {
  const o = { ...options, ownProperties, allErrors, code: { optimize: optimize ? 1 : false } }
  const ajv = dialect === "2020-12" ? new Ajv2020(o) : new Ajv(o)
  addFormats(ajv)
  for (const def of safeKeywords) ajv.removeKeyword(def.keyword as string).addKeyword(def)
  return ajv
}

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

/** The reader of `subschemaMeta.ts` with the formats of the instance that checks. */
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

const inherited: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])

const namesIn = (v: JsonValue | undefined): ReadonlyArray<string> =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : isObject(v) ? Object.keys(v) : []

/** Each schema object under `schema` once, depth first, until `visit` returns true (then true). */
const someSubschema = (schema: JsonSchema, visit: (s: { readonly [k: string]: JsonValue }) => boolean): boolean => {
  const seen = new Set<object>()
  const stack: Array<JsonValue> = [schema]
  while (stack.length > 0) {
    const s = stack.pop()
    if (!isObject(s) || seen.has(s)) continue
    seen.add(s)
    if (visit(s)) return true
    for (const c of children(s)) stack.push(c.schema)
  }
  return false
}

/** Whether a schema looks a property up by a name `Object.prototype` also has (`constructor`, `toString`, …). */
export const namesPrototypeMembers = (schema: JsonSchema): boolean =>
  someSubschema(schema, (s) => {
    const req = s["dependentRequired"]
    const lookups = [
      ...namesIn(s["properties"]), ...namesIn(s["required"]), ...namesIn(req), ...namesIn(s["dependentSchemas"]),
      ...namesIn(s["dependencies"]), ...(isObject(req) ? Object.values(req).flatMap(namesIn) : [])
    ]
    return lookups.some((n) => inherited.has(n))
  })

const referenceKeywords = ["$ref", "$dynamicRef", "$recursiveRef"] as const

const withoutFragment = (uri: string): string => uri.split("#")[0]!

/** Whether a URI has a scheme, so no base changes what it names. */
const isAbsolute = (uri: string): boolean => /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(uri)

/**
 * Whether a schema may name a resource it does not hold: a `$ref` other than a bare `#…` fragment whose
 * URI is not, letter for letter, an absolute `$id` of the schema itself (relative URIs count as reaching
 * out: no base resolution is trusted here). Ajv resolves such a reference against every schema its instance
 * holds, so on a shared instance it could reach whatever an earlier schema registered under that URI (one
 * tool's `$id` answering another tool's `$ref`); such a schema compiles on an instance of its own.
 */
export const reachesOut = (schema: JsonSchema): boolean => {
  const own = new Set<string>()
  const refs: Array<string> = []
  someSubschema(schema, (s) => {
    const id = s["$id"]
    if (typeof id === "string" && isAbsolute(id)) own.add(withoutFragment(id))
    for (const k of referenceKeywords) {
      const ref = s[k]
      if (typeof ref === "string" && withoutFragment(ref) !== "") refs.push(withoutFragment(ref))
    }
    return false
  })
  return refs.some((r) => !own.has(r))
}

/** Why Ajv refused a schema: a readable message and the pointer into the schema where it could tell. */
export interface Failure {
  readonly message: string
  readonly path: string
}

/**
 * Whether an Ajv error says an `$id` (or key) is taken in this instance: "already exists" for a root `$id`,
 * "resolves to more than one schema" for an embedded resource whose `$id` the instance holds with other
 * content. On a `fresh` instance (nothing but remotes) only the first is: there the second means the
 * schema itself declares one `$id` twice.
 */
export const isIdClash = (e: unknown, fresh = false): boolean =>
  e instanceof Error && (/already exists/.test(e.message) || (!fresh && /resolves to more than one schema/.test(e.message)))

/** Compiles on one instance; a throw (invalid schema, unknown ref, bad regex, stack overflow) is a `Failure`. */
export const tryCompile = (ajv: AnyAjv, schema: AnySchema, fresh = false): ValidateFunction | Failure | "clash" => {
  try {
    const fn = ajv.compile(schema)
    if ((fn as { $async?: unknown }).$async === true) {
      return { message: "Asynchronous schemas (`$async: true`) are not supported.", path: "/$async" }
    }
    return fn
  } catch (e) {
    if (isIdClash(e, fresh)) return "clash"
    return describe(ajv, schema, e)
  }
}

/** What a meta-schema says of a schema: nothing wrong, its first complaint, or that Ajv cannot tell. */
export type MetaAnswer = "valid" | "unknown" | { readonly path: string; readonly message: string }

/** `metaError`'s answers by dialect and canonical content, the least recently used dropped past 4,096. */
const metaAnswers = new Lru<string, MetaAnswer>(4_096)

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

/** A readable `Failure` for an error Ajv threw while compiling `schema`. */
export const describe = (ajv: AnyAjv, schema: AnySchema, e: unknown): Failure => {
  if (e instanceof RangeError) return { message: "The schema is nested too deeply to compile.", path: "" }
  const text = e instanceof Error ? e.message : String(e)
  if (text.startsWith("schema is invalid")) {
    try {
      ajv.validateSchema(schema)
      const first = ajv.errors?.[0]
      if (first !== undefined) {
        return { message: `Invalid schema at \`${first.instancePath || "/"}\`: ${first.message ?? "is invalid"}.`, path: first.instancePath }
      }
    } catch {
      // fall through to the text Ajv threw
    }
  }
  const missing = (e as { missingRef?: unknown }).missingRef
  if (typeof missing === "string") return { message: `Cannot resolve reference \`${missing}\` (${text}).`, path: "" }
  return { message: text, path: "" }
}

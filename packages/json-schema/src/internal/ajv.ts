/**
 * Ajv instances as toolgate configures and shares them (each retired after a number of compiles), compiling
 * on them, and Ajv's thrown errors turned into a message and a pointer. Checking a schema against its
 * meta-schema is `ajvMeta.ts`.
 *
 * @internal
 */
import { Ajv } from "ajv"
import type { AnySchema, ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import type { Dialect, JsonSchema } from "../JsonSchema.js"
import { isObject } from "../JsonValue.js"
import type { JsonValue } from "../JsonValue.js"
import { safeKeywords } from "./ajvKeywords.js"
import { children } from "./keywords.js"

const addFormats: typeof addFormatsModule.default =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule.default }).default ??
    (addFormatsModule as unknown as typeof addFormatsModule.default)

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

/** Makes a fresh instance for a dialect, `ownProperties`, `allErrors` and code optimization setting. */
export type Fresh = (d: Dialect, own: boolean, all: boolean, optimize?: boolean) => AnyAjv
/** The instance to compile on for those settings. */
export type Instance = (d: Dialect, own: boolean, all?: boolean, optimize?: boolean) => AnyAjv

/**
 * One shared instance per dialect, `ownProperties`, `allErrors` and code optimization setting, made on first
 * use and replaced by a fresh one after `retireAfter` compiles. Ajv keeps every function and schema an
 * instance compiled in the instance's scope, removed ones too, so the cache's bound alone would not bound
 * memory: a retired instance is garbage once the cache has released the last schema it compiled.
 */
export const shareBy = (shared: Map<string, AnyAjv>, fresh: Fresh, optimize: boolean, retireAfter: number): Instance => {
  const compiles = new Map<string, number>()
  return (d, own, all = true, opt = optimize) => {
    const key = `${d}:${own}:${all}:${opt}`
    let ajv = shared.get(key)
    const n = compiles.get(key) ?? 0
    if (ajv === undefined || n >= retireAfter) shared.set(key, ajv = fresh(d, own, all, opt))
    compiles.set(key, n >= retireAfter ? 1 : n + 1)
    return ajv
  }
}

/** Compiles per shared instance before it is retired: the cache's size, so memory follows it (at least 256: a new instance costs milliseconds). */
export const retirement = (cacheSize: number): number => Math.min(Math.max(cacheSize, 256), 65_536)

/** Names `Object.prototype` answers (Ajv looks `properties` and `required` up with `data[name]`). */
export const inherited: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])

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
    const req = s["dependentRequired"], deps = s["dependencies"]
    // the names a dependency requires too: `dependentRequired`'s lists, draft-07 `dependencies`' array form
    const required = [req, deps].flatMap((d) => isObject(d) ? Object.values(d).filter(Array.isArray).flatMap(namesIn) : [])
    const lookups = [
      ...namesIn(s["properties"]), ...namesIn(s["required"]), ...namesIn(req), ...namesIn(s["dependentSchemas"]),
      ...namesIn(deps), ...required
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

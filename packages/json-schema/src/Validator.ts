/**
 * Compiled validators: Ajv 2020-12 and draft-07 (ajv-formats on, `strict: false`, `allErrors`), in one
 * bounded compile cache (by identity, then by content; the least recently used schema is released from Ajv
 * too), with Ajv's errors mapped to model-readable `Issue`s by one issue runner.
 *
 * @since 0.1.0
 */
import type { ValidateFunction } from "ajv"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as A from "./internal/ajv.js"
import { duplicate } from "./internal/ajvKeywords.js"
import * as AM from "./internal/ajvMeta.js"
import { forAjv } from "./internal/ajvProto.js"
import * as Cache from "./internal/compileCache.js"
import { isMultipleOf } from "./internal/decimal.js"
import * as F from "./internal/formats.js"
import type * as I from "./internal/issues.js"
import * as P from "./internal/pointer.js"
import { faultOf, issues, namedProbes, wrap } from "./internal/validatorRun.js"
import { stableKey } from "./internal/stableKey.js"
import * as JsonSchema from "./JsonSchema.js"

/** One validation failure, readable by a model. */
export interface Issue {
  /** JSON pointer into the instance: `"/filters/0/name"` (`""` = the whole arguments). */
  readonly path: string
  /** The argument as the model wrote it: `"filters.0.name"` (`""` = the whole arguments). */
  readonly field: string
  /** The JSON Schema keyword that failed: `"required"`, `"type"`, `"enum"`, … */
  readonly keyword: string
  /** What the value should look like: `"integer"`, `"one of: asc, desc"`, or the schema's description. */
  readonly expected: string
  /** A sentence for the model: ``"Missing required argument `content` (string)."`` */
  readonly message: string
}

/** A schema that cannot be compiled (invalid, unresolvable `$ref`, bad regex, too deep). */
export class SchemaError extends Data.TaggedError("SchemaError")<{ readonly message: string; readonly path: string }> {}

/** A compiled schema. */
export interface Compiled {
  /** The schema as first compiled (an equal copy compiled later gets this same `Compiled`). */
  readonly schema: JsonSchema.JsonSchema
  readonly dialect: JsonSchema.Dialect
  /** The raw Ajv function, nothing around it: call it with one argument. See the README on deep values. */
  readonly isValid: (value: unknown) => boolean
  /** The issues of a value; the shared frozen `[]` when valid. Never throws. */
  readonly validate: (value: unknown) => ReadonlyArray<Issue>
}

/** A validator instance: its own Ajv instances, remotes and cache. */
export interface Validator {
  /** Compiles a schema (cached by identity, then by canonical content). */
  readonly compile: (schema: JsonSchema.JsonSchema) => Either.Either<Compiled, SchemaError>
  /** Compiles the subschema at `pointer`, its `$ref`s resolved against `root`. */
  readonly compileAt: (root: JsonSchema.JsonSchema, pointer: string) => Either.Either<Compiled, SchemaError>
}

/** Options of `make`. */
export interface Options {
  /** Schemas served by URI, so `$ref`s to them resolve without network (e.g. `http://localhost:1234/x.json`). */
  readonly remotes?: Readonly<Record<string, JsonSchema.JsonSchema>>
  /**
   * How many distinct schemas (by content) stay compiled (default 4,096); the least recently used is released.
   * Memory follows it: a shared Ajv instance is replaced after this many compiles (at least 256). A whole
   * number of at least 1: anything else makes `make` fail.
   */
  readonly cacheSize?: number
  /**
   * Whether Ajv optimizes the code it generates (default true). Off, a schema compiles in about half the
   * time and validates a few percent slower: for validators that each check a handful of values.
   */
  readonly optimize?: boolean
  /**
   * Whether a schema is checked against its meta-schema by toolgate's own check (the same answers, see
   * `metaError`), remembered by content, instead of by Ajv on every compile (default false). It makes a
   * compile about a quarter cheaper; the first complaint about an invalid schema may be another one.
   */
  readonly ownMetaCheck?: boolean
}

type Result = Either.Either<Compiled, SchemaError>

/** A validator instance with its own remotes; the module-level `compile`/`compileAt` use a default one. */
export const make = (options?: Options): Either.Either<Validator, SchemaError> => {
  let read: { readonly cacheSize: unknown; readonly remotes: Array<[string, JsonSchema.JsonSchema]>; readonly optimize: boolean; readonly ownMeta: boolean }
  try {
    // each option read once; a throwing getter or proxy trap (past the types) is an error, not a throw
    read = {
      cacheSize: options?.cacheSize ?? 4_096,
      remotes: Object.entries(options?.remotes ?? {}),
      optimize: options?.optimize !== false,
      ownMeta: options?.ownMetaCheck === true
    }
  } catch (e) {
    return Either.left(new SchemaError({ message: `The options could not be read: ${messageOf(e)}`, path: "" }))
  }
  const { cacheSize, optimize, ownMeta, remotes } = read
  if (typeof cacheSize !== "number" || !Number.isInteger(cacheSize) || cacheSize < 1) {
    return Either.left(new SchemaError({ message: `Option \`cacheSize\` must be a whole number of at least 1 (got ${typeof cacheSize === "number" ? String(cacheSize) : typeof cacheSize}).`, path: "" }))
  }
  const fresh = (d: JsonSchema.Dialect, own: boolean, all: boolean, opt = optimize): A.AnyAjv | SchemaError => {
    const ajv = A.makeAjv(d, own, all, opt)
    if (ownMeta) ajv.opts.validateSchema = false
    for (const [uri, schema] of remotes) {
      try {
        ajv.addSchema(schema as object, uri, undefined, false)
      } catch (e) {
        return new SchemaError({ message: `Remote \`${uri}\`: ${messageOf(e)}`, path: "" })
      }
    }
    return ajv
  }
  const shared = new Map<string, A.AnyAjv>()
  for (const d of remotes.length > 0 ? (["2020-12", "draft-07"] as const) : []) {
    for (const own of [false, true]) {
      const ajv = fresh(d, own, true)
      if (ajv instanceof SchemaError) return Either.left(ajv)
      shared.set(`${d}:${own}:true:${optimize}`, ajv)
    }
  }
  return Either.right(engine(A.shareBy(shared, fresh as A.Fresh, optimize, A.retirement(cacheSize)), fresh, cacheSize, optimize, ownMeta))
}

/**
 * The compile cache's entry for one distinct schema: `root` as first compiled, the instance that compiled
 * it (its subschemas compile there, `root` registered under `key`), every instance holding it (released on
 * eviction) and the subschemas compiled so far.
 */
interface Entry {
  readonly root: JsonSchema.JsonSchema
  /** What Ajv compiles for `root`: `root`, or its copy with `__proto__` entries restated (see `ajvProto.ts`). */
  readonly compiled: JsonSchema.JsonSchema
  readonly content: string | undefined
  readonly ctx: I.Context
  result: Result
  ajv: A.AnyAjv | undefined
  readonly holders: Set<A.AnyAjv>
  key: string | undefined
  readonly at: Map<string, Result>
}

/** Every subschema object of `root` with its JSON pointer (the first found), so a branch finds its validator. */
const pointersOf = (root: JsonSchema.JsonSchema): Map<unknown, string> => {
  const map = new Map<unknown, string>()
  const stack: Array<readonly [JsonSchema.JsonSchema, string]> = [[root, ""]]
  while (stack.length > 0) {
    const [s, p] = stack.pop()!
    if (typeof s !== "object" || map.has(s)) continue
    map.set(s, p)
    for (const c of JsonSchema.subschemas(s)) stack.push([c.schema, c.tokens.reduce(P.append, p)])
  }
  return map
}

const release = (entry: Entry): void => {
  try {
    if (typeof entry.compiled === "object") for (const ajv of entry.holders) ajv.removeSchema(entry.compiled)
    if (entry.key !== undefined) entry.ajv?.removeSchema(entry.key)
  } catch {
    // a schema Ajv cannot find again is already released
  }
  entry.holders.clear()
  entry.ajv = entry.key = undefined
}

const engine = (
  instance: A.Instance,
  fresh: (d: JsonSchema.Dialect, own: boolean, all: boolean, optimize?: boolean) => A.AnyAjv | SchemaError,
  cacheSize: number,
  optimize: boolean,
  ownMeta = false
): Validator => {
  const byContent = new Cache.Lru<Entry>(cacheSize, release)
  let keys = 0

  const contextOf = (root: JsonSchema.JsonSchema, compiled: JsonSchema.JsonSchema): I.Context => {
    let pointers: Map<unknown, string> | undefined
    const ctx: I.Context = {
      resolve: (ref) => {
        const r = JsonSchema.resolveRef(root, ref)
        return r._tag === "Resolved" ? r.schema : undefined
      },
      branch: (sub, value, prefix) => {
        const pointer = (pointers ??= pointersOf(compiled)).get(sub)
        const c = pointer === undefined ? undefined : compileAt(root, pointer)
        return c !== undefined && Either.isRight(c) ? issues(c.right.isValid as unknown as ValidateFunction, ctx, value, prefix) : undefined
      }
    }
    return ctx
  }

  const build = (root: JsonSchema.JsonSchema, schema: boolean, content?: string): Entry => {
    let compiled = root
    let result = notASchema
    try {
      if (schema) compiled = forAjv(root, content)
    } catch (e) {
      result = unreadable(e)
      schema = false
    }
    const entry: Entry = { root, compiled, content, ctx: contextOf(root, compiled), result, ajv: undefined, holders: new Set(), key: undefined, at: new Map() }
    try {
      if (schema) entry.result = compileRoot(entry)
    } catch (e) {
      entry.result = unreadable(e)
    }
    return entry
  }

  const compileRoot = (entry: Entry): Result => {
    const schema = entry.compiled
    const d = JsonSchema.dialect(schema)
    const own = A.namesPrototypeMembers(schema)
    // a schema that names a resource by URI compiles alone (see `reachesOut`): what it references must not
    // depend on which schemas this process compiled before it
    const alone = A.reachesOut(schema)
    let ajv: A.AnyAjv | SchemaError = alone ? fresh(d, own, true) : instance(d, own)
    if (ajv instanceof SchemaError) return Either.left(ajv)
    const onShared = (on: A.AnyAjv) => ownMeta ? AM.tryCompileChecked(on, schema, d, false, entry.content) : A.tryCompile(on, schema)
    let r = alone ? AM.tryCompileAlone(ajv, schema, d, entry.content) : onShared(ajv)
    if (r === "clash" && !alone) {
      const iso = fresh(d, own, true)
      if (iso instanceof SchemaError) return Either.left(iso)
      ajv = iso
      r = AM.tryCompileAlone(ajv, schema, d, entry.content)
    }
    entry.ajv = ajv
    entry.holders.add(ajv)
    if (r === "clash") return Either.left(new SchemaError({ message: "The schema's `$id` clashes with a registered schema.", path: "/$id" }))
    if (typeof r !== "function") return Either.left(new SchemaError(r))
    // Ajv's code optimizer can drop a variable its code still uses (`props0 is not defined`, seen with `if`):
    // the same schema's unoptimized code stands in (the code the prover's validator runs), then its first-error code
    const stand = optimize ? ([[true, false], [false, false]] as const) : ([[false, false]] as const)
    const named = namedProbes(schema)
    let standIn: ValidateFunction | undefined | null = null
    const fallback = () => {
      if (standIn !== null) return standIn
      standIn = undefined
      for (const [all, opt] of stand) {
        const on = alone ? fresh(d, own, all, opt) : instance(d, own, all, opt)
        if (on instanceof SchemaError) continue
        entry.holders.add(on)
        const f = alone ? AM.tryCompileAlone(on, schema, d, entry.content) : onShared(on)
        if (typeof f === "function" && faultOf(f, named) === undefined) return standIn = f
      }
      return standIn
    }
    const broken = faultOf(r, named)
    if (broken === undefined) return Either.right(wrap(entry.root, d, r, entry.ctx, fallback))
    const alternative = fallback()
    if (alternative !== undefined) return Either.right(wrap(entry.root, d, alternative, entry.ctx))
    return Either.left(new SchemaError({ message: `Ajv generated validation code for this schema that fails when run (${broken}).`, path: "" }))
  }

  /** The entry of a schema: by identity, then by content (an unreadable or non-schema value is its own entry). */
  const entryOf = Cache.byIdentity((schema: JsonSchema.JsonSchema): Entry => {
    if (!safeIsSchema(schema)) return build(schema, false)
    const key = stableKey(schema)
    let entry = key === undefined ? undefined : byContent.get(key)
    if (entry === undefined) {
      entry = build(schema, true, key)
      if (key !== undefined) byContent.set(key, entry)
    }
    return entry
  })

  const compile = (schema: JsonSchema.JsonSchema): Result => entryOf(schema).result

  const compileAt = (root: JsonSchema.JsonSchema, pointer: string): Result => {
    if (typeof pointer !== "string") return Either.left(new SchemaError({ message: "The pointer must be a string.", path: "" }))
    const tokens = P.parse(pointer)
    const entry = entryOf(root)
    const top = entry.result
    if (tokens.length === 0 || Either.isLeft(top)) return top
    const canonical = P.format(tokens)
    let r = entry.at.get(canonical)
    if (r === undefined) entry.at.set(canonical, r = sub(entry, top.right.dialect, canonical))
    return r
  }

  const sub = (entry: Entry, dialect: JsonSchema.Dialect, pointer: string): Result => {
    const target = P.get(entry.compiled as JsonSchema.JsonSchemaObject, pointer)
    if (!JsonSchema.isSchema(target)) {
      return Either.left(new SchemaError({ message: `No subschema at \`${pointer}\`.`, path: pointer }))
    }
    // a released entry (still held by identity) compiles its subschemas on an instance of its own
    const ajv = entry.ajv ?? fresh(dialect, A.namesPrototypeMembers(entry.root), true)
    if (ajv instanceof SchemaError) return Either.left(ajv)
    entry.ajv = ajv
    try {
      if (entry.key === undefined) {
        const key = `https://toolgate.invalid/root/${++keys}`
        ajv.addSchema(entry.compiled as object, key)
        entry.key = key
      }
      const fragment = P.parse(pointer).map((t) => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1")))
      const fn = ajv.getSchema(`${entry.key}#/${fragment.join("/")}`)
      if (fn === undefined) return Either.left(new SchemaError({ message: `Cannot compile the subschema at \`${pointer}\`.`, path: pointer }))
      return Either.right(wrap(target, dialect, fn, entry.ctx))
    } catch (e) {
      return Either.left(new SchemaError({ ...A.describe(ajv, target as object, e), path: pointer }))
    }
  }

  return { compile, compileAt }
}

/** A thrown value's message, never throwing itself. */
const messageOf = (e: unknown): string => {
  try {
    return e instanceof Error ? e.message : String(e)
  } catch {
    return "an unreadable error"
  }
}

// only a hostile object (a throwing getter or proxy trap) or a schema deeper than the stack gets here: Ajv's
// own throws are mapped inside
const unreadable = (e: unknown): Result =>
  Either.left(new SchemaError(e instanceof RangeError
    ? { message: "The schema is nested too deeply to compile.", path: "" }
    : { message: `The schema could not be read: ${messageOf(e)}`, path: "" }))

const notASchema: Result = Either.left(new SchemaError({ message: "A schema is a boolean or a plain object.", path: "" }))

const safeIsSchema = (u: unknown): boolean => {
  try {
    return JsonSchema.isSchema(u)
  } catch {
    return false
  }
}

const defaultValidator: Validator = engine(A.shareBy(new Map(), A.makeAjv, true, A.retirement(4_096)), A.makeAjv, 4_096, true)

/** Compiles a schema with the default instance (its cache keeps 4,096 schemas by content). */
export const compile = (schema: JsonSchema.JsonSchema): Either.Either<Compiled, SchemaError> => defaultValidator.compile(schema)

/** Compiles the subschema at `pointer` of `root` with the default instance, `$ref`s resolved against `root`. */
export const compileAt = (root: JsonSchema.JsonSchema, pointer: string): Either.Either<Compiled, SchemaError> =>
  defaultValidator.compileAt(root, pointer)

/**
 * The validator's own readings where the specification leaves room or Ajv reads otherwise, for code that
 * must answer as the validator does (the subschema prover reads them, so the two cannot drift apart).
 */
export interface Rules {
  /** `multipleOf` as the validator judges it: exact in the decimals JSON writes (`19.99` is a multiple of `0.01`). */
  readonly isMultipleOf: (x: number, m: number) => boolean
  /** `uniqueItems` as the validator judges it: the first pair of JSON-equal items `[i, j]` (`j < i`), or undefined. */
  readonly duplicateItems: (items: ReadonlyArray<unknown>) => readonly [number, number] | undefined
  /** Property names `Object.prototype` answers (`constructor`, `__proto__`, …), which Ajv's code may look up on it. */
  readonly prototypeNames: ReadonlySet<string>
  /** The string formats the validator enforces (ajv-formats); other format names are annotations. */
  readonly stringFormats: ReadonlySet<string>
  /** The number formats the validator enforces (`int32`, `int64`, `float`, `double`). */
  readonly numberFormats: ReadonlySet<string>
  /** Enforced formats that accept every value of their type (`password`, `binary`, `float`, `double`). */
  readonly universalFormats: ReadonlySet<string>
  /**
   * What the dialect's meta-schema says of a schema, as `compile` checks it: `"valid"`, its first complaint,
   * or `"unknown"` where only compiling can tell. Given `content` (the schema's `JsonSchema.stableKey`), the
   * answer is kept by content (the 4,096 most recently used).
   */
  readonly metaCheck: (schema: JsonSchema.JsonSchema, dialect: JsonSchema.Dialect, content?: string) => "valid" | "unknown" | { readonly path: string; readonly message: string }
}

/** The validator's own readings (see the `Rules` interface). */
export const Rules: Rules = {
  isMultipleOf,
  duplicateItems: duplicate,
  prototypeNames: A.inherited,
  stringFormats: F.stringFormats,
  numberFormats: F.numberFormats,
  universalFormats: F.universalFormats,
  metaCheck: AM.metaAnswer
}

/**
 * Compiled validators: Ajv 2020-12 and draft-07 (ajv-formats on, `strict: false`, `allErrors`), cached so a
 * schema is compiled once per process, with Ajv's errors mapped to model-readable `Issue`s.
 *
 * @since 0.1.0
 */
import type { ValidateFunction } from "ajv"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as A from "./internal/ajv.js"
import * as I from "./internal/issues.js"
import * as P from "./internal/pointer.js"
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
}

const EMPTY: ReadonlyArray<Issue> = Object.freeze([])

type Result = Either.Either<Compiled, SchemaError>

interface Origin {
  readonly ajv: A.AnyAjv
  readonly root: JsonSchema.JsonSchema
  key?: string
}

/** A validator instance with its own remotes; the module-level `compile`/`compileAt` use a default one. */
export const make = (options?: Options): Either.Either<Validator, SchemaError> => {
  const given = typeof options === "object" && options !== null ? options.remotes : undefined
  const own = typeof given === "object" && given !== null ? given : {}
  const remotes = Object.keys(own).map((uri) => [uri, own[uri]!] as const)
  const fresh = (d: JsonSchema.Dialect, own: boolean, all: boolean): A.AnyAjv | SchemaError => {
    const ajv = A.makeAjv(d, own, all)
    for (const [uri, schema] of remotes) {
      try {
        ajv.addSchema(schema as object, uri, undefined, false)
      } catch (e) {
        return new SchemaError({ message: `Remote \`${uri}\`: ${e instanceof Error ? e.message : String(e)}`, path: "" })
      }
    }
    return ajv
  }
  const shared = new Map<string, A.AnyAjv>()
  for (const d of remotes.length > 0 ? (["2020-12", "draft-07"] as const) : []) {
    for (const own of [false, true]) {
      const ajv = fresh(d, own, true)
      if (ajv instanceof SchemaError) return Either.left(ajv)
      shared.set(`${d}:${own}:true`, ajv)
    }
  }
  return Either.right(engine(shareBy(shared, fresh as Fresh), fresh))
}

type Fresh = (d: JsonSchema.Dialect, own: boolean, all: boolean) => A.AnyAjv

/** One shared instance per dialect, `ownProperties` and `allErrors` setting, made on first use. */
const shareBy = (shared: Map<string, A.AnyAjv>, fresh: Fresh) => (d: JsonSchema.Dialect, own: boolean, all = true): A.AnyAjv => {
  const key = `${d}:${own}:${all}`
  let ajv = shared.get(key)
  if (ajv === undefined) shared.set(key, ajv = fresh(d, own, all))
  return ajv
}

const engine = (
  instance: (d: JsonSchema.Dialect, own: boolean, all?: boolean) => A.AnyAjv,
  fresh: (d: JsonSchema.Dialect, own: boolean, all: boolean) => A.AnyAjv | SchemaError
): Validator => {
  const byObject = new WeakMap<object, Result>()
  const byBoolean = new Map<boolean, Result>()
  const byKey = new Map<string, Result>()
  const origins = new WeakMap<Compiled, Origin>()
  const at = new WeakMap<Compiled, Map<string, Result>>()
  const index = new WeakMap<object, Map<unknown, string>>()
  const runs = new WeakMap<Compiled, (value: unknown, prefix: string) => ReadonlyArray<Issue>>()
  let keys = 0

  const wrap = (
    schema: JsonSchema.JsonSchema,
    d: JsonSchema.Dialect,
    fn: ValidateFunction,
    root: JsonSchema.JsonSchema,
    fallback?: () => ValidateFunction | undefined
  ): Compiled => {
    const ctx: I.Context = {
      resolve: (ref) => {
        const r = JsonSchema.resolveRef(root, ref)
        return r._tag === "Resolved" ? r.schema : undefined
      },
      branch: (sub, value, prefix) => {
        const pointer = pointerOf(root, sub)
        const c = pointer === undefined ? undefined : compileAt(root, pointer)
        return c !== undefined && Either.isRight(c) ? runs.get(c.right)?.(value, prefix) : undefined
      }
    }
    const run = (value: unknown, prefix: string): ReadonlyArray<Issue> => {
      try {
        if (fn(value) === true) return EMPTY
        return Object.freeze(I.issuesOf(fn.errors ?? [], ctx, prefix))
      } catch (e) {
        // a stack overflow is the value's depth; anything else is a fault in Ajv's generated code (seen with
        // `allErrors` on exotic if/oneOf/not mixes), which its first-error mode often does not share
        const first = e instanceof RangeError ? undefined : fallback?.()
        try {
          if (first === undefined) return Object.freeze([unvalidatable(e)])
          return first(value) === true ? EMPTY : Object.freeze(I.issuesOf(first.errors ?? [], ctx, prefix))
        } catch (again) {
          return Object.freeze([unvalidatable(again)])
        }
      }
    }
    const compiled: Compiled = {
      schema,
      dialect: d,
      isValid: fn as unknown as (value: unknown) => boolean,
      validate: (value) => run(value, "")
    }
    runs.set(compiled, run)
    return compiled
  }

  const pointerOf = (root: JsonSchema.JsonSchema, sub: JsonSchema.JsonSchema): string | undefined => {
    if (typeof root !== "object" || typeof sub !== "object") return undefined
    let map = index.get(root)
    if (map === undefined) {
      map = new Map()
      const stack: Array<readonly [JsonSchema.JsonSchema, string]> = [[root, ""]]
      while (stack.length > 0) {
        const [s, p] = stack.pop()!
        if (typeof s !== "object" || map.has(s)) continue
        map.set(s, p)
        for (const c of JsonSchema.subschemas(s)) stack.push([c.schema, c.tokens.reduce(P.append, p)])
      }
      index.set(root, map)
    }
    return map.get(sub)
  }

  const build = (schema: JsonSchema.JsonSchema): Result => {
    try {
      return buildUnsafe(schema)
    } catch (e) {
      // only a hostile object (a throwing getter or proxy trap) gets here: Ajv's own throws are mapped inside
      return Either.left(new SchemaError({ message: `The schema could not be read: ${e instanceof Error ? e.message : String(e)}`, path: "" }))
    }
  }

  const buildUnsafe = (schema: JsonSchema.JsonSchema): Result => {
    const d = JsonSchema.dialect(schema)
    const own = A.namesPrototypeMembers(schema)
    let ajv = instance(d, own)
    let r = A.tryCompile(ajv, schema)
    if (r === "clash") {
      const iso = fresh(d, own, true)
      if (iso instanceof SchemaError) return Either.left(iso)
      ajv = iso
      r = A.tryCompile(ajv, schema)
    }
    if (r === "clash") return Either.left(new SchemaError({ message: "The schema's `$id` clashes with a registered schema.", path: "/$id" }))
    if (typeof r !== "function") return Either.left(new SchemaError(r))
    let firstError: ValidateFunction | undefined | null = null
    const fallback = () => {
      if (firstError === null) {
        const f = A.tryCompile(instance(d, own, false), schema)
        firstError = typeof f === "function" ? f : undefined
      }
      return firstError
    }
    const c = wrap(schema, d, r, schema, fallback)
    origins.set(c, { ajv, root: schema })
    return Either.right(c)
  }

  const compile = (schema: JsonSchema.JsonSchema): Result => {
    const fast = typeof schema === "object" && schema !== null ? byObject.get(schema) : undefined
    if (fast !== undefined) return fast
    if (typeof schema === "boolean") {
      let r = byBoolean.get(schema)
      if (r === undefined) byBoolean.set(schema, r = build(schema))
      return r
    }
    if (!safeIsSchema(schema)) return Either.left(new SchemaError({ message: "A schema is a boolean or a plain object.", path: "" }))
    const key = stableKey(schema)
    let r = key === undefined ? undefined : byKey.get(key)
    if (r === undefined) {
      r = build(schema)
      if (key !== undefined) byKey.set(key, r)
    }
    byObject.set(schema, r)
    return r
  }

  const compileAt = (root: JsonSchema.JsonSchema, pointer: string): Result => {
    if (typeof pointer !== "string") return Either.left(new SchemaError({ message: "The pointer must be a string.", path: "" }))
    const tokens = P.parse(pointer)
    const top = compile(root)
    if (tokens.length === 0 || Either.isLeft(top)) return top
    let cache = at.get(top.right)
    if (cache === undefined) at.set(top.right, cache = new Map())
    const canonical = P.format(tokens)
    let r = cache.get(canonical)
    if (r === undefined) cache.set(canonical, r = sub(top.right, canonical))
    return r
  }

  const sub = (top: Compiled, pointer: string): Result => {
    const origin = origins.get(top)!
    const target = P.get(origin.root as JsonSchema.JsonSchemaObject, pointer)
    if (!JsonSchema.isSchema(target)) {
      return Either.left(new SchemaError({ message: `No subschema at \`${pointer}\`.`, path: pointer }))
    }
    try {
      if (origin.key === undefined) {
        const key = `https://toolgate.invalid/root/${++keys}`
        origin.ajv.addSchema(origin.root as object, key)
        origin.key = key
      }
      const fragment = P.parse(pointer).map((t) => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1")))
      const fn = origin.ajv.getSchema(`${origin.key}#/${fragment.join("/")}`)
      if (fn === undefined) return Either.left(new SchemaError({ message: `Cannot compile the subschema at \`${pointer}\`.`, path: pointer }))
      return Either.right(wrap(target, top.dialect, fn, origin.root))
    } catch (e) {
      return Either.left(new SchemaError({ ...A.describe(origin.ajv, target as object, e), path: pointer }))
    }
  }

  return { compile, compileAt }
}

const safeIsSchema = (u: unknown): boolean => {
  try {
    return JsonSchema.isSchema(u)
  } catch {
    return false
  }
}

const unvalidatable = (e: unknown): Issue => ({
  path: "",
  field: "",
  keyword: e instanceof RangeError ? "depth" : "validator",
  expected: e instanceof RangeError ? "a value nested less deeply" : "a value the validator can check",
  message: e instanceof RangeError
    ? "The arguments are nested too deeply to validate."
    : `The arguments could not be validated: ${e instanceof Error ? e.message : String(e)}.`
})

const defaultValidator: Validator = engine(shareBy(new Map(), A.makeAjv), A.makeAjv)

/** Compiles a schema with the default instance; cached once per process (identity, then content). */
export const compile = (schema: JsonSchema.JsonSchema): Either.Either<Compiled, SchemaError> => defaultValidator.compile(schema)

/** Compiles the subschema at `pointer` of `root` with the default instance, `$ref`s resolved against `root`. */
export const compileAt = (root: JsonSchema.JsonSchema, pointer: string): Either.Either<Compiled, SchemaError> =>
  defaultValidator.compileAt(root, pointer)

/** Maps Ajv errors to issues (exposed for modules that drive Ajv themselves). */
export const issuesOf = I.issuesOf

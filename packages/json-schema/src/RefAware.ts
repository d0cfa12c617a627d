/**
 * Tool chaining by reference: a model may pass `{ "$tool": "<call id>", "$path": "result.city" }` where a
 * value belongs, meaning "the value found there in that earlier call's result". `widen` lets a tool's
 * schema accept such sentinel refs at every value position (the schema a provider sees); `refs` finds them
 * in a call's arguments so they can be resolved, after which the arguments are validated against the
 * original schema. Pure and total.
 *
 * @since 0.1.0
 */
import * as Cache from "./internal/compileCache.js"
import * as R from "./internal/refAwareRefs.js"
import * as W from "./internal/refAwareWiden.js"
import type { JsonSchema, JsonSchemaObject } from "./JsonSchema.js"

/** A sentinel ref: the id of an earlier tool call, optionally a dotted path into its result or an artifact id. */
export interface Ref {
  readonly $tool: string
  readonly $path?: string
  readonly $artifact?: string
}

/** A ref found in arguments: where (a JSON pointer and the dotted field a model reads) and the ref itself. */
export interface Located {
  /** JSON pointer into the arguments: `"/filters/0/city"` (`""` = the whole arguments). */
  readonly path: string
  /** The same place as a model writes it: `"filters.0.city"`. */
  readonly field: string
  readonly ref: Ref
}

/**
 * The JSON Schema of a sentinel ref (a closed object, `$tool` a non-empty string and required, `$path` and
 * `$artifact` optional strings). One frozen object, shared by every position `widen` adds it to.
 */
export const refSchema: JsonSchemaObject = W.refSchema

/** Whether `u` is exactly a sentinel ref: a plain object, `$tool` a non-empty string, `$path`/`$artifact` strings if present, no other key. */
export const isRef = (u: unknown): u is Ref => R.read(u, false) !== undefined

/**
 * The ref `u` is, or `undefined`. Unlike `isRef` it also reads `null` for `$path`/`$artifact` as absent:
 * that is what a strict-mode provider sends for the optional keys it had to make required and nullable.
 */
export const readRef = (u: unknown): Ref | undefined => R.read(u, true)

/**
 * The sentinel refs in a call's arguments, in document order, each with its path; it does not look
 * inside a ref. Reads refs the way `readRef` does. An object shared by several places is listed at each
 * (as its JSON text would be); a cycle is walked once; a value that is not JSON (a class instance, a
 * function) is skipped; one that cannot be read (a throwing getter or proxy, or sharing that would expand
 * past a million revisits) yields `[]`.
 */
export const refs = (args: unknown): ReadonlyArray<Located> => R.refs(args)

/**
 * The schema with every value position (`properties`, `patternProperties`, `additionalProperties`,
 * `items`, `prefixItems`, `additionalItems`, `unevaluated*`, `contains`, also under `$defs`) accepting a
 * sentinel ref too: `anyOf: [original, refSchema]`, or the ref branch appended to a pure `anyOf` in place.
 * Combinators (`allOf`/`anyOf`/`oneOf`, `then`/`else`, `dependentSchemas`) are traversed, never wrapped;
 * the root is not wrapped; boolean subschemas stay. Local `$ref` pointers through a wrapped position are
 * re-pointed (`#/properties/a/properties/b` → `#/properties/a/anyOf/0/properties/b/anyOf/0`).
 * Idempotent, never mutates its input; a value that is not a schema, or cannot be read, comes back as it is.
 * Once per schema object: the same object widens to the same result (so its compiled validator is cached too).
 */
export const widen: (schema: JsonSchema) => JsonSchema = Cache.byIdentity((schema: JsonSchema): JsonSchema => {
  try {
    return W.widenUnsafe(schema)
  } catch {
    // only a hostile object (a throwing getter or proxy trap) gets here: plain data never throws
    return schema
  }
})

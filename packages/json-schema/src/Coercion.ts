/**
 * The lenient preflight: schema-directed, idempotent repairs of near-miss tool arguments, each one
 * reported. It never mutates its input, never throws, and never changes a value the schema already
 * accepts, except for dropping empty optional fillers.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Fillers from "./internal/coercionFillers.js"
import * as Scalars from "./internal/coercionScalars.js"
import * as Walk from "./internal/coercionWalk.js"
import type { JsonSchema } from "./JsonSchema.js"
import type { JsonValue } from "./JsonValue.js"
import * as Validator from "./Validator.js"

/** The rule behind one coercion. */
export type Rule =
  | "string-to-integer"
  | "string-to-number"
  | "string-to-boolean"
  | "string-to-array"
  | "string-to-object"
  | "drop-empty-optional"
  | "enum-case"
  | "string-null"
  | "unwrap-properties"
  | "rename-key"
  | "drop-strict-null"

/**
 * One repair: where (a JSON pointer into the arguments as the model wrote them, and the same as a
 * field name), which rule, and the value before and after (`to` undefined = the key was dropped; for
 * `rename-key` the values are the old and new key names).
 */
export interface Coercion {
  readonly path: string
  readonly field: string
  readonly rule: Rule
  readonly from: JsonValue
  readonly to: JsonValue | undefined
}

/** Options of `coerce`. */
export interface Options {
  /** The provider received an OpenAI-strict schema: drop `null`s it forced onto optional properties. */
  readonly fromStrictProvider?: boolean
  /** Empty and blank optional strings are values: none is dropped as a filler (see `Arguments.Options`). */
  readonly keepEmptyStrings?: boolean
}

const none: ReadonlyArray<Coercion> = Object.freeze([])

/**
 * Repairs `value` towards `root`: the whole value, when the schema accepts it, only loses empty optional
 * fillers; otherwise every rule applies where the schema directs it. A schema that cannot be compiled,
 * or input too deep to walk, leaves the value as it is.
 */
export const coerce = (
  root: JsonSchema,
  value: JsonValue,
  options?: Options
): { readonly value: JsonValue; readonly coercions: ReadonlyArray<Coercion> } => {
  try {
    const compiled = Validator.compile(root)
    const keep = options?.keepEmptyStrings === true
    if (Either.isRight(compiled) && compiled.right.isValid(value)) {
      return keep ? { value, coercions: none } : Fillers.dropValid(root, compiled.right.isValid, value)
    }
    return Walk.coerce(root, value, options?.fromStrictProvider === true, keep)
  } catch {
    return { value, coercions: none }
  }
}

/** `"true"`/`"yes"`/`"1"` and `"false"`/`"no"`/`"0"`, trimmed, any case, as a boolean, or undefined: the one table of boolean words. */
export const parseBoolean = (s: string): boolean | undefined => typeof s === "string" ? Scalars.parseBoolean(s) : undefined

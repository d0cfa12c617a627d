/**
 * Layer 2's pure core: `prepare` reads a tool call's raw arguments, treats a no-argument call as `{}`
 * for an object schema, applies the lenient coercion when the value is rejected, and validates.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type { Coercion } from "./Coercion.js"
import * as Input from "./internal/argumentsInput.js"
import * as Cache from "./internal/compileCache.js"
import * as Fillers from "./internal/coercionFillers.js"
import * as Walk from "./internal/coercionWalk.js"
import type { JsonSchema } from "./JsonSchema.js"
import type { JsonValue } from "./JsonValue.js"
import * as Validator from "./Validator.js"

/** `lenient` (the default) repairs near-miss arguments before validating; `strict` only validates. */
export type Policy = "lenient" | "strict"

/** Options of `prepare`. */
export interface Options {
  readonly policy?: Policy
  /**
   * The provider received an OpenAI-strict schema (every optional property made required and
   * nullable): a `null` for a property that is optional and not nullable here is dropped first.
   * This undoes the provider's schema rewrite, not a model mistake, so it applies under both policies.
   */
  readonly fromStrictProvider?: boolean
}

/** Arguments the executor may receive, and every repair made to get there. */
export interface Valid {
  readonly _tag: "Valid"
  readonly value: JsonValue
  readonly coercions: ReadonlyArray<Coercion>
}

/** Arguments that do not fit the schema, with issues a model can act on. */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly issues: ReadonlyArray<Validator.Issue>
}

/** The outcome of `prepare`; `SchemaError` means the schema itself cannot be compiled (not the model's fault). */
export type Prepared = Valid | Invalid | Validator.SchemaError

const none: ReadonlyArray<Coercion> = Object.freeze([])

const valid = (value: JsonValue, coercions: ReadonlyArray<Coercion>): Valid => ({ _tag: "Valid", value, coercions })

const invalid = (issues: ReadonlyArray<Validator.Issue>): Invalid => ({ _tag: "Invalid", issues })

/** Whether a caught error is the engine running out of stack (deeply nested input). */
const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message)

/** What `prepare` keeps per schema object, flat: the hot path makes one identity lookup and no more. */
interface Entry {
  readonly error: Validator.SchemaError | undefined
  readonly isValid: (value: unknown) => boolean
  readonly validate: (value: unknown) => ReadonlyArray<Validator.Issue>
  readonly plan: Fillers.Plan | undefined
  readonly fillers: boolean
}

const entryOf = Cache.byIdentity((schema: JsonSchema): Entry => {
  const compiled = Validator.compile(schema)
  const plan = Fillers.planOf(schema)
  return Either.isLeft(compiled)
    ? { error: compiled.left, isValid: () => false, validate: () => [], plan, fillers: false }
    : { error: undefined, isValid: compiled.right.isValid, validate: compiled.right.validate, plan, fillers: Fillers.dropsFillers(plan) }
})

/**
 * Prepares raw tool-call arguments (a JSON string, a parsed value, `null`, `undefined` or `""`) for an
 * executor. Never throws and never mutates `raw`: unreadable or non-JSON input is `Invalid`. A parsed value
 * is read as `JSON.stringify` reads it: a getter is read like a data property, once (plain data only).
 */
export const prepare = (schema: JsonSchema, raw: unknown, options?: Options): Prepared => {
  try {
    const entry = entryOf(schema)
    if (entry.error !== undefined) return entry.error
    const isValid = entry.isValid
    const value = Input.read(schema, raw)
    if (value instanceof Input.Unreadable) return invalid([value.issue])
    const strict = options?.policy === "strict"
    if (isValid(value)) {
      if (strict || !entry.fillers || !Input.lastRead.mayHoldBlank) return valid(value, none)
      const dropped = Fillers.dropValidWith(entry.plan, isValid, value)
      return dropped === undefined ? valid(value, none) : valid(dropped.value, dropped.coercions)
    }
    const fromStrictProvider = options?.fromStrictProvider === true
    const repaired = strict
      ? (fromStrictProvider ? Fillers.dropStrictNulls(schema, value) : { value, coercions: none })
      : Walk.coerce(schema, value, fromStrictProvider)
    if (repaired.coercions.length > 0 && isValid(repaired.value)) return valid(repaired.value, repaired.coercions)
    return invalid(entry.validate(repaired.value))
  } catch (e) {
    return invalid([isStackOverflow(e) ? Input.tooDeepIssue : Input.unreadableIssue(e)])
  }
}

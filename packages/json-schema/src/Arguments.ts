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
  /**
   * Empty and blank strings for optional properties are values the tool means (`body: ""` clears a body):
   * none is dropped as a filler (default false: the lenient policy drops an optional `""`, `" "`, as a model's
   * filler for "no value"). Every other repair still applies.
   */
  readonly keepEmptyStrings?: boolean
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

/** `prepare` for one schema, its work on the schema done once (as Ajv's `compile`); see `preparer`. */
export type Preparer = (raw: unknown, options?: Options) => Prepared

/** A read value the schema rejects: the repair the policy allows, validated again; else the issues. */
const repair = (
  schema: JsonSchema,
  validator: Validator.Compiled,
  value: JsonValue,
  options: Options | undefined
): Prepared => {
  const fromStrictProvider = options?.fromStrictProvider === true
  const repaired = options?.policy === "strict"
    ? (fromStrictProvider ? Fillers.dropStrictNulls(schema, value) : { value, coercions: none })
    : Walk.coerce(schema, value, fromStrictProvider, options?.keepEmptyStrings === true)
  if (repaired.coercions.length > 0 && validator.isValid(repaired.value)) return valid(repaired.value, repaired.coercions)
  return invalid(validator.validate(repaired.value))
}

const compiledPreparer = (schema: JsonSchema, validator: Validator.Compiled): Preparer => {
  const isValid = validator.isValid
  const plan = Fillers.planOf(schema)
  const fillers = Fillers.dropsFillers(plan)
  // The hot path (a valid value) stays small so the engine inlines the read and the validator into it.
  return (raw, options) => {
    try {
      const value = Input.read(schema, raw, fillers)
      if (value === undefined) return invalid([Input.lastRead.issue!])
      if (!isValid(value)) return repair(schema, validator, value, options)
      if (!fillers || !Input.lastRead.mayHoldBlank || options?.policy === "strict" || options?.keepEmptyStrings === true) return valid(value, none)
      const dropped = Fillers.dropValidWith(plan, isValid, value)
      return dropped === undefined ? valid(value, none) : valid(dropped.value, dropped.coercions)
    } catch (e) {
      return invalid([isStackOverflow(e) ? Input.tooDeepIssue : Input.unreadableIssue(e)])
    }
  }
}

/**
 * `prepare` with the schema compiled once, for a caller that keeps a tool (the AI SDK and @effect/ai adapters do):
 * a schema that cannot be compiled gives a preparer answering its `SchemaError`. Memoized per schema object.
 */
export const preparer: (schema: JsonSchema) => Preparer = Cache.byIdentity((schema: JsonSchema): Preparer => {
  const compiled = Validator.compile(schema)
  if (Either.isLeft(compiled)) {
    const error = compiled.left
    return () => error
  }
  return compiledPreparer(schema, compiled.right)
})

/**
 * Prepares raw tool-call arguments (a JSON string, a parsed value, `null`, `undefined` or `""`) for an
 * executor. Never throws and never mutates `raw`: unreadable or non-JSON input is `Invalid`. A parsed value
 * is read as `JSON.stringify` reads it (own enumerable string keys, a getter like a data property) and is
 * `Valid` as it is, not copied: the proof that it is JSON and the validation read it again, so hand over plain
 * data (a getter or proxy answering differently on a later read is not caught).
 */
export const prepare = (schema: JsonSchema, raw: unknown, options?: Options): Prepared => preparer(schema)(raw, options)

/**
 * Running Ajv's compiled code: the one issue runner (issues for a value, never a throw), the `Compiled`
 * around a function, and the probe that finds code which fails when run.
 *
 * @internal
 */
import type { ValidateFunction } from "ajv"
import type * as JsonSchema from "../JsonSchema.js"
import type { Compiled, Issue } from "../Validator.js"
import * as I from "./issues.js"

const EMPTY: ReadonlyArray<Issue> = Object.freeze([])

/** The one issue runner: the issues of `value` under an Ajv function (`[]` when valid); never throws. */
export const issues = (fn: ValidateFunction, ctx: I.Context, value: unknown, prefix: string, fallback?: () => ValidateFunction | undefined): ReadonlyArray<Issue> => {
  try {
    if (fn(value) === true) return EMPTY
    return Object.freeze(I.issuesOf(fn.errors ?? [], ctx, prefix))
  } catch (e) {
    // a stack overflow is the value's depth; anything else is a fault in Ajv's generated code (seen in its
    // optimized code on exotic if/oneOf/not mixes), which the stand-in (see `Validator`) does not share
    const first = e instanceof RangeError ? undefined : fallback?.()
    return first === undefined ? Object.freeze([unvalidatable(e)]) : issues(first, ctx, value, prefix)
  }
}

/** A compiled schema around an Ajv function: `validate` runs the issue runner, `isValid` is the function itself. */
export const wrap = (schema: JsonSchema.JsonSchema, dialect: JsonSchema.Dialect, fn: ValidateFunction, ctx: I.Context, fallback?: () => ValidateFunction | undefined): Compiled => ({
  schema,
  dialect,
  isValid: fn as unknown as (value: unknown) => boolean,
  validate: (value) => issues(fn, ctx, value, "", fallback)
})

/** One value of each JSON type: the branches a root `type` check chooses between. */
const probes: ReadonlyArray<unknown> = [null, true, 0, 0.5, "", [], {}]

/**
 * Whether Ajv's generated code throws on a plain value of some type (a variable it never declared, seen with
 * `if`/`then` around a `not: true` that tracks evaluated properties): such a validator fails on every value
 * of that type, so another code stands in or the schema is refused at compile, not every call blamed on the
 * model. A stack overflow is
 * not a fault of the code. (A fault that only deeper data reaches is not found here.)
 */
export const faultOf = (fn: ValidateFunction): string | undefined => {
  for (const probe of probes) {
    try {
      fn(probe)
    } catch (e) {
      if (!(e instanceof RangeError)) return e instanceof Error ? e.message : String(e)
    }
  }
  return undefined
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

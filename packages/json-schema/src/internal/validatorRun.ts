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

// At most this many property names of a schema are probed, each holding one value of each type.
const MAX_PROBED_NAMES = 16

/**
 * Objects with the property names a schema's `properties` declare and its `patternProperties` spell out
 * literally (`^x$`, `x`), each holding one value of each JSON type: Ajv's code for evaluated properties has
 * thrown only once such a key is present (`Cannot set properties of undefined`, with `patternProperties`
 * beside an `if`; fuzz seed 50505), which the plain probes never reach.
 */
export const namedProbes = (schema: unknown): ReadonlyArray<unknown> => {
  const names = new Set<string>()
  const stack: Array<unknown> = [schema]
  const seen = new Set<object>()
  while (stack.length > 0 && names.size < MAX_PROBED_NAMES) {
    const s = stack.pop()
    if (typeof s !== "object" || s === null || seen.has(s)) continue
    seen.add(s)
    if (!Array.isArray(s)) {
      const o = s as Record<string, unknown>
      const props = Object.hasOwn(o, "properties") ? o["properties"] : undefined
      if (typeof props === "object" && props !== null && !Array.isArray(props)) for (const k of Object.keys(props)) names.add(k)
      const patterns = Object.hasOwn(o, "patternProperties") ? o["patternProperties"] : undefined
      if (typeof patterns === "object" && patterns !== null && !Array.isArray(patterns)) {
        for (const p of Object.keys(patterns)) {
          const literal = /^\^?([\w-]+)\$?$/.exec(p)
          if (literal !== null) names.add(literal[1]!)
        }
      }
    }
    for (const v of Object.values(s)) stack.push(v)
  }
  const out: Array<unknown> = []
  for (const name of [...names].slice(0, MAX_PROBED_NAMES)) {
    for (const v of probes) out.push(Object.defineProperty({}, name, { value: v, enumerable: true, writable: true, configurable: true }))
  }
  return out
}

/**
 * Whether Ajv's generated code throws on a plain value of some type (a variable it never declared, seen with
 * `if`/`then` around a `not: true` that tracks evaluated properties): such a validator fails on every value
 * of that type, so another code stands in or the schema is refused at compile, not every call blamed on the
 * model. `more` probes too (`namedProbes`). A stack overflow is not a fault of the code. (A fault that only
 * deeper data reaches is not found here.)
 */
export const faultOf = (fn: ValidateFunction, more: ReadonlyArray<unknown> = []): string | undefined => {
  for (const probe of [...probes, ...more]) {
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

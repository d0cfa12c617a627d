/**
 * Ajv instances as toolgate configures them, and Ajv's thrown errors turned into a message and a pointer.
 *
 * @internal
 */
import { Ajv } from "ajv"
import type { AnySchema, ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import type { Dialect } from "../JsonSchema.js"

const addFormats: typeof addFormatsModule.default =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule.default }).default ??
    (addFormatsModule as unknown as typeof addFormatsModule.default)

/** An Ajv instance of either class (they share the core API). */
export type AnyAjv = Ajv | Ajv2020

/** Options every instance shares: real tool schemas carry unknown keywords, so `strict` is off. */
const options = {
  strict: false,
  allErrors: true,
  verbose: true,
  // `required: ["constructor"]` must not be met by Object.prototype (the suite checks this, and so do hostile inputs)
  ownProperties: true,
  logger: false
} as const

/** A fresh, formats-enabled Ajv instance for a dialect. */
export const makeAjv = (dialect: Dialect): AnyAjv => {
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : new Ajv(options)
  addFormats(ajv)
  return ajv
}

/** Why Ajv refused a schema: a readable message and the pointer into the schema where it could tell. */
export interface Failure {
  readonly message: string
  readonly path: string
}

/** Whether an Ajv error says an `$id` (or key) is already taken in this instance. */
export const isIdClash = (e: unknown): boolean => e instanceof Error && /already exists/.test(e.message)

/** Compiles on one instance; a throw (invalid schema, unknown ref, bad regex, stack overflow) is a `Failure`. */
export const tryCompile = (ajv: AnyAjv, schema: AnySchema): ValidateFunction | Failure | "clash" => {
  try {
    const fn = ajv.compile(schema)
    if ((fn as { $async?: unknown }).$async === true) {
      return { message: "Asynchronous schemas (`$async: true`) are not supported.", path: "/$async" }
    }
    return fn
  } catch (e) {
    if (isIdClash(e)) return "clash"
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

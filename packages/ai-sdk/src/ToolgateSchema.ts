/**
 * An AI SDK `Schema` (what `jsonSchema()` returns) whose `validate` is toolgate's `Arguments.prepare`: the
 * model sees the JSON Schema as written, and `execute` receives the prepared value (lenient coercion by
 * default: `"15"` → `15` for an integer) or never runs, the model getting toolgate's issue text instead.
 *
 * @since 0.1.0
 */
import { Arguments, type JsonSchema, type JsonValue, Validator } from "@toolgate/json-schema"
import { jsonSchema, type JSONSchema7, type Schema } from "ai"
import * as Data from "effect/Data"
import * as Either from "effect/Either"

/** How arguments are prepared: `policy` (`lenient` by default, or `strict`) and `fromStrictProvider`. */
export type Options = Arguments.Options

/** Arguments that do not fit the schema; `message` is the issues' sentences, one a line, for the model. */
export class InvalidToolInput extends Data.TaggedError("InvalidToolInput")<{
  readonly issues: ReadonlyArray<Validator.Issue>
}> {
  override get message(): string {
    return this.issues.map((issue) => issue.message).join("\n")
  }
}

/** The schema itself does not compile (the app's bug, not the model's): thrown by `make`, never sent to the model. */
export class InvalidSchema extends Data.TaggedError("InvalidSchema")<{
  readonly cause: Validator.SchemaError
}> {
  override get message(): string {
    const at = this.cause.path === "" ? "" : ` at ${this.cause.path}`
    return `The tool's JSON Schema does not compile${at}: ${this.cause.message}`
  }
}

/** What a `validate` answers (the AI SDK's `ValidationResult`, which `ai` does not re-export). */
export type Result<A> = Awaited<ReturnType<NonNullable<Schema<A>["validate"]>>>

/** A JSON Schema as toolgate types it, or as the AI SDK does (`JSONSchema7`). */
export type Input = JsonSchema.JsonSchemaObject | JSONSchema7

/**
 * The `validate` function alone, for `jsonSchema(schema, { validate })`: `Arguments.prepare` on the value
 * the AI SDK parsed. Never throws; the schema is compiled once, here (`Arguments.preparer`).
 */
export const validator = <A = JsonValue.JsonValue>(
  schema: Input,
  options?: Options
): (value: unknown) => Result<A> => {
  const prepare = Arguments.preparer(schema as JsonSchema.JsonSchema)
  return (value) => {
    // The AI SDK has already parsed the model's text, while `prepare` reads a string as JSON text: a string
    // here is the model's own value (or double-encoded arguments, which lenient coercion then reads).
    const prepared = prepare(typeof value === "string" ? JSON.stringify(value) : value, options)
    switch (prepared._tag) {
      case "Valid":
        return { success: true, value: prepared.value as A }
      case "Invalid":
        return { success: false, error: new InvalidToolInput({ issues: prepared.issues }) }
      case "SchemaError":
        return { success: false, error: new InvalidSchema({ cause: prepared }) }
    }
  }
}

/**
 * `jsonSchema(schema)` with toolgate's `validate`. The schema is compiled here, so one that does not compile
 * throws `InvalidSchema` when the tool is defined rather than on the model's first call. `A` is the type
 * `execute` receives: the caller's claim, as with the AI SDK's own `jsonSchema<A>()`.
 */
export const make = <A = JsonValue.JsonValue>(schema: Input, options?: Options): Schema<A> => {
  const compiled = Validator.compile(schema as JsonSchema.JsonSchema)
  if (Either.isLeft(compiled)) throw new InvalidSchema({ cause: compiled.left })
  return jsonSchema<A>(schema as JSONSchema7, { validate: validator<A>(schema, options) })
}

/**
 * The issues behind an AI SDK error, when toolgate rejected the call: the SDK wraps `InvalidToolInput` as the
 * cause of a `TypeValidationError`, itself the cause of the `InvalidToolInputError` that `repairToolCall`
 * receives and that an invalid call carries (`step.toolCalls`, `invalid: true`).
 */
export const issuesOf = (error: unknown): ReadonlyArray<Validator.Issue> | undefined => {
  // A few hops reach it; the bound keeps a cyclic `cause` chain from looping.
  for (let at = error, hops = 0; at instanceof Error && hops < 8; at = at.cause, hops++) {
    if (at instanceof InvalidToolInput) return at.issues
  }
  return undefined
}

/**
 * What `toolgate validate` decided for one tool call, as data: layer 2's verdict plus what the model is told.
 *
 * @since 0.1.0
 */
import { Arguments, JsonSchema, type Coercion, type Validator } from "@toolgate/json-schema"
import { ToolEnvelope } from "@toolgate/runtime"

/** The verdict on one call: the prepared arguments, the failure envelope fed back, or a schema that cannot be used. */
export type Outcome =
  | {
    readonly status: "valid"
    readonly value: unknown
    readonly coercions: ReadonlyArray<Coercion.Coercion>
    readonly upgrades: ReadonlyArray<JsonSchema.Change>
  }
  | {
    readonly status: "invalid"
    readonly issues: ReadonlyArray<Validator.Issue>
    readonly envelope: ToolEnvelope.Failure
    readonly upgrades: ReadonlyArray<JsonSchema.Change>
  }
  | { readonly status: "error"; readonly message: string }

/** The exit code each status means: 0 valid, 1 invalid arguments, 2 bad input. */
export const exitCode = (outcome: Outcome): 0 | 1 | 2 =>
  outcome.status === "valid" ? 0 : outcome.status === "invalid" ? 1 : 2

/**
 * Upgrades the schema as real tools publish it (BFCL type names, draft-07 tuples, OpenAPI `nullable`), then
 * prepares the raw arguments under the policy.
 */
export const decide = (input: {
  readonly tool?: string | undefined
  readonly schema: unknown
  readonly args: unknown
  readonly policy: Arguments.Policy
}): Outcome => {
  if (!JsonSchema.isSchema(input.schema)) {
    return { status: "error", message: "The schema must be a JSON object or a boolean." }
  }
  const { changes, schema } = JsonSchema.upgrade(input.schema)
  const prepared = Arguments.prepare(schema, input.args, { policy: input.policy })
  switch (prepared._tag) {
    case "Valid":
      return { status: "valid", value: prepared.value, coercions: prepared.coercions, upgrades: changes }
    case "Invalid":
      return {
        status: "invalid",
        issues: prepared.issues,
        envelope: ToolEnvelope.fromIssues(prepared.issues, input.tool),
        upgrades: changes
      }
    case "SchemaError":
      return { status: "error", message: `The schema cannot be compiled: ${prepared.message}` }
  }
}

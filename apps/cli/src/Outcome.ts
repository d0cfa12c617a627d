/**
 * What `toolgate validate` decided for one tool call, as data: layer 2's verdict plus what the model is told.
 *
 * @since 0.1.0
 */
import { Arguments, JsonSchema, type Coercion, type Validator } from "@toolgate/json-schema"
import { ToolEnvelope } from "@toolgate/runtime"

/**
 * The verdict on one call: the prepared arguments, the failure envelope fed back, or a schema that cannot be
 * used. Tagged like `Subschema.Verdict` and `toolgate check`'s outcomes, so `--json` speaks one family.
 */
export type Outcome =
  | {
    readonly _tag: "Valid"
    readonly value: unknown
    readonly coercions: ReadonlyArray<Coercion.Coercion>
    readonly upgrades: ReadonlyArray<JsonSchema.Change>
  }
  | {
    readonly _tag: "Invalid"
    readonly issues: ReadonlyArray<Validator.Issue>
    readonly envelope: ToolEnvelope.Failure
    readonly upgrades: ReadonlyArray<JsonSchema.Change>
  }
  | { readonly _tag: "BadInput"; readonly message: string }

/** The exit code each status means: 0 valid, 1 invalid arguments, 2 bad input. */
export const exitCode = (outcome: Outcome): 0 | 1 | 2 =>
  outcome._tag === "Valid" ? 0 : outcome._tag === "Invalid" ? 1 : 2

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
    return { _tag: "BadInput", message: "The schema must be a JSON object or a boolean." }
  }
  const { changes, schema } = JsonSchema.upgrade(input.schema)
  const prepared = Arguments.prepare(schema, input.args, { policy: input.policy })
  switch (prepared._tag) {
    case "Valid":
      return { _tag: "Valid", value: prepared.value, coercions: prepared.coercions, upgrades: changes }
    case "Invalid":
      return {
        _tag: "Invalid",
        issues: prepared.issues,
        envelope: ToolEnvelope.fromIssues(prepared.issues, input.tool),
        upgrades: changes
      }
    case "SchemaError":
      return { _tag: "BadInput", message: `The schema cannot be compiled: ${prepared.message}` }
  }
}

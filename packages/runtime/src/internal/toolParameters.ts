/**
 * A tool's `parameters` (a JSON Schema or an Effect Schema) as the local JSON Schema and a decoder.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { JsonSchema, JsonValue as J, type Validator } from "@toolgate/json-schema"

/** What `Tool.make` keeps of its parameters. */
export interface Parameters<A> {
  /** The local schema after `JsonSchema.upgrade` (`false` when the Effect Schema has no JSON Schema form). */
  readonly jsonSchema: JsonSchema.JsonSchema
  /** The changes `upgrade` made to the declared schema. */
  readonly changes: ReadonlyArray<JsonSchema.Change>
  /** Why the parameters have no JSON Schema form, when they have none. */
  readonly schemaError: string | undefined
  /** Valid JSON arguments to the executor's argument type; issues when an Effect Schema rejects them. */
  readonly decode: (value: J.JsonValue) => Either.Either<A, ReadonlyArray<Validator.Issue>>
}

const identity = <A>(value: J.JsonValue): Either.Either<A, ReadonlyArray<Validator.Issue>> => Either.right(value as A)

/** A message from an unknown thrown value, never throwing itself. */
const messageOf = (e: unknown): string => {
  try {
    return e instanceof Error ? e.message : String(e)
  } catch {
    return "unreadable error"
  }
}

/** One decoding issue as a model-readable validation issue. */
const toIssue = (issue: ParseResult.ArrayFormatterIssue): Validator.Issue => {
  const tokens = issue.path.map((k) => typeof k === "symbol" ? String(k) : k)
  const field = tokens.join(".")
  return {
    path: JsonSchema.Pointer.format(tokens),
    field,
    keyword: "decode",
    expected: issue.message,
    message: field === "" ? `The arguments are invalid: ${issue.message}` : `Argument \`${field}\` is invalid: ${issue.message}`
  }
}

const decodeFailure = (message: string): ReadonlyArray<Validator.Issue> => [
  { path: "", field: "", keyword: "decode", expected: "arguments the tool can decode", message: `The arguments could not be decoded: ${message}` }
]

/** The decoder of an Effect Schema, built once; a throwing transformation is an issue, not an exception. */
const decoderOf = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  return (value: J.JsonValue): Either.Either<A, ReadonlyArray<Validator.Issue>> => {
    try {
      return Either.mapLeft(decode(value), (e) => {
        const issues = ParseResult.ArrayFormatter.formatErrorSync(e).map(toIssue)
        return issues.length === 0 ? decodeFailure(e.message) : issues
      })
    } catch (e) {
      return Either.left(decodeFailure(messageOf(e)))
    }
  }
}

/** How `JSONSchema.make` writes a struct without fields (`Schema.Struct({})`): any object, or any array. */
const emptyStruct = { $id: "/schemas/%7B%7D", anyOf: [{ type: "object" }, { type: "array" }] }

/**
 * A struct without fields (`Schema.Struct({})`), at the root (a tool without arguments) or nested, as the
 * object schema every other struct becomes: `{"type": "object", "properties": {}, "additionalProperties":
 * false}`. So a no-argument call (`null`, omitted) means `{}`, `[]` is not arguments, no stray relative
 * `$id` opens a resource, and OpenAI's strict mode accepts it. Annotations stay.
 */
const emptyStructAsObject = (made: J.JsonValue): J.JsonValue => {
  if (Array.isArray(made)) return made.map(emptyStructAsObject)
  if (!J.isObject(made)) return made
  const { $id, anyOf, ...rest } = made
  if ($id === emptyStruct.$id && anyOf !== undefined && J.equals(anyOf, emptyStruct.anyOf)) {
    return J.fromEntries([...Object.entries(rest), ["type", "object"], ["properties", {}], ["additionalProperties", false]])
  }
  return J.fromEntries(Object.keys(made).map((k) => [k, emptyStructAsObject(made[k]!)] as const))
}

/** The parameters of `Tool.make`, read once: JSON Schema upgraded, Effect Schema turned into one. */
export const parametersOf = <A>(parameters: unknown): Parameters<A> => {
  if (Schema.isSchema(parameters)) {
    const decode = decoderOf(parameters as Schema.Schema<A, unknown, never>)
    try {
      const made = emptyStructAsObject(JSONSchema.make(parameters, { target: "jsonSchema2020-12" }) as unknown as J.JsonValue)
      const upgraded = JsonSchema.upgrade(made as JsonSchema.JsonSchema)
      return { jsonSchema: upgraded.schema, changes: upgraded.changes, schemaError: undefined, decode }
    } catch (e) {
      return { jsonSchema: false, changes: [], schemaError: `the Effect Schema has no JSON Schema form: ${messageOf(e)}`, decode }
    }
  }
  // an unreadable schema (a throwing getter or proxy, a cycle) must not pass as "no constraint": fail closed
  if (!JsonSchema.isSchema(parameters) || !J.isJsonValue(parameters)) {
    return { jsonSchema: false, changes: [], schemaError: "the parameters are neither plain JSON Schema nor an Effect Schema", decode: identity }
  }
  const upgraded = JsonSchema.upgrade(parameters)
  return { jsonSchema: upgraded.schema, changes: upgraded.changes, schemaError: undefined, decode: identity }
}

/**
 * The relay profile's wire contract as Schemas and one pure classification: a decoded body is `Exported`,
 * `Predates` (neither key) or a `RelayProfileContractError`. HTTP and caching live in `RelayProfileClient.ts`.
 *
 * @internal
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Errors } from "@toolgate/runtime"
import { clip } from "@toolgate/json-schema/Text"

/** The major version of `capabilities_version` this runtime reads. */
export const SUPPORTED_MAJOR = 1

/** The body's outer shape: a JSON object whose two keys are read in stages (other keys are ignored). */
export const Envelope = Schema.Struct({
  capabilities_version: Schema.optionalWith(Schema.Unknown, { exact: true }),
  tool_schemas: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations({ identifier: "RelayProfileEnvelope", message: () => "the body is not a JSON object" })

/** `"MAJOR.MINOR"`, both decimal. */
export const Version = Schema.String.pipe(Schema.pattern(/^\d{1,9}\.\d{1,9}$/)).annotations({ identifier: "RelayProfileVersion" })

/** A plain object (JSON objects only: no arrays, class instances or null). */
const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** A JSON Schema value (boolean or plain object). */
const SchemaValue = Schema.declare(JsonSchema.isSchema, { identifier: "JsonSchema" })

/**
 * `tool_schemas`: an object of tool name → JSON Schema, decoded into a `ReadonlyMap` by own entries, so a
 * tool named `__proto__` stays a tool (a `Schema.Record` would assign it as the prototype and lose it).
 */
export const ToolSchemas = Schema.transformOrFail(
  Schema.Unknown,
  Schema.ReadonlyMapFromSelf({ key: Schema.String, value: SchemaValue }),
  {
    strict: true,
    decode: (u, _, ast) => {
      if (!isPlainObject(u)) {
        return ParseResult.fail(new ParseResult.Type(ast, u, "tool_schemas must be an object of tool name → JSON Schema"))
      }
      const tools = new Map<string, JsonSchema.JsonSchema>()
      const bad: Array<string> = []
      for (const [name, schema] of Object.entries(u)) {
        if (JsonSchema.isSchema(schema)) tools.set(name, schema)
        else bad.push(name)
      }
      return bad.length === 0 ? ParseResult.succeed(tools) : ParseResult.fail(
        new ParseResult.Type(ast, u, `tool_schemas entries that are not JSON Schemas: ${listed(bad)}`)
      )
    },
    encode: (tools) => ParseResult.succeed(Object.fromEntries(tools))
  }
)

/** What a well-formed envelope says. */
export type Wire =
  | { readonly _tag: "Exported"; readonly version: string; readonly toolSchemas: ReadonlyMap<string, JsonSchema.JsonSchema> }
  | { readonly _tag: "Predates" }

const decodeVersion = Schema.decodeUnknownEither(Version, { errors: "all" })
const decodeToolSchemas = Schema.decodeUnknownEither(ToolSchemas, { errors: "all" })
const predates: Wire = { _tag: "Predates" }

/** Classifies a decoded envelope exactly as the wire contract says. */
export const classify = (body: typeof Envelope.Type): Either.Either<Wire, Errors.RelayProfileContractError> => {
  const hasVersion = "capabilities_version" in body, hasTools = "tool_schemas" in body
  if (!hasVersion && !hasTools) return Either.right(predates)
  if (!hasVersion || !hasTools) {
    const [present, absent] = hasVersion ? ["capabilities_version", "tool_schemas"] : ["tool_schemas", "capabilities_version"]
    return Either.left(new Errors.RelayProfileContractError({ reason: "incomplete", detail: `${present} is present but ${absent} is missing` }))
  }
  const version = decodeVersion(body.capabilities_version)
  if (Either.isLeft(version)) {
    const got = preview(body.capabilities_version)
    return Either.left(new Errors.RelayProfileContractError({ reason: "malformed", detail: `capabilities_version must be a string "MAJOR.MINOR", got ${got}` }))
  }
  const major = Number(version.right.split(".")[0])
  if (major !== SUPPORTED_MAJOR) {
    return Either.left(new Errors.RelayProfileContractError({
      reason: "unsupported_version",
      detail: `capabilities_version ${version.right} has major ${major}; this runtime reads major ${SUPPORTED_MAJOR}`
    }))
  }
  const tools = decodeToolSchemas(body.tool_schemas)
  if (Either.isLeft(tools)) return Either.left(malformed(tools.left))
  return Either.right({ _tag: "Exported", version: version.right, toolSchemas: tools.right })
}

/** A `ParseError` as a `malformed` contract error with readable messages. */
export const malformed = (error: ParseResult.ParseError): Errors.RelayProfileContractError => {
  const messages = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => issue.message)
  return new Errors.RelayProfileContractError({ reason: "malformed", detail: clip([...new Set(messages)].join("; "), 1_000) })
}

const preview = (u: unknown): string => {
  try {
    return clip(JSON.stringify(u) ?? String(u), 80)
  } catch {
    return "(unprintable)"
  }
}

const listed = (names: ReadonlyArray<string>): string =>
  names.length <= 5
    ? names.map((n) => JSON.stringify(n)).join(", ")
    : `${names.slice(0, 5).map((n) => JSON.stringify(n)).join(", ")} and ${names.length - 5} more`

/**
 * A parameters schema for an @effect/ai `Tool` that hands the model's arguments through untouched while
 * the provider still sees the JSON Schema toolgate chose. @effect/ai decodes every tool call's `params`
 * with the tool's `parametersSchema` (in `Response.Part(toolkit)`), and a failed decode is a fatal
 * `MalformedOutput`: with this schema nothing is decoded there, so toolgate's `Arguments.prepare` is the
 * one place arguments are judged.
 */
import type { Tool } from "@effect/ai"
import type { JsonSchema } from "@toolgate/json-schema"
import type * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"

/** `Schema.Unknown` carrying a JSON Schema for `Tool.getJsonSchema`, shaped as a struct for `Tool.setParameters`. */
export interface RawParameters extends Tool.AnyStructSchema {
  readonly Type: unknown
  readonly Encoded: unknown
  readonly Context: never
}

/**
 * The schema a provider sends is `jsonSchema` itself: `JSONSchema.fromAST` returns a `jsonSchema`
 * annotation as it is, so `$defs`, `$ref`s and keywords Effect's generator never writes survive.
 * `fields` is empty: nothing in @effect/ai or its providers reads it from a user-defined tool.
 */
export const make = (jsonSchema: JsonSchema.JsonSchema | JSONSchema.JsonSchema7): RawParameters =>
  Object.assign(Schema.Unknown.annotations({ jsonSchema: objectForm(jsonSchema) }), { fields: {} }) as unknown as RawParameters

/** Providers want an object: `true` is `{}`, `false` is `{ "not": {} }` (the same sets of values). */
const objectForm = (schema: JsonSchema.JsonSchema | JSONSchema.JsonSchema7): object => schema === true ? {} : schema === false ? { not: {} } : schema

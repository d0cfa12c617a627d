/**
 * Schemas shared by `ToolEnvelope`, `Compensation` and `Errors`: they live here so that the errors can
 * carry envelopes without `Errors` importing the modules that fail with them.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as J from "@toolgate/json-schema/JsonValue"
import { Kind } from "./kinds.js"

/**
 * Any JSON value, checked iteratively (deep nesting costs no stack) and passed through untouched, so
 * `__proto__` keys stay own properties. Its arbitrary is fast-check's `jsonValue`, normalised through
 * JSON so that `-0` (which JSON writes as `0`) does not appear.
 */
export const Json: Schema.Schema<J.JsonValue> = Schema.declare(
  J.isJsonValue,
  {
    identifier: "JsonValue",
    description: "a JSON value",
    jsonSchema: { type: ["null", "boolean", "number", "string", "array", "object"] },
    arbitrary: () => (fc) => fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as J.JsonValue)
  }
)

/** The wire form of a validation issue (`Validator.Issue` of `@toolgate/json-schema`). */
export const Issue = Schema.Struct({
  path: Schema.String,
  field: Schema.String,
  keyword: Schema.String,
  expected: Schema.String,
  message: Schema.String
}).annotations({ identifier: "Issue" })

/** The success envelope's Schema (`ToolEnvelope.Success`). */
export const Success = Schema.Struct({
  ok: Schema.Literal(true),
  tool: Schema.optionalWith(Schema.String, { exact: true }),
  result: Json,
  warnings: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
}).annotations({ identifier: "ToolEnvelope.Success" })

/** The failure envelope's Schema (`ToolEnvelope.Failure`). */
export const Failure = Schema.Struct({
  ok: Schema.Literal(false),
  kind: Kind,
  message: Schema.String,
  field: Schema.optionalWith(Schema.String, { exact: true }),
  expected: Schema.optionalWith(Schema.String, { exact: true }),
  tool: Schema.optionalWith(Schema.String, { exact: true }),
  retryable: Schema.Boolean
}).annotations({ identifier: "ToolEnvelope.Failure" })

/** Either envelope, told apart by `ok` (`ToolEnvelope.Envelope`). */
export const Envelope = Schema.Union(Success, Failure).annotations({ identifier: "ToolEnvelope" })

/**
 * Schemas shared by `ToolEnvelope` and `Errors`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { JsonValue as J } from "@toolgate/json-schema"

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

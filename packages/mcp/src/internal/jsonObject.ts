/**
 * A JSON object as the MCP messages toolgate reads carry them (params, results, schemas, `_meta`): string keys,
 * any values; what is inside is decoded where it is read.
 */
import * as Schema from "effect/Schema"

export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

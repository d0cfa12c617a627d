/**
 * @toolgate/json-schema: pure JSON Schema algebra. Every module is a namespace.
 *
 * @since 0.1.0
 */

/** The JSON value type and guards. */
export * as JsonValue from "./JsonValue.js"

/** Cutting text for messages without splitting a surrogate pair: `clip`, `prefix`. */
export * as Text from "./Text.js"

/** The schema type, dialects, pointers, local `$ref` resolution and `upgrade`. */
export * as JsonSchema from "./JsonSchema.js"

/** Compiled Ajv validators, cached per schema, with model-readable issues. */
export * as Validator from "./Validator.js"

/** The lenient preflight: schema-directed repairs of near-miss arguments. */
export * as Coercion from "./Coercion.js"

/** `prepare`: parse, default, coerce and validate a tool call's arguments. */
export * as Arguments from "./Arguments.js"

/** Tool chaining by reference: widen a schema to accept sentinel refs, and find the refs in arguments. */
export * as RefAware from "./RefAware.js"

/** Provider schema dialects: OpenAI strict, Google, Claude via Cloud Code Assist, MCP. */
export * as Normalize from "./Normalize.js"

/** The caches of what is derived from schemas: by identity, and by canonical content with bounds. */
export * as SchemaCache from "./SchemaCache.js"

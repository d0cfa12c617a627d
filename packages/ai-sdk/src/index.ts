/**
 * @toolgate/ai-sdk: toolgate argument preparation for the Vercel AI SDK. Every module is a namespace.
 *
 * @since 0.1.0
 */

/** `jsonSchema()` with a `validate` built on `Arguments.prepare`: lenient coercion and model-readable issues. */
export * as ToolgateSchema from "./ToolgateSchema.js"

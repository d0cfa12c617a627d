/**
 * @toolgate/ai: the @effect/ai bridge. Every module is a namespace.
 *
 * @since 0.1.0
 */

/** Any @effect/ai `LanguageModel` as a toolgate `AgentProvider` (app-driven; toolgate validates and repairs calls). */
export * as AiProvider from "./AiProvider.js"

/** An @effect/ai toolkit whose calls go through `Arguments.prepare` and answer with envelopes (for @effect/ai's own tool loop). */
export * as ValidatingToolkit from "./ValidatingToolkit.js"

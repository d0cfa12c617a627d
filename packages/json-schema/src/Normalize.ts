/**
 * Provider schema dialects: the same tool schema rewritten for what each provider accepts, with every
 * change reported so a caller can log what the provider will not see. Pure and total.
 *
 * @since 0.1.0
 */
import * as Cca from "./internal/normalizeCca.js"
import * as Google from "./internal/normalizeGoogle.js"
import * as Mcp from "./internal/normalizeMcp.js"
import * as OpenAi from "./internal/normalizeOpenAi.js"
import type { Change, JsonSchema } from "./JsonSchema.js"

/** A normalized schema and what the transform changed or dropped on the way. */
export interface Normalized {
  readonly schema: JsonSchema
  readonly changes: ReadonlyArray<Change>
}

/** An OpenAI strict-mode schema: `strict` is true only when enforcement succeeded (else `schema` is the original). */
export interface Strict extends Normalized {
  readonly strict: boolean
}

/** OpenAI-style strict mode: sanitize, close every object, require every key, make optionals nullable; fail open. */
export const openAiStrict: (schema: JsonSchema) => Strict = OpenAi.openAiStrict

/** Google Gemini / Vertex: strip unsupported keywords (spilling the meaningful ones into `description`). */
export const google: (schema: JsonSchema) => Normalized = Google.google

/** Claude through Cloud Code Assist: the Google pass, then unions collapsed, a residual gate, and a per-tool fallback. */
export const cca: (schema: JsonSchema) => Normalized = Cca.cca

/** Schemas arriving from MCP servers: the light pass (no `$schema`, draft-07 upgraded, local refs inlined, `const` → `enum`). */
export const mcp: (schema: JsonSchema) => Normalized = Mcp.mcp

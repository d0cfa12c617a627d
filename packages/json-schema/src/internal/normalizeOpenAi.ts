/**
 * OpenAI-style strict mode (contract section 1): unused definitions dropped, sanitize, then enforce, then check OpenAI's size limits,
 * all on a copy. Any step that finds a node strict mode cannot describe makes the whole tool fail open:
 * the original schema comes back with `strict: false` and one change saying why, never a half-strict one.
 *
 * @internal
 */
import { isSchema, type JsonSchema } from "../JsonSchema.js"
import { dropUnused } from "./normalizeOpenAiDefs.js"
import { type Changes, maxNodes, NotStrict, treeSize } from "./normalizeOpenAiNode.js"
import { enforce } from "./normalizeOpenAiEnforce.js"
import { check } from "./normalizeOpenAiLimits.js"
import { sanitize } from "./normalizeOpenAiSanitize.js"

/** The outcome of the strict transform (the shape `Normalize.Strict` names). */
export interface Result {
  readonly strict: boolean
  readonly schema: JsonSchema
  readonly changes: ReadonlyArray<{ readonly path: string; readonly change: string }>
}

/** OpenAI strict mode for one tool's parameters; `strict: false` returns the input itself, untouched. */
export const openAiStrict = (schema: JsonSchema): Result => {
  try {
    if (!isSchema(schema) || treeSize(schema) === undefined) {
      return failOpen(schema, new NotStrict("", `is not a JSON schema (plain JSON, at most ${maxNodes} values)`))
    }
    const changes: Changes = []
    // unused definitions go first: one strict mode cannot describe would otherwise turn it off for the tool
    const strict = enforce(sanitize(dropUnused(schema, changes), changes), changes)
    const broken = check(strict)
    return broken === undefined ? { strict: true, schema: strict, changes } : failOpen(schema, broken)
  } catch (e) {
    if (e instanceof NotStrict) return failOpen(schema, e)
    if (e instanceof RangeError) return failOpen(schema, new NotStrict("", "nests too deeply to be walked"))
    return failOpen(schema, new NotStrict("", "could not be read (a property threw)"))
  }
}

const failOpen = (schema: JsonSchema, why: NotStrict): Result => ({
  strict: false,
  schema,
  changes: [{
    path: why.path,
    change: `strict mode is off for this tool: ${why.path === "" ? "the schema" : `\`${why.path}\``} ${why.reason}`
  }]
})


/**
 * The two checks a CCA schema must pass before it is sent (contract 3.5 and 3.6): the residual
 * incompatibility gate and Ajv's 2020-12 meta-schema.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import { metaError } from "./ajvMeta.js"
import { children } from "./keywords.js"
import { has, isPlain } from "./normalizeGoogleWalk.js"
import * as P from "./pointer.js"

/** What is left that CCA rejects: a `type` list, `type: "null"`, `nullable`, `anyOf`/`oneOf`/`allOf` (first few). */
export const residual = (schema: JsonSchema): ReadonlyArray<string> => {
  const found: Array<string> = []
  const stack: Array<{ readonly s: unknown; readonly tokens: ReadonlyArray<string> }> = [{ s: schema, tokens: [] }]
  while (stack.length > 0 && found.length < 5) {
    const { s, tokens } = stack.pop()!
    if (!isPlain(s)) continue
    const at = P.format(tokens)
    if (Array.isArray(s["type"])) found.push(`a \`type\` list at ${at || "/"}`)
    if (s["type"] === "null") found.push(`\`type: "null"\` at ${at || "/"}`)
    for (const k of ["nullable", "anyOf", "oneOf", "allOf"]) if (has(s, k)) found.push(`\`${k}\` at ${at || "/"}`)
    for (const c of children(s as never)) stack.push({ s: c.schema, tokens: [...tokens, ...c.tokens] })
  }
  return found
}

/** Why Ajv's 2020-12 meta-schema rejects the schema, or `undefined` when it accepts it. */
export const metaErrors = (schema: JsonSchema): string | undefined => {
  try {
    const e = metaError(schema, "2020-12")
    return e === undefined ? undefined : `invalid 2020-12 at ${e.path || "/"}: ${e.message}`
  } catch (e) {
    return `the 2020-12 meta-schema check failed (${e instanceof Error ? e.message : String(e)})`
  }
}

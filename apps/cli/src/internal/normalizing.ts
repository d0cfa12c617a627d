/**
 * What `normalize` does once it runs: a published schema upgraded, then rewritten for one provider dialect,
 * and the result as text (loaded only by that command).
 *
 * @internal
 */
import { JsonSchema, JsonValue, Normalize } from "@toolgate/json-schema"
import type { Target } from "../Normalize.js"

/** What a run produced: the target, the normalized schema, its changes, and (openai-strict only) `strict`. */
export interface Result {
  readonly target: Target
  readonly strict?: boolean
  readonly schema: JsonSchema.JsonSchema
  readonly changes: ReadonlyArray<JsonSchema.Change>
}

/** Upgrades the published schema, then rewrites it for the target; upgrade changes come first in the list. */
export const normalize = (t: Target, published: JsonSchema.JsonSchema): Result => {
  const upgraded = JsonSchema.upgrade(published)
  const changes = (rest: ReadonlyArray<JsonSchema.Change>) => [...upgraded.changes, ...rest]
  switch (t) {
    case "openai-strict": {
      const r = Normalize.openAiStrict(upgraded.schema)
      return { target: t, strict: r.strict, schema: r.schema, changes: changes(r.changes) }
    }
    case "google":
    case "cca":
    case "mcp": {
      const r = Normalize[t](upgraded.schema)
      return { target: t, schema: r.schema, changes: changes(r.changes) }
    }
  }
}

/** Indented JSON; a schema too deep for the engine's writer (a fall-open strict run returns it as given) comes out on one line. */
const indented = (u: unknown): string => {
  try {
    return JSON.stringify(u, null, 2)
  } catch {
    return JsonValue.stringify(u) ?? "(not JSON)"
  }
}

/** The human-readable result: the target, `strict`, each change, then the schema as indented JSON. */
export const render = (r: Result): string =>
  [
    `target: ${r.target}`,
    ...(r.strict === undefined ? [] : [`strict: ${r.strict}`]),
    r.changes.length === 0 ? "changes: none" : `changes (${r.changes.length}):`,
    ...r.changes.map((c) => `  ${c.path || "/"}: ${c.change}`),
    "schema:",
    indented(r.schema)
  ].join("\n")

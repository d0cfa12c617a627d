/**
 * `toolgate normalize --target openai-strict|google|cca|mcp (SCHEMA.json | --schema-json JSON) [--json]`: a
 * tool schema as one provider dialect receives it, and every change made on the way. Exit 0 done, 2 bad input.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { JsonSchema, JsonValue, Normalize } from "@toolgate/json-schema"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { BadInput, parseJson, positional, required } from "./internal/input.js"
import { badInput, jsonLine } from "./internal/output.js"
import { json } from "./Validate.js"

/** The provider dialects the command writes. */
export type Target = "openai-strict" | "google" | "cca" | "mcp"

/** What a run produced: the target, the normalized schema, its changes, and (openai-strict only) `strict`. */
export interface Result {
  readonly target: Target
  readonly strict?: boolean
  readonly schema: JsonSchema.JsonSchema
  readonly changes: ReadonlyArray<JsonSchema.Change>
}

const target = Options.choice("target", ["openai-strict", "google", "cca", "mcp"]).pipe(
  Options.withDescription("the provider dialect: openai-strict, google (Gemini/Vertex), cca (Claude via Cloud Code Assist), mcp. Required.")
)
const schemaFile = Args.file({ name: "SCHEMA.json" }).pipe(
  Args.optional,
  Args.withDescription("the tool's parameter schema: a JSON file. Required unless --schema-json is given.")
)
const schemaJson = Options.text("schema-json").pipe(
  Options.optional,
  Options.withDescription("the tool's parameter schema as inline JSON, instead of SCHEMA.json. Default: none.")
)

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

/** The `normalize` subcommand. */
export const command = Command.make("normalize", { target, schemaFile, schemaJson, json }, (options) => {
  const args = positional([options.schemaFile])
  return Effect.gen(function*() {
    if (args.mistake !== undefined) return yield* args.mistake
    const text = yield* required("schema", { file: options.schemaFile, inline: options.schemaJson }, { file: "SCHEMA.json", inline: "--schema-json JSON" })
    const published = yield* parseJson(text.text, "schema").pipe(
      Effect.filterOrFail(JsonSchema.isSchema, () => new BadInput({ message: "The schema must be a JSON object or a boolean." }))
    )
    const result = normalize(options.target, published)
    yield* Console.log(options.json ? jsonLine({ _tag: "Normalized", exitCode: 0, ...result }) : render(result))
  }).pipe(Effect.catchTag("BadInput", badInput({ json: options.json || args.json }, 2)))
}).pipe(Command.withDescription(
    "Rewrite a tool schema for a provider dialect and list what changed. Exit 0 done, 2 bad input. " +
      "Example: toolgate normalize --target openai-strict --schema-json '{\"type\":\"dict\",\"properties\":{\"days\":{\"type\":\"integer\",\"minimum\":1}}}'"
  ))

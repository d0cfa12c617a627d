/**
 * `toolgate normalize --target openai-strict|google|cca|mcp (SCHEMA.json | --schema-json JSON) [--json]`: a
 * tool schema as one provider dialect receives it, and every change made on the way. Exit 0 done, 2 bad input.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { BadInput, parseJson, positional, required } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, jsonLine } from "./internal/output.js"
import { json } from "./Validate.js"

/** The provider dialects the command writes. */
export type Target = "openai-strict" | "google" | "cca" | "mcp"

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

/** The `normalize` subcommand. */
export const command = Command.make("normalize", { target, schemaFile, schemaJson, json }, (options) => {
  const args = positional([options.schemaFile])
  return Effect.gen(function*() {
    if (args.mistake !== undefined) return yield* args.mistake
    const text = yield* required("schema", { file: options.schemaFile, inline: options.schemaJson }, { file: "SCHEMA.json", inline: "--schema-json JSON" })
    const published = yield* parseJson(text.text, "schema").pipe(
      Effect.filterOrFail(JsonSchema.isSchema, () => new BadInput({ message: "The schema must be a JSON object or a boolean." }))
    )
    const { normalize, render } = yield* Lazy.normalizing
    const result = normalize(options.target, published)
    yield* Console.log(options.json ? jsonLine({ _tag: "Normalized", exitCode: 0, ...result }) : render(result))
  }).pipe(Effect.catchTag("BadInput", badInput({ json: options.json || args.json }, 2)))
}).pipe(Command.withDescription(
    "Rewrite a tool schema for a provider dialect and list what changed. Exit 0 done, 2 bad input. " +
      "Example: toolgate normalize --target openai-strict --schema-json '{\"type\":\"dict\",\"properties\":{\"days\":{\"type\":\"integer\",\"minimum\":1}}}'"
  ))

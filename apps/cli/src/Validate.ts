/**
 * `toolgate validate --schema S --args A [--policy strict|lenient] [--json]`: layer 2 on one tool call.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliExit } from "./CliExit.js"
import { parseJson, textOf } from "./internal/input.js"
import * as Outcome from "./Outcome.js"
import * as Render from "./Render.js"

/** `--policy`: lenient coercion then validation (the default), or validation only. */
export const policy = Options.choice("policy", ["lenient", "strict"]).pipe(
  Options.withDefault("lenient" as const),
  Options.withDescription("lenient: repair near-miss arguments, then validate; strict: validate only")
)

/** `--json`: print JSON instead of a trace. */
export const json = Options.boolean("json").pipe(Options.withDescription("print one JSON object per result"))

const schema = Options.text("schema").pipe(
  Options.withDescription("the tool's parameter schema: inline JSON or a JSON file")
)
const args = Options.text("args").pipe(
  Options.withDescription("the model's arguments: inline JSON text (as the model streamed it) or a file")
)

/** The `validate` subcommand. Exit 0 valid, 1 invalid, 2 bad input. */
export const command = Command.make("validate", { schema, args, policy, json }, (options) =>
  Effect.gen(function*() {
    const schemaValue = yield* textOf(options.schema, "schema").pipe(
      Effect.flatMap((text) => parseJson(text, "schema"))
    )
    const raw = yield* textOf(options.args, "arguments")
    const outcome = Outcome.decide({ schema: schemaValue, args: raw, policy: options.policy })
    yield* Console.log(options.json ? Render.json(outcome) : Render.text(outcome, options.policy))
    const code = Outcome.exitCode(outcome)
    if (code !== 0) return yield* new CliExit({ code })
  })).pipe(Command.withDescription("Validate (and leniently repair) a tool call's arguments against its schema. " +
      "Exit 0 valid, 1 invalid, 2 bad input. " +
      "Example: toolgate validate --schema '{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}' --args '{\"n\":\"15\"}'"))

/**
 * `toolgate validate (--schema FILE | --schema-json JSON) (--args FILE | --args-json TEXT) [--policy
 * strict|lenient] [--json]`: layer 2 on one tool call. Exit 0 valid, 1 invalid, 2 bad input.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliExit } from "./CliExit.js"
import { fileOrInline, flags, parseJson, required } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput } from "./internal/output.js"

/** `--policy`: lenient coercion then validation (the default), or validation only. */
export const policy = Options.choice("policy", ["lenient", "strict"]).pipe(
  Options.withDefault("lenient" as const),
  Options.withDescription("lenient: repair near-miss arguments, then validate; strict: validate only. Default: lenient.")
)

/** `--json`: print JSON instead of a trace. */
export const json = Options.boolean("json").pipe(
  Options.withDescription("print one JSON object per result (a _tag-ed outcome with its exitCode), bad input included. Default: off (text).")
)

const schema = fileOrInline("schema", "the tool's parameter schema", "Required: --schema or --schema-json.")
const args = fileOrInline(
  "args",
  "the model's arguments",
  "Required: --args or --args-json.",
  "inline text, exactly as the model streamed it (it may be broken JSON)"
)

/** The `validate` subcommand. Exit 0 valid, 1 invalid, 2 bad input. */
export const command = Command.make("validate", { schema, args, policy, json }, (options) =>
  Effect.gen(function*() {
    const schemaText = yield* required("schema", options.schema, flags("schema"))
    const schemaValue = yield* parseJson(schemaText.text, "schema")
    const raw = yield* required("arguments", options.args, flags("args"))
    const [Outcome, Render] = yield* Lazy.outcome
    const outcome = Outcome.decide({ schema: schemaValue, args: raw.text, policy: options.policy })
    yield* Console.log(options.json ? Render.json(outcome) : Render.text(outcome, options.policy))
    const code = Outcome.exitCode(outcome)
    if (code !== 0) return yield* new CliExit({ code })
  }).pipe(Effect.catchTag("BadInput", badInput(options, 2)))).pipe(Command.withDescription(
    "Validate (and leniently repair) a tool call's arguments against its schema. " +
      "Exit 0 valid, 1 invalid, 2 bad input. " +
      "Example: toolgate validate --schema-json '{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}' --args-json '{\"n\":\"15\"}'"
  ))

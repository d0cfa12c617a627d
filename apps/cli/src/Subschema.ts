/**
 * `toolgate subschema [CLOUD.json] [LOCAL.json] [--cloud-json JSON] [--local-json JSON] [--json]`: does every
 * value the cloud schema accepts pass the local one? Each side is a file (positional, in order) or inline
 * JSON (its own option). Exit 0 proven, 1 drift (with a witness), 2 unsupported (fail closed), 3 bad input.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type * as Subschema from "@toolgate/subschema/Subschema"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliExit } from "./CliExit.js"
import { BadInput, parseJson, positional, readFile } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, jsonLine } from "./internal/output.js"
import { json } from "./Validate.js"

const files = Args.all([
  Args.file({ name: "CLOUD.json" }).pipe(Args.optional, Args.withDescription("the cloud (backend) schema's JSON file. Required unless --cloud-json is given.")),
  Args.file({ name: "LOCAL.json" }).pipe(Args.optional, Args.withDescription("the local (executor) schema's JSON file. Required unless --local-json is given."))
])
const cloudJson = Options.text("cloud-json").pipe(
  Options.optional,
  Options.withDescription("the cloud schema as inline JSON, instead of CLOUD.json (the only file given is then LOCAL.json). Default: none.")
)
const localJson = Options.text("local-json").pipe(
  Options.optional,
  Options.withDescription("the local schema as inline JSON, instead of LOCAL.json. Default: none.")
)

/** The exit code for bad input: 3, since 2 is a verdict (unsupported). */
export const badInputCode = 3

/** The exit code of a verdict. */
export const exitCode = (verdict: Subschema.Verdict): 0 | 1 | 2 =>
  verdict._tag === "Subtype" ? 0 : verdict._tag === "Drift" ? 1 : 2

/** The human-readable verdict. */
export const render = (verdict: Subschema.Verdict): string => {
  switch (verdict._tag) {
    case "Subtype":
      return "✔ subtype: every value the cloud schema accepts, the local schema accepts."
    case "Drift":
      return [
        "✘ drift: the cloud schema accepts values the local schema rejects.",
        ...verdict.reasons.map((r) => `  - ${r.message} (cloud ${r.cloudPath || "/"}, local ${r.localPath || "/"})`),
        `  witness (accepted by the cloud, rejected locally): ${JSON.stringify(verdict.witness)}`
      ].join("\n")
    case "Unsupported":
      return `? unsupported: cannot prove or refute it: ${verdict.construct} at ${verdict.path || "/"} (fail closed).`
  }
}

/** The machine-readable verdict: its `_tag`, its exit code, then its fields. */
export const renderJson = (verdict: Subschema.Verdict): string => {
  const { _tag, ...fields } = verdict
  return jsonLine({ _tag, exitCode: exitCode(verdict), ...fields })
}

/**
 * One side's schema: its inline JSON, or else the next file given; upgraded as tools publish schemas, keywords
 * beside a draft-07 `$ref` read as `refSiblings` says (the cloud's ignored, the broadest reading; the local's applied).
 */
const side = (what: string, inline: Option.Option<string>, file: string | undefined, hint: string, refSiblings: "apply" | "ignore") =>
  Effect.gen(function*() {
    const text = Option.isSome(inline)
      ? inline.value
      : file === undefined
      ? yield* new BadInput({ message: `Give the ${what}: ${hint}.` })
      : yield* readFile(file, what)
    const value = yield* parseJson(text, what)
    if (!JsonSchema.isSchema(value)) return yield* new BadInput({ message: `The ${what} must be a JSON object or a boolean.` })
    return JsonSchema.upgrade(value, { refSiblings }).schema
  })

/** The `subschema` subcommand. */
export const command = Command.make("subschema", { files, cloudJson, localJson, json }, (options) => {
  const args = positional(options.files)
  return Effect.gen(function*() {
    if (args.mistake !== undefined) return yield* args.mistake
    const given = [...args.files]
    const cloud = yield* side("cloud schema", options.cloudJson, Option.isSome(options.cloudJson) ? undefined : given.shift(), "CLOUD.json (a file) or --cloud-json JSON", "ignore")
    const local = yield* side("local schema", options.localJson, Option.isSome(options.localJson) ? undefined : given.shift(), "LOCAL.json (a file) or --local-json JSON", "apply")
    if (given.length > 0) return yield* new BadInput({ message: `One file too many: ${given.join(", ")} (the other side is given inline).` })
    const verdict = (yield* Lazy.subschema).check(cloud, local)
    yield* Console.log(options.json ? renderJson(verdict) : render(verdict))
    const code = exitCode(verdict)
    if (code !== 0) return yield* new CliExit({ code })
  }).pipe(Effect.catchTag("BadInput", badInput({ json: options.json || args.json }, badInputCode)))
}).pipe(Command.withDescription(
    "Prove that a cloud schema is a subschema of a local one, or show a witness. " +
      "Exit 0 subtype, 1 drift, 2 unsupported, 3 bad input. " +
      "Example: toolgate subschema cloud.json local.json   (or: toolgate subschema --cloud-json '{\"type\":\"integer\"}' --local-json '{\"type\":\"number\"}')"
  ))

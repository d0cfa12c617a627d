/**
 * `toolgate subschema CLOUD.json LOCAL.json [--json]`: does every value the cloud schema accepts pass the
 * local one? Exit 0 proven, 1 drift (with a witness), 2 unsupported (fail closed), 3 bad input.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { JsonSchema, Subschema } from "@toolgate/json-schema"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliExit } from "./CliExit.js"
import { BadInput, parseJson, textOf } from "./internal/input.js"
import { json } from "./Validate.js"

const cloud = Args.text({ name: "CLOUD" }).pipe(Args.withDescription("the cloud (backend) schema: a JSON file or inline JSON"))
const local = Args.text({ name: "LOCAL" }).pipe(Args.withDescription("the local (executor) schema: a JSON file or inline JSON"))

const schemaOf = (value: string, what: string) =>
  textOf(value, what).pipe(
    Effect.flatMap((text) => parseJson(text, what)),
    Effect.filterOrFail(JsonSchema.isSchema, () => new BadInput({ message: `The ${what} must be a JSON object or a boolean.` })),
    Effect.map((schema) => JsonSchema.upgrade(schema).schema)
  )

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

/** The `subschema` subcommand. */
export const command = Command.make("subschema", { cloud, local, json }, (options) =>
  Effect.gen(function*() {
    const cloudSchema = yield* schemaOf(options.cloud, "cloud schema")
    const localSchema = yield* schemaOf(options.local, "local schema")
    const verdict = Subschema.check(cloudSchema, localSchema)
    yield* Console.log(options.json ? JSON.stringify(verdict) : render(verdict))
    const code = exitCode(verdict)
    if (code !== 0) return yield* new CliExit({ code })
  }).pipe(
    Effect.catchTag("BadInput", (e) =>
      Console.error(`toolgate: ${e.message}`).pipe(Effect.zipRight(new CliExit({ code: 3 }))))
  )).pipe(Command.withDescription("Prove that a cloud schema is a subschema of a local one, or show a witness. " +
      "Exit 0 subtype, 1 drift, 2 unsupported, 3 bad input. Example: toolgate subschema cloud.json local.json"))

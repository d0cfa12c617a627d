/**
 * The `toolgate` command: its subcommands, wired once.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Check from "./Check.js"
import * as Demo from "./Demo.js"
import * as Examples from "./Examples.js"
import * as Normalize from "./Normalize.js"
import * as Serve from "./Serve.js"
import * as Subschema from "./Subschema.js"
import * as Validate from "./Validate.js"

/** The root command. */
export const command = Command.make("toolgate").pipe(
  Command.withDescription(
    "Tool-call contracts: the demo (npm start), the drift gate for CI (check), the reference relay (serve), " +
      "and the algebra one schema at a time (validate, subschema, normalize, examples)."
  ),
  Command.withSubcommands([
    Demo.command,
    Check.command,
    Serve.command,
    Validate.command,
    Subschema.command,
    Normalize.command,
    Examples.command
  ])
)

/** Runs the command line over `argv` (as `process.argv`). */
export const run = Command.run(command, { name: "toolgate", version: "0.1.0" })

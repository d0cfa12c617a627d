/**
 * The process entry point: the only place that runs effects.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Cli from "./Cli.js"
import { colorful, withColor } from "./internal/terminal.js"

const color = { stdout: colorful(process.stdout, process.env), stderr: colorful(process.stderr, process.env) }

const program = Cli.run(process.argv).pipe(
  Effect.catchTag("CliExit", (e) => Effect.fail(e.code)),
  withColor(color),
  // the runtime's log lines (`--log-level debug`) honour the same choice as the rest of the output
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ colors: color.stdout }))),
  Effect.provide(NodeContext.layer)
)

// Exit 0 on success; the command's own code when it chose one (every command maps its bad input, and
// Cli.run maps command-line mistakes, to the command's bad-input code); 130 when interrupted (Ctrl-C),
// except `serve`, which Ctrl-C ends cleanly (0); 70 (EX_SOFTWARE) for a defect.
const serving = Cli.subcommandOf(process.argv.slice(2)) === "serve"
NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) return onExit(0)
    // Ctrl-C (SIGINT/SIGTERM) is how `serve` ends: a clean shutdown, not a failure.
    if (Cause.isInterruptedOnly(exit.cause)) return onExit(serving ? 0 : 130)
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) return onExit(typeof failure.value === "number" ? failure.value : 2)
    process.stderr.write(Cause.pretty(exit.cause) + "\n")
    onExit(70)
  }
})

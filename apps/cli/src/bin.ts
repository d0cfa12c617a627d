/**
 * The process entry point: the only place that runs effects.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Cli from "./Cli.js"

const program = Cli.run(process.argv).pipe(
  Effect.catchTag("BadInput", (e) => Console.error(`toolgate: ${e.message}`).pipe(Effect.zipRight(Effect.fail(2)))),
  Effect.catchTag("CliExit", (e) => Effect.fail(e.code)),
  Effect.provide(NodeContext.layer)
)

// Exit 0 on success; the command's own code when it chose one; 2 for bad command-line input (which
// @effect/cli has already explained), except where 2 is a verdict: `subschema` (bad input 3) and `check`
// (bad input 4); 130 when interrupted (Ctrl-C), except `serve`, which Ctrl-C ends cleanly (0); 70
// (EX_SOFTWARE) for a defect.
const subcommand = process.argv.slice(2).find((a) => !a.startsWith("-"))
const usage = subcommand === "subschema" ? 3 : subcommand === "check" ? 4 : 2
NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) return onExit(0)
    // Ctrl-C (SIGINT/SIGTERM) is how `serve` ends: a clean shutdown, not a failure.
    if (Cause.isInterruptedOnly(exit.cause)) return onExit(subcommand === "serve" ? 0 : 130)
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) return onExit(typeof failure.value === "number" ? failure.value : usage)
    process.stderr.write(Cause.pretty(exit.cause) + "\n")
    onExit(70)
  }
})

/**
 * `toolgate mcp …`: MCP servers. `mcp lock (--server "<command>" | --url URL [--header "Name: value"]…) [--lock FILE] [--name KEY]
 * [--scope SCOPE]` lists a live server's tools and writes their schemas into the lock (other entries kept),
 * which `toolgate check --mcp` proves a live server against. Exit 0 written, 2 the server broke the protocol
 * or a limit, 3 the server could not be started or reached, 4 bad input.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliExit } from "./CliExit.js"
import * as Lazy from "./internal/lazy.js"
import { lockOptions, serverOptions, targetOf } from "./internal/mcpTarget.js"
import { badInput, jsonLine } from "./internal/output.js"
import * as McpProxy from "./McpProxy.js"
import { json } from "./Validate.js"

/** The exit code for bad input: 4, as `check`'s. */
export const badInputCode = 4

export { defaultLock, lockOptions, serverOf, serverOptions, targetOf } from "./internal/mcpTarget.js"
export type { TargetOptions } from "./internal/mcpTarget.js"

/** `mcp lock`. */
export const lock = Command.make("lock", { ...serverOptions("server", "url"), ...lockOptions, json }, (options) =>
  Effect.gen(function*() {
    const target = yield* targetOf({ command: "server", url: "url" }, options)
    const outcome = yield* Effect.flatMap(Lazy.mcp, (run) => run.lock(target))
    const code = outcome._tag === "Locked" ? 0 : outcome._tag === "Unreachable" ? 3 : 2
    if (options.json) yield* Console.log(jsonLine({ ...outcome, exitCode: code }))
    else if (outcome._tag === "Locked") {
      const n = outcome.tools.length
      yield* Console.log([
        `${target.label}: locked ${n} tool${n === 1 ? "" : "s"} of ${outcome.server} (scope ${outcome.scope}) in ${outcome.lock}`,
        ...outcome.problems.map((p) => `  warning: ${p}`)
      ].join("\n"))
    } else yield* Console.error(`toolgate: ${outcome.detail}`)
    if (code !== 0) return yield* new CliExit({ code })
  }).pipe(Effect.catchTag("BadInput", badInput(options, badInputCode)))).pipe(Command.withDescription(
    "List a live MCP server's tools and write their schemas into the lock, under the server's name and auth scope " +
      "(other entries kept). Exit 0 written, 2 the server broke the protocol or a limit, 3 the server could not be " +
      "started or reached, 4 bad input. Example: toolgate mcp lock --server \"node server.js\""
  ))

/** The subcommands of `mcp`. */
export const subcommands = [lock, McpProxy.command] as const

/** The `mcp` command. */
export const command = Command.make("mcp").pipe(
  Command.withDescription(
    "MCP servers: lock their tool schemas (lock); toolgate check --mcp proves a live server against the lock; " +
      "a validating proxy in front of one (proxy). " +
      "Example: toolgate mcp lock --server \"node server.js\""
  ),
  Command.withSubcommands(subcommands)
)

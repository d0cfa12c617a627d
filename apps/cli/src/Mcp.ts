/**
 * `toolgate mcp …`: MCP servers. `mcp lock (--server "<command>" | --url URL [--header "Name: value"]…) [--lock FILE] [--name KEY]
 * [--scope SCOPE]` lists a live server's tools and writes their schemas into the lock (other entries kept),
 * which `toolgate check --mcp` proves a live server against. Exit 0 written, 2 the server broke the protocol
 * or a limit, 3 the server could not be started or reached, 4 bad input.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { CliExit } from "./CliExit.js"
import * as Argv from "./internal/argv.js"
import { BadInput } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import type * as McpRun from "./internal/mcpRun.js"
import { badInput, jsonLine } from "./internal/output.js"
import * as McpProxy from "./McpProxy.js"
import { json } from "./Validate.js"

/** The exit code for bad input: 4, as `check`'s. */
export const badInputCode = 4

/** The lock file unless `--lock` names another. */
export const defaultLock = "toolgate.lock.json"

/** `--lock FILE`, `--name KEY`, `--scope SCOPE` and `--timeout SECONDS`: how the lock names the server. */
export const lockOptions = {
  lock: Options.text("lock").pipe(
    Options.withDefault(defaultLock),
    Options.withDescription(`the lock file. Default: ${defaultLock}.`)
  ),
  name: Options.text("name").pipe(
    Options.optional,
    Options.withDescription("the server's key in the lock. Default: the name the server gives at initialize.")
  ),
  scope: Options.text("scope").pipe(
    Options.withDefault("default"),
    Options.withDescription("the auth scope the tools were listed under (one server can list other tools to other users). Default: default.")
  ),
  timeout: Options.integer("timeout").pipe(
    Options.withDefault(30),
    Options.withDescription("seconds (1 to 3600) to start or reach the server and to list its tools. Default: 30.")
  )
}

/** The two ways to name a server: a command line to spawn (stdio) or a Streamable HTTP URL. */
export const serverOptions = (command: string, url: string) => ({
  command: Options.text(command).pipe(
    Options.optional,
    Options.withDescription(`the server's command line, spawned without a shell and spoken to over stdio, such as "node server.js". Default: none (then --${url} is required); not together with --${url}.`)
  ),
  url: Options.text(url).pipe(
    Options.optional,
    Options.withDescription(`the server's Streamable HTTP endpoint, such as http://127.0.0.1:3000/mcp. Default: none (then --${command} is required); not together with --${command}.`)
  ),
  header: Options.text("header").pipe(
    Options.repeated,
    Options.withDescription(`"Name: value", sent on every request to --${url} (repeatable; e.g. an authorization header for the scope being locked). Default: none.`)
  )
})

/** `--header "Name: value"` values as a header record, or why one cannot be read. */
const headersOf = (given: ReadonlyArray<string>): Either.Either<Record<string, string>, string> => {
  const headers: Record<string, string> = {}
  for (const header of given) {
    const colon = header.indexOf(":")
    const name = header.slice(0, colon).trim()
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return Either.left(`--header wants "Name: value", got ${JSON.stringify(header)}`)
    headers[name.toLowerCase()] = header.slice(colon + 1).trim()
  }
  return Either.right(headers)
}

/** What the options name, decoded: the server (argv split without a shell, or a URL) and the lock entry. */
export const targetOf = (
  flags: { readonly command: string; readonly url: string },
  options: {
    readonly command: Option.Option<string>
    readonly url: Option.Option<string>
    readonly header: ReadonlyArray<string>
    readonly lock: string
    readonly name: Option.Option<string>
    readonly scope: string
    readonly timeout: number
  }
) =>
  Effect.gen(function*() {
    const entry = { lock: options.lock, name: options.name, scope: options.scope, timeout: options.timeout }
    if (!(options.timeout >= 1 && options.timeout <= 3600)) return yield* new BadInput({ message: `--timeout must be 1 to 3600 seconds, got ${options.timeout}.` })
    if (Option.isSome(options.command) && Option.isSome(options.url)) {
      return yield* new BadInput({ message: `Give the server either as a command (--${flags.command}) or a URL (--${flags.url}), not both.` })
    }
    const headers = headersOf(options.header)
    if (Either.isLeft(headers)) return yield* new BadInput({ message: `${headers.left}.` })
    if (Option.isSome(options.url)) {
      const url = options.url.value
      if (!(yield* Lazy.decode).isHttpUrl(url)) return yield* new BadInput({ message: `--${flags.url} must be an http(s) URL, got ${JSON.stringify(url)}.` })
      return { ...entry, server: { _tag: "StreamableHttp", url, headers: headers.right }, label: url } satisfies McpRun.Target
    }
    if (options.header.length > 0) return yield* new BadInput({ message: `--header goes with --${flags.url}, not --${flags.command}.` })
    if (Option.isNone(options.command)) return yield* new BadInput({ message: `Give the server: --${flags.command} "<command>" or --${flags.url} URL.` })
    const words = Argv.split(options.command.value)
    if (Either.isLeft(words)) return yield* new BadInput({ message: `--${flags.command} cannot be read: ${words.left}.` })
    const [command, ...args] = words.right
    return { ...entry, server: { _tag: "Stdio", command: command!, args }, label: words.right.join(" ") } satisfies McpRun.Target
  })

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

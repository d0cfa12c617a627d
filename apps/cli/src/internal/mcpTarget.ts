/**
 * How the `mcp` commands (and `check --mcp`) name a server and its lock entry: the options and their decoding.
 *
 * @internal
 */
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Argv from "./argv.js"
import { BadInput } from "./input.js"
import * as Lazy from "./lazy.js"
import type * as McpRun from "./mcpRun.js"

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
    Options.withDescription("the server's key in the lock. Default: the name the server gives (at initialize or server/discover).")
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

/** The two ways to name a server (a command line to spawn over stdio, or a Streamable HTTP URL) and which MCP revisions to speak to it. */
export const serverOptions = (command: string, url: string, protocol = "protocol") => ({
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
  ),
  protocol: Options.choice(protocol, ["auto", "legacy", "modern"]).pipe(
    Options.withDefault("auto" as const),
    Options.withDescription("which MCP revisions to speak: auto (ask with server/discover, fall back to initialize), legacy (initialize only), modern (2026-07-28 only). Default: auto.")
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

/** The options that name a server and its lock entry, as `@effect/cli` hands them over. */
export interface TargetOptions {
  readonly command: Option.Option<string>
  readonly url: Option.Option<string>
  readonly header: ReadonlyArray<string>
  readonly protocol: "auto" | "legacy" | "modern"
  readonly lock: string
  readonly name: Option.Option<string>
  readonly scope: string
  readonly timeout: number
}

/** The server the options name, decoded: a command line split into argv without a shell, or a URL with its headers. */
export const serverOf = (
  flags: { readonly command: string; readonly url: string },
  options: Pick<TargetOptions, "command" | "url" | "header" | "protocol">
) =>
  Effect.gen(function*() {
    if (Option.isSome(options.command) && Option.isSome(options.url)) {
      return yield* new BadInput({ message: `Give the server either as a command (--${flags.command}) or a URL (--${flags.url}), not both.` })
    }
    const headers = headersOf(options.header)
    if (Either.isLeft(headers)) return yield* new BadInput({ message: `${headers.left}.` })
    if (Option.isSome(options.url)) {
      const url = options.url.value
      if (!(yield* Lazy.decode).isHttpUrl(url)) return yield* new BadInput({ message: `--${flags.url} must be an http(s) URL, got ${JSON.stringify(url)}.` })
      return { server: { _tag: "StreamableHttp", url, headers: headers.right }, label: url, protocol: options.protocol } satisfies Pick<McpRun.Target, "server" | "label" | "protocol">
    }
    if (options.header.length > 0) return yield* new BadInput({ message: `--header goes with --${flags.url}, not --${flags.command}.` })
    if (Option.isNone(options.command)) return yield* new BadInput({ message: `Give the server: --${flags.command} "<command>" or --${flags.url} URL.` })
    const words = Argv.split(options.command.value)
    if (Either.isLeft(words)) return yield* new BadInput({ message: `--${flags.command} cannot be read: ${words.left}.` })
    const [command, ...args] = words.right
    return { server: { _tag: "Stdio", command: command!, args }, label: words.right.join(" "), protocol: options.protocol } satisfies Pick<McpRun.Target, "server" | "label" | "protocol">
  })

/** `--timeout` checked: 1 to 3600 seconds. */
export const checkTimeout = (timeout: number) =>
  timeout >= 1 && timeout <= 3600 ? Effect.void : new BadInput({ message: `--timeout must be 1 to 3600 seconds, got ${timeout}.` })

/** What the options name, decoded: the server (argv split without a shell, or a URL) and the lock entry. */
export const targetOf = (flags: { readonly command: string; readonly url: string }, options: TargetOptions) =>
  Effect.gen(function*() {
    yield* checkTimeout(options.timeout)
    const server = yield* serverOf(flags, options)
    return { ...server, lock: options.lock, name: options.name, scope: options.scope, timeout: options.timeout } satisfies McpRun.Target
  })

/**
 * `toolgate mcp proxy (--server "<command>" | --url URL [--header "Name: value"]…) [--port N] [--dialect D] [--lock FILE [--name KEY]
 * [--scope SCOPE]] [--timeout SECONDS] [--call-timeout SECONDS]`: a validating MCP proxy in front of one server.
 * Without `--port` it speaks MCP on stdin/stdout (so an MCP client spawns it in place of the server) and
 * writes nothing else there; with `--port` it serves Streamable HTTP on 127.0.0.1 and prints where. Every
 * `tools/call` is checked against the tool's input schema first: a near-miss is coerced, an invalid call is
 * answered `isError` with the issues without reaching the server. With `--lock`, a server whose tools drifted
 * from the lock is refused at start. Exit 0 when the client closes (stdio) or on Ctrl-C, 1 drift from the
 * lock, 2 a schema the prover cannot decide or a server that broke the protocol or a limit, 3 the server could
 * not be started or reached, 4 bad input (a port in use, an unreadable lock, a server the lock does not have).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as McpProxyModule from "@toolgate/mcp/McpProxy"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliExit } from "./CliExit.js"
import { BadInput } from "./internal/input.js"
import { checkTimeout, lockOptions, serverOf, serverOptions } from "./internal/mcpTarget.js"
import { badInput } from "./internal/output.js"

/** The exit code for bad input: 4, as the other `mcp` commands'. */
export const badInputCode = 4

/** The proxy's library, loaded once the command runs (the MCP SDK, the validator, the prover). */
const proxyModule = Effect.promise(() => import("@toolgate/mcp/McpProxy"))
const lockModule = Effect.promise(() => import("@toolgate/mcp/McpLock"))

const dialects = ["none", "openai-strict", "google", "cca", "mcp"] as const

const options = {
  ...serverOptions("server", "url"),
  port: Options.integer("port").pipe(
    Options.optional,
    Options.withDescription("serve Streamable HTTP on this 127.0.0.1 port (0: any free port, printed at start). Default: stdio.")
  ),
  dialect: Options.choice("dialect", dialects).pipe(
    Options.withDefault("none" as const),
    Options.withDescription("the schema dialect tools/list answers in (none forwards the schemas as published). Default: none.")
  ),
  // unlike `mcp lock`'s, the proxy's lock is optional: without one nothing is proved at start
  lock: Options.text("lock").pipe(
    Options.optional,
    Options.withDescription("a lock file (toolgate mcp lock) the server's tools are proved against at start; drift is refused. Default: none.")
  ),
  name: lockOptions.name,
  scope: lockOptions.scope,
  timeout: lockOptions.timeout,
  callTimeout: Options.integer("call-timeout").pipe(
    Options.withDefault(60),
    Options.withDescription("seconds (1 to 3600) one request to the server may take before the call is answered as a timeout. Default: 60.")
  )
}

/** The exit code for what kept the proxy from starting. */
export const exitCode = (error: McpProxyModule.StartError | McpProxyModule.McpProxyListenError): number => {
  switch (error._tag) {
    case "SchemaDriftError":
      return 1
    case "UnsupportedCloudToolSchema":
    case "McpServerError":
    case "McpProtocolError":
    case "McpLimitExceeded":
      return 2
    case "McpUnavailable":
    case "McpTimeout":
      return 3
    default:
      return badInputCode
  }
}

/** `mcp proxy`. */
export const command = Command.make("proxy", options, (options) =>
  Effect.gen(function*() {
    if (!(options.callTimeout >= 1 && options.callTimeout <= 3600)) {
      return yield* new BadInput({ message: `--call-timeout must be 1 to 3600 seconds, got ${options.callTimeout}.` })
    }
    if (Option.isSome(options.port) && !(Number.isSafeInteger(options.port.value) && options.port.value >= 0 && options.port.value <= 65_535)) {
      return yield* new BadInput({ message: `--port must be 0 to 65535, got ${options.port.value}.` })
    }
    yield* checkTimeout(options.timeout)
    const target = yield* serverOf({ command: "server", url: "url" }, options)
    const lockFile = options.lock
    const lock = Option.isNone(lockFile)
      ? undefined
      : yield* Effect.flatMap(lockModule, (McpLock) => McpLock.read(lockFile.value)).pipe(
        Effect.mapError((e) => new BadInput({ message: e.message }))
      )
    const McpProxy = yield* proxyModule
    const proxyOptions: McpProxyModule.Options = {
      server: target.server,
      protocol: target.protocol,
      dialect: options.dialect,
      connectTimeout: options.timeout * 1000,
      callTimeout: options.callTimeout * 1000,
      ...(lock === undefined ? {} : { lock: { file: lock, scope: options.scope, ...(Option.isSome(options.name) ? { server: options.name.value } : {}) } })
    }
    const port = options.port
    const served: Effect.Effect<void, McpProxyModule.StartError | McpProxyModule.McpProxyListenError> = Option.isNone(port)
      ? McpProxy.serveStdio(proxyOptions)
      : Effect.scoped(Effect.gen(function*() {
        const listening = yield* McpProxy.serveHttp(proxyOptions, { port: port.value })
        yield* Console.log(`toolgate mcp proxy listening on ${listening.url} (server: ${target.label}; dialect: ${options.dialect})`)
        return yield* Effect.never
      }))
    yield* served.pipe(Effect.catchAll((error): Effect.Effect<never, BadInput | CliExit> =>
      error._tag === "InvalidOptions"
        ? new BadInput({ message: error.message })
        : Effect.zipRight(Console.error(`toolgate: ${error.message}`), new CliExit({ code: exitCode(error) }))
    ))
  }).pipe(Effect.catchTag("BadInput", badInput({ json: false }, badInputCode)))).pipe(Command.withDescription(
  "Run a validating MCP proxy in front of one server: over stdio (spawn it in place of the server) or, with --port, " +
    "Streamable HTTP on 127.0.0.1. Every tools/call is checked against the tool's input schema first: near-misses are " +
    "coerced, invalid calls answered isError without reaching the server; a call repeated under the same " +
    "dev.toolgate/idempotency-key in _meta is answered from the proxy's journal. Exit 0 closed, 1 drift from --lock, " +
    "2 an undecidable schema or a broken server, 3 the server could not be reached, 4 bad input. " +
    "Example: toolgate mcp proxy --server \"node server.js\" --dialect openai-strict"
))

/**
 * `toolgate serve [--port N] [--profile FILE] [--scenario FILE]`: runs the reference relay on loopback
 * until interrupted (Ctrl-C: a clean shutdown, exit 0). Without files it serves the demo: every demo
 * scenario under `/scenarios/<name>` and the first one at the root; a profile or scenario file replaces
 * what the root serves. One line says where it listens, then one line per request. A file that cannot be
 * used, a bad port or a port in use: one line on stderr, exit 2.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import { Demo, Relay } from "@toolgate/relay"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { BadInput } from "./internal/input.js"

/** The port `serve` listens on when none is given. */
export const defaultPort = 8787

/** What `serve` serves: the relay config and how the start line describes it. */
export interface Served {
  readonly config: Relay.Config
  readonly profile: string
  readonly scenario: string
}

const demoRoot = `demo "${Demo.scenarios[0]?.name ?? "root"}"`

/** A file's problem as one line (a decoder's issues may span several). */
const oneLine = (text: string): string => {
  const flat = text.replace(/\s*\n\s*/g, " ")
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat
}

/** The config: the demo's, with the root's profile and script replaced by the files given. */
export const served = (profile: Option.Option<string>, scenario: Option.Option<string>) =>
  Effect.gen(function*() {
    const loadedProfile = Option.isSome(profile) ? yield* Relay.loadProfile(profile.value) : Demo.config.profile
    const loadedScript = Option.isSome(scenario) ? yield* Relay.loadScript(scenario.value) : Demo.config.script
    return {
      config: { ...Demo.config, profile: loadedProfile, script: loadedScript },
      profile: Option.getOrElse(profile, () => demoRoot),
      scenario: Option.getOrElse(scenario, () => demoRoot)
    } satisfies Served
  }).pipe(Effect.mapError((e) => new BadInput({ message: `Cannot serve ${oneLine(e.message)}` })))

/** The start line: where the relay listens and what it serves. */
export const startLine = (url: string, what: Served): string => {
  const names = Array.from(what.config.scenarios?.keys() ?? [])
  const scenarios = names.length === 0 ? "none" : `${names.join(", ")} under /scenarios/<name>`
  return `toolgate relay listening on ${url} (profile: ${what.profile}, scenario: ${what.scenario}, scenarios: ${scenarios})`
}

/** Why the server could not listen, in one line. */
const listenError = (port: number, error: HttpServerError.ServeError): BadInput => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  if (code === "EADDRINUSE") return new BadInput({ message: `Port ${port} on 127.0.0.1 is in use; choose another with --port (0: any free port).` })
  const detail = code ?? (typeof cause?.message === "string" ? cause.message : "unknown error")
  return new BadInput({ message: `Cannot listen on 127.0.0.1:${port} (${oneLine(detail)}).` })
}

/** The relay's log lines (one per request) on stdout, plainly: `12:00:01.250 GET /v1/agent/capabilities 200 2ms`. */
const plainLogger = Logger.make(({ date, message }) => {
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  process.stdout.write(`${date.toISOString().slice(11, 23)} ${text}\n`)
})

/** Runs `effect` with the plain logger as its only logger (the runtime's pretty logger would repeat every line). */
const withPlainLog = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locally(effect, FiberRef.currentLoggers, HashSet.make<Array<Logger.Logger<unknown, any>>>(plainLogger))

const portOption = Options.integer("port").pipe(
  Options.withDefault(defaultPort),
  Options.withDescription(`the loopback port to listen on (default ${defaultPort}; 0: any free port, printed at start)`)
)
const profileOption = Options.text("profile").pipe(
  Options.optional,
  Options.withDescription("a profile JSON file served at GET /v1/agent/capabilities (may list \"faults\"); default: the demo's")
)
const scenarioOption = Options.text("scenario").pipe(
  Options.optional,
  Options.withDescription("a scenario JSON file: a script { \"turns\": [[round, …], …] } the root's turns and chat completions answer from; default: the demo's")
)

/** The `serve` subcommand. */
export const command = Command.make(
  "serve",
  { port: portOption, profile: profileOption, scenario: scenarioOption },
  (options) =>
    Effect.gen(function*() {
      const port = options.port
      if (!(Number.isSafeInteger(port) && port >= 0 && port <= 65_535)) {
        return yield* new BadInput({ message: `--port must be 0 to 65535, got ${port}.` })
      }
      const what = yield* served(options.profile, options.scenario)
      yield* Effect.scoped(Effect.gen(function*() {
        const { url } = yield* Relay.start(what.config, { port }).pipe(Effect.mapError((e) => listenError(port, e)))
        yield* Console.log(startLine(url, what))
        yield* Effect.addFinalizer(() => Console.log("toolgate relay stopped"))
        return yield* Effect.never
      }))
    }).pipe(withPlainLog)
).pipe(Command.withDescription(
  "Run the reference relay on 127.0.0.1 until Ctrl-C: capabilities, streamed turns and Chat Completions from a scripted model, " +
    "with fault switches (header x-toolgate-fault). Without files it serves the demo's scenarios under /scenarios/<name>. " +
    "Exit 2: a file that cannot be used, or the port is taken. " +
    "Example: toolgate serve --port 8787 --profile profile.json --scenario script.json, then curl -s 127.0.0.1:8787/v1/agent/capabilities"
))

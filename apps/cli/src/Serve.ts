/**
 * `toolgate serve [--port N] [--profile FILE] [--scenario FILE] [--faults] [--allowed-host NAME]… [--allowed-origin ORIGIN]… [--json]`: runs the reference relay on
 * loopback until interrupted (Ctrl-C: a clean shutdown, exit 0). Without files it serves the demo: every demo
 * scenario under `/scenarios/<name>` and the first one at the root; a profile or scenario file replaces
 * what the root serves. The fault switch headers are honoured only with `--faults` (anything on the machine
 * can reach a loopback port); a profile's `faults` apply either way. One line says where it listens and
 * whether fault headers are on, then one line per request (with `--json`, JSON objects). A file that cannot be used (a profile must decode as a `ProfileFile`), a bad port or a port in
 * use: one line on stderr, exit 2.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as Text from "@toolgate/json-schema/Text"
import * as Demo from "@toolgate/relay/Demo"
import type { Config as RelayConfig } from "@toolgate/relay/Relay"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { BadInput } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, jsonLine } from "./internal/output.js"
import { json } from "./Validate.js"

/** The port `serve` listens on when none is given. */
export const defaultPort = 8787

/** What `serve` serves: the relay config and how the start line describes it. */
export interface Served {
  readonly config: RelayConfig
  readonly profile: string
  readonly scenario: string
}

const demoRoot = `demo "${Demo.scenarios[0]?.name ?? "root"}"`

/** A file's problem as one line (a decoder's issues may span several). */
const oneLine = (text: string): string => {
  const flat = text.replace(/\s*\n\s*/g, " ")
  return Text.clip(flat, 400)
}

/**
 * What a profile file must hold: a capabilities body (`capabilities_version`, `tool_schemas` of JSON
 * Schemas), optionally with `faults`. It is served as written (unknown keys included); the schema only
 * refuses a file that is no profile at all, so `{"foo": 1}` is an error, not an old relay. An old or broken
 * relay is asked for by name: `"faults": ["predates"]` or `["malformed"]`.
 */
export const ProfileFile = Schema.Struct({
  capabilities_version: Schema.String,
  tool_schemas: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.Boolean, Schema.Record({ key: Schema.String, value: Schema.Unknown })) }),
  faults: Schema.optional(Schema.Array(Schema.String))
})

const decodeProfile = Schema.decodeUnknownEither(ProfileFile, { errors: "all" })

/** Why a value is not a profile, in one line: each issue's path and message. */
const profileIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `}${issue.message}`)
    .join("; ")

/** A profile file: read and checked by the relay (JSON, known faults), then decoded as a `ProfileFile`. */
const loadProfile = (path: string) =>
  Effect.gen(function*() {
    const Relay = yield* Lazy.relay
    const profile = yield* Relay.loadProfile(path)
    const decoded = decodeProfile(profile)
    if (decoded._tag === "Left") {
      return yield* new BadInput({ message: `Cannot serve ${path}: is not a profile { capabilities_version, tool_schemas, faults? }: ${profileIssues(decoded.left)}` })
    }
    return profile
  })

/** The config: the demo's, with the root's profile and script replaced by the files given. */
export const served = (
  profile: Option.Option<string>,
  scenario: Option.Option<string>,
  faultHeaders = false,
  allowed: { readonly hosts?: ReadonlyArray<string>; readonly origins?: ReadonlyArray<string> } = {}
) =>
  Effect.gen(function*() {
    const loadedProfile = Option.isSome(profile) ? yield* loadProfile(profile.value) : Demo.config.profile
    const loadedScript = Option.isSome(scenario) ? yield* Effect.flatMap(Lazy.relay, (Relay) => Relay.loadScript(scenario.value)) : Demo.config.script
    return {
      config: {
        ...Demo.config,
        profile: loadedProfile,
        script: loadedScript,
        faultHeaders,
        ...(allowed.hosts === undefined || allowed.hosts.length === 0 ? {} : { allowedHosts: allowed.hosts }),
        ...(allowed.origins === undefined || allowed.origins.length === 0 ? {} : { allowedOrigins: allowed.origins })
      },
      profile: Option.getOrElse(profile, () => demoRoot),
      scenario: Option.getOrElse(scenario, () => demoRoot)
    } satisfies Served
  }).pipe(Effect.mapError((e) => new BadInput({ message: oneLine(e._tag === "RelayFileError" ? `Cannot serve ${e.message}` : e.message) })))

/** Whether the served config honours the fault switch headers. */
const faultsOn = (what: Served): boolean => what.config.faultHeaders === true

/** The start line: where the relay listens, what it serves, and whether fault headers are on. */
export const startLine = (url: string, what: Served): string => {
  const names = Array.from(what.config.scenarios?.keys() ?? [])
  const scenarios = names.length === 0 ? "none" : `${names.join(", ")} under /scenarios/<name>`
  const faults = faultsOn(what) ? "on (x-toolgate-fault, x-toolgate-delay-ms)" : "off (--faults turns them on)"
  return `toolgate relay listening on ${url} (profile: ${what.profile}, scenario: ${what.scenario}, scenarios: ${scenarios}; fault headers: ${faults})`
}

/** The start line with `--json`: `{ "_tag": "Listening", url, profile, scenario, scenarios, faultHeaders }`. */
const startJson = (url: string, what: Served): string =>
  jsonLine({
    _tag: "Listening",
    url,
    profile: what.profile,
    scenario: what.scenario,
    scenarios: Array.from(what.config.scenarios?.keys() ?? []),
    faultHeaders: faultsOn(what)
  })

/** Why the server could not listen, in one line. */
const listenError = (port: number, error: HttpServerError.ServeError): BadInput => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  if (code === "EADDRINUSE") return new BadInput({ message: `Port ${port} on 127.0.0.1 is in use; choose another with --port (0: any free port).` })
  const detail = code ?? (typeof cause?.message === "string" ? cause.message : "unknown error")
  return new BadInput({ message: `Cannot listen on 127.0.0.1:${port} (${oneLine(detail)}).` })
}

/**
 * The relay's log lines (one per request) on stdout, plainly (`12:00:01.250 GET /v1/agent/capabilities 200
 * 2ms`) or, with `--json`, as `{ "_tag": "Request", "time", "line" }`.
 */
const requestLogger = (json: boolean) =>
  Logger.make(({ date, message }) => {
    const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
    const time = date.toISOString().slice(11, 23)
    process.stdout.write(`${json ? jsonLine({ _tag: "Request", time, line: text }) : `${time} ${text}`}\n`)
  })

/** Runs `effect` with the request logger as its only logger (the runtime's pretty logger would repeat every line). */
const withRequestLog = (json: boolean) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locally(effect, FiberRef.currentLoggers, HashSet.make<Array<Logger.Logger<unknown, any>>>(requestLogger(json)))

const portOption = Options.integer("port").pipe(
  Options.withDefault(defaultPort),
  Options.withDescription(`the loopback port to listen on (0: any free port, printed at start). Default: ${defaultPort}.`)
)
const profileOption = Options.file("profile").pipe(
  Options.optional,
  Options.withDescription(
    "a profile JSON file { capabilities_version, tool_schemas, faults? } served at GET /v1/agent/capabilities " +
      "(faults: predates, malformed, newer-major, slow, fail, drop, garbage, rate-limit). Default: the demo's."
  )
)
const scenarioOption = Options.file("scenario").pipe(
  Options.optional,
  Options.withDescription("a scenario JSON file: a script { \"turns\": [[round, …], …] } the root's turns and chat completions answer from. Default: the demo's.")
)

const faultsOption = Options.boolean("faults").pipe(
  Options.withDescription(
    "honour the fault switch headers x-toolgate-fault and x-toolgate-delay-ms (for testing clients). Default: off, " +
      "and a request carrying one is a 400. A profile's faults apply either way."
  )
)

const allowedHostOption = Options.text("allowed-host").pipe(
  Options.repeated,
  Options.withDescription(
    "a Host header name accepted besides localhost, 127.0.0.1 and [::1] (`name` for any port, `name:port` for one), " +
      "for a relay behind a proxy that keeps the client's Host; repeatable. Any other Host is a 403. Default: none."
  )
)
const allowedOriginOption = Options.text("allowed-origin").pipe(
  Options.repeated,
  Options.withDescription("a web origin (https://app.example:8443) whose browser requests are accepted; repeatable. Any other Origin is a 403. Default: none.")
)

/** The `serve` subcommand. */
export const command = Command.make(
  "serve",
  {
    port: portOption,
    profile: profileOption,
    scenario: scenarioOption,
    faults: faultsOption,
    allowedHost: allowedHostOption,
    allowedOrigin: allowedOriginOption,
    json
  },
  (options) =>
    Effect.gen(function*() {
      const port = options.port
      if (!(Number.isSafeInteger(port) && port >= 0 && port <= 65_535)) {
        return yield* new BadInput({ message: `--port must be 0 to 65535, got ${port}.` })
      }
      const what = yield* served(options.profile, options.scenario, options.faults, { hosts: options.allowedHost, origins: options.allowedOrigin })
      yield* Effect.scoped(Effect.gen(function*() {
        const Relay = yield* Lazy.relay
        const { url } = yield* Relay.start(what.config, { port }).pipe(Effect.mapError((e) => listenError(port, e)))
        yield* Console.log(options.json ? startJson(url, what) : startLine(url, what))
        yield* Effect.addFinalizer(() => Console.log(options.json ? jsonLine({ _tag: "Stopped" }) : "toolgate relay stopped"))
        return yield* Effect.never
      }))
    }).pipe(withRequestLog(options.json), Effect.catchTag("BadInput", badInput(options, 2)))
).pipe(Command.withDescription(
  "Run the reference relay on 127.0.0.1 until Ctrl-C: capabilities, streamed turns and Chat Completions from a scripted model, " +
    "with fault switches (profile faults; header x-toolgate-fault only with --faults). Without files it serves the demo's scenarios under /scenarios/<name>. " +
    "Exit 2: a file that cannot be used, or the port is taken. " +
    "Example: toolgate serve --port 8787 --profile profile.json --scenario script.json --faults, then curl -s 127.0.0.1:8787/v1/agent/capabilities"
))

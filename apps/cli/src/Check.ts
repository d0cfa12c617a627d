/**
 * `toolgate check (--tools FILE | --tools-json JSON) (--relay URL | --capabilities FILE | --capabilities-json
 * JSON) [--json]`: the drift gate for CI. Every tool the relay exports is proved against the local schema
 * (`cloud ⊑ local`). Exit 0 all proven, 1 drift (or a cloud tool the app cannot execute), 2 unsupported or
 * a broken capabilities envelope, 3 the relay is unreachable or predates the export, 4 bad input (a local
 * keyword one misspelling from a keyword the validator knows, such as `propertes`, is bad input; other
 * keywords and formats the validator does not enforce are the report's warnings).
 * `toolgate check (--mcp "<command>" | --mcp-url URL) [--lock FILE] [--name KEY] [--scope SCOPE]` proves a
 * live MCP server against its lock entry instead, with the same report, `--json` and exit codes (3 when the
 * server cannot be started or reached).
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
import { BadInput, fileOrInline, flags, type Given, given, parseJson, required } from "./internal/input.js"
import { badInput } from "./internal/output.js"
import * as Lazy from "./internal/lazy.js"
import * as ToolsFile from "./internal/toolsFile.js"
import * as Mcp from "./Mcp.js"
import { json } from "./Validate.js"

/** The exit code for bad input: 4, since 2 and 3 are verdicts. */
export const badInputCode = 4

const toolsOption = fileOrInline(
  "tools",
  "the app's tools (tool name → parameter schema, or an MCP tools/list result)",
  "Required: --tools or --tools-json."
)
const capabilitiesOption = fileOrInline(
  "capabilities",
  "a saved capabilities response",
  "Default: none (then --relay is required); not together with --relay."
)
const relayOption = Options.text("relay").pipe(
  Options.optional,
  Options.withDescription(
    // `RelayProfileClient.path`, written out so reading a command line loads no library (a test pins it)
    "the relay's base URL, such as http://127.0.0.1:8787 (check probes its GET /v1/agent/capabilities). " +
      "Default: none (then --capabilities or --capabilities-json is required)."
  )
)
const timeoutOption = Options.integer("timeout").pipe(
  Options.withDefault(10),
  Options.withDescription("seconds (1 to 3600) to wait for the relay before calling it unreachable. Default: 10.")
)

/** Where the capabilities come from: a relay's base URL, or a saved response. */
export type Source =
  | { readonly _tag: "Relay"; readonly url: string; readonly timeout: number }
  | { readonly _tag: "Saved"; readonly text: string; readonly origin: string }

/** Where the capabilities come from: exactly one of `--relay`, `--capabilities` and `--capabilities-json`. */
const sourceOf = (options: { readonly relay: Option.Option<string>; readonly capabilities: Given; readonly timeout: number }) =>
  Effect.gen(function*() {
    const saved = yield* given("capabilities response", options.capabilities, flags("capabilities"))
    if (Option.isSome(options.relay) && Option.isSome(saved)) {
      return yield* new BadInput({ message: "Give either --relay or a saved capabilities response, not both." })
    }
    if (Option.isSome(saved)) return { _tag: "Saved", ...saved.value } satisfies Source
    if (Option.isNone(options.relay)) {
      return yield* new BadInput({ message: "Give the relay (--relay URL) or a saved capabilities response (--capabilities FILE or --capabilities-json JSON)." })
    }
    const timeout = options.timeout
    if (!(timeout >= 1 && timeout <= 3600)) return yield* new BadInput({ message: `--timeout must be 1 to 3600 seconds, got ${timeout}.` })
    const url = options.relay.value
    if (!(yield* Lazy.decode).isHttpUrl(url)) return yield* new BadInput({ message: `--relay must be an http(s) URL, got ${JSON.stringify(url)}.` })
    return { _tag: "Relay", url, timeout } satisfies Source
  })

/** The local tools: the tools file (or inline JSON) read, each schema upgraded, none lossily. */
const localTools = (tools: Given) =>
  required("tools", tools, flags("tools")).pipe(
    Effect.flatMap((text) => parseJson(text.text, "tools file")),
    Effect.flatMap((u) => Either.mapLeft(ToolsFile.read(u), (message) => new BadInput({ message: `The tools cannot be used: ${message}.` })))
  )

const mcpOptions = { ...Mcp.serverOptions("mcp", "mcp-url", "mcp-protocol"), lock: Mcp.lockOptions.lock, name: Mcp.lockOptions.name, scope: Mcp.lockOptions.scope }

/** `check --mcp`: the live server proved against its lock entry; the same report, exit codes and `--json`. */
const checkMcp = (options: {
  readonly mcp: Omit<Mcp.TargetOptions, "timeout">
  readonly tools: Given
  readonly relay: Option.Option<string>
  readonly capabilities: Given
  readonly timeout: number
  readonly json: boolean
}) =>
  Effect.gen(function*() {
    const others = [Option.isSome(options.relay), ...[options.tools, options.capabilities].map((g) => Option.isSome(g.file) || Option.isSome(g.inline))]
    if (others.some(Boolean)) return yield* new BadInput({ message: "--mcp and --mcp-url check against the lock: not together with --tools, --relay or --capabilities." })
    const target = yield* Mcp.targetOf({ command: "mcp", url: "mcp-url" }, { ...options.mcp, timeout: options.timeout })
    const run = yield* Lazy.mcp
    const result = yield* run.check(target)
    const CheckReport = yield* run.report
    const code = CheckReport.exitCode(result)
    yield* Console.log(options.json ? CheckReport.json(result, target.label) : CheckReport.text(result, target.label))
    if (code !== 0) return yield* new CliExit({ code })
  })

/** The `check` subcommand. */
export const command = Command.make(
  "check",
  { tools: toolsOption, relay: relayOption, capabilities: capabilitiesOption, timeout: timeoutOption, mcp: Options.all(mcpOptions), json },
  (options) =>
    Effect.gen(function*() {
      if (Option.isSome(options.mcp.command) || Option.isSome(options.mcp.url)) return yield* checkMcp(options)
      const source = yield* sourceOf(options)
      const local = yield* localTools(options.tools)
      const { CheckKeywords, CheckReport, report } = yield* Lazy.checking
      const keywords = CheckKeywords.found(local)
      if (keywords.misspelled.length > 0) return yield* new BadInput({ message: CheckKeywords.misspelledMessage(keywords.misspelled) })
      const result = yield* report(source, local, keywords.warnings)
      const code = CheckReport.exitCode(result)
      const name = source._tag === "Relay" ? source.url : source.origin
      yield* Console.log(options.json ? CheckReport.json(result, name) : CheckReport.text(result, name))
      if (code !== 0) return yield* new CliExit({ code })
    }).pipe(Effect.catchTag("BadInput", badInput(options, badInputCode)))
).pipe(Command.withDescription(
  "The drift gate for CI: prove every tool the relay exports against the app's schema. " +
    "Exit 0 all proven, 1 drift or a tool the app cannot run, 2 unsupported or broken capabilities, " +
    "3 relay unreachable or predating the export, 4 bad input. " +
    "With --mcp \"<command>\" (or --mcp-url URL): prove a live MCP server against its lock (toolgate mcp lock), same exit codes. " +
    "Example: toolgate check --tools tools.json --relay http://127.0.0.1:8787"
))

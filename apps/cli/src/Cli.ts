/**
 * The `toolgate` command: its subcommands, wired once, and the one runner that turns a command line into
 * output and an exit code (help pages, `--log-level`, command-line mistakes included).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Check from "./Check.js"
import { CliExit } from "./CliExit.js"
import * as Demo from "./Demo.js"
import * as Examples from "./Examples.js"
import * as Help from "./internal/help.js"
import * as Mcp from "./Mcp.js"
import { failureJson } from "./internal/output.js"
import { plain } from "./internal/terminal.js"
import * as Normalize from "./Normalize.js"
import * as Serve from "./Serve.js"
import * as Sessions from "./Sessions.js"
import * as Subschema from "./Subschema.js"
import * as Validate from "./Validate.js"

/** The version `--version` prints. */
export const version = "0.1.0"

const subcommands = [Demo.command, Check.command, Serve.command, Validate.command, Subschema.command, Normalize.command, Examples.command, Sessions.command, Mcp.command] as const

/** The root command. */
export const command = Command.make("toolgate").pipe(
  Command.withDescription(
    "Tool-call contracts: the demo (npm start), the drift gate for CI (check), the reference relay (serve), " +
      "the algebra one schema at a time (validate, subschema, normalize, examples), stored sessions (sessions), and MCP servers (mcp)."
  ),
  Command.withSubcommands(subcommands)
)

const descriptors: ReadonlyArray<Descriptor.Command<unknown>> = subcommands.map((c) => c.descriptor)

const names: ReadonlySet<string> = new Set(descriptors.flatMap((d) => Array.from(Descriptor.getNames(d))))

/**
 * The exit code for input a subcommand cannot use (a command-line mistake included): 2, except where 2 is a
 * verdict (`check`, `subschema`) and in `sessions`, which follows `check` (3 unreachable, 4 bad input).
 */
export const badInputCode = (subcommand: string | undefined): number =>
  subcommand === "check" ? Check.badInputCode : subcommand === "sessions" ? Sessions.badInputCode : subcommand === "subschema" ? Subschema.badInputCode : subcommand === "mcp" ? Mcp.badInputCode : 2

/**
 * The subcommand a command line names, by @effect/cli's own rule: the first argument that is a
 * subcommand's name (what comes before it belongs to the root: `--log-level debug check …` is `check`).
 */
export const subcommandOf = (args: ReadonlyArray<string>): string | undefined => args.find((arg) => names.has(arg))

/** The levels `--log-level` takes (@effect/cli's names). */
const levels: ReadonlyMap<string, LogLevel.LogLevel> = new Map([
  ["all", LogLevel.All],
  ["trace", LogLevel.Trace],
  ["debug", LogLevel.Debug],
  ["info", LogLevel.Info],
  ["warning", LogLevel.Warning],
  ["error", LogLevel.Error],
  ["fatal", LogLevel.Fatal],
  ["none", LogLevel.None]
])

/**
 * `--log-level LEVEL` (or `--log-level=LEVEL`) taken out of the arguments: @effect/cli's own handling runs
 * the command line twice and prints a mistake twice.
 */
const logLevelOf = (args: ReadonlyArray<string>): { readonly level: LogLevel.LogLevel | undefined; readonly rest: ReadonlyArray<string> } => {
  const rest: Array<string> = []
  let level: LogLevel.LogLevel | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value = arg === "--log-level" ? args[i + 1] : arg.startsWith("--log-level=") ? arg.slice("--log-level=".length) : undefined
    const known = value === undefined ? undefined : levels.get(value.toLowerCase())
    if (known === undefined) {
      rest.push(arg)
      continue
    }
    level = known
    if (arg === "--log-level") i++
  }
  return { level, rest }
}

const cli = Command.run(command, { name: "toolgate", version })

/** A command-line mistake @effect/cli has printed: with `--json`, also one object on stdout; then the exit code. */
const mistake = (subcommand: string | undefined, json: boolean) => (e: ValidationError.ValidationError) =>
  Effect.gen(function*() {
    const code = badInputCode(subcommand)
    if (json) yield* Console.log(failureJson("BadInput", code, plain(HelpDoc.toAnsiText(e.error)).trim().replace(/\s*\n\s*/g, " ")))
    return yield* new CliExit({ code })
  })

/** The commands that group subcommands of their own (`sessions list`), by name. */
const groups: ReadonlyMap<string, ReadonlyArray<Descriptor.Command<unknown>>> = new Map([
  ["sessions", Sessions.subcommands.map((c): Descriptor.Command<unknown> => c.descriptor)],
  ["mcp", Mcp.subcommands.map((c): Descriptor.Command<unknown> => c.descriptor)]
])

/** The help page for a command line: the root's, a subcommand's, or a grouped subcommand's (`sessions list --help`). */
const helpPage = (subcommand: string | undefined, rest: ReadonlyArray<string>): string => {
  const sub = descriptors.find((d) => HashSet.has(Descriptor.getNames(d), subcommand ?? ""))
  const children = groups.get(subcommand ?? "") ?? []
  const named = rest.slice(rest.indexOf(subcommand ?? "") + 1).find((arg) => children.some((c) => HashSet.has(Descriptor.getNames(c), arg)))
  const child = children.find((c) => HashSet.has(Descriptor.getNames(c), named ?? ""))
  return child === undefined
    ? Help.page("toolgate", version, command.descriptor, sub, { children })
    : Help.page("toolgate", version, command.descriptor, child, { parent: subcommand! })
}

/** Runs the command line over `argv` (as `process.argv`). */
export const run = (argv: ReadonlyArray<string>) => {
  const [runtime = "node", script = "toolgate"] = argv
  const { level, rest } = logLevelOf(argv.slice(2))
  const subcommand = subcommandOf(rest)
  // a command that only groups subcommands, given alone (`toolgate sessions`), shows its page too
  const wantsHelp = rest.length === 0 || rest.includes("--help") || rest.includes("-h") || (rest.length === 1 && groups.has(rest[0]!))
  const program = wantsHelp
    ? Console.log(helpPage(subcommand, rest))
    : cli([runtime, script, ...rest]).pipe(
      Effect.catchIf(ValidationError.isValidationError, mistake(subcommand, rest.includes("--json")))
    )
  return level === undefined ? program : program.pipe(Logger.withMinimumLogLevel(level))
}

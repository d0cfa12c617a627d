/**
 * `toolgate demo [--relay URL] [--json]`: the main job. Walks through every contract with a real
 * `AgentSession` over `CloudRelay` (one scenario over `Gemini`, on Gemini's wire) against a real relay on loopback (started in-process unless `--relay`
 * names one started by `toolgate serve`), one scenario per contract, each with a short trace, then a
 * summary table. It is also a self-test: exit 0 only when every scenario ended as expected. Each turn is
 * streamed (`AgentSession.stream`): on a terminal the model's text shows on a live line while it is written;
 * with `--json` every event of the turn is a JSON line (`{ "type": "event", "scenario", "event" }`) as it
 * happens, before the scenario's step lines.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClient from "@effect/platform/HttpClient"
import * as JsonValue from "@toolgate/json-schema/JsonValue"
import * as Demo from "@toolgate/relay/Demo"
import type { AgentSession } from "@toolgate/runtime"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { CliExit } from "./CliExit.js"
import { BadInput } from "./internal/input.js"
import type * as DemoRender from "./internal/demoRender.js"
import type * as DemoRun from "./internal/demoRun.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, failureJson } from "./internal/output.js"
import { withProgress } from "./internal/progress.js"
import { json } from "./Validate.js"

/** Exit codes: every scenario as expected, one or more not, bad input, no usable relay. */
export const exitCodes = { ok: 0, failed: 1, badInput: 2, noRelay: 3 } as const

const relayOption = Options.text("relay").pipe(
  Options.optional,
  Options.withDescription("the base URL of a relay started by `toolgate serve`, such as http://127.0.0.1:8787. Default: none (the demo starts a relay in-process).")
)

/** The system error code (ECONNREFUSED, ENOTFOUND, …) somewhere down a transport error's causes, if any. */
const causeCode = (error: unknown): string | undefined => {
  let here: unknown = error
  for (let depth = 0; depth < 6 && typeof here === "object" && here !== null; depth++) {
    const code = (here as { readonly code?: unknown }).code
    if (typeof code === "string" && code !== "") return code === "ECONNREFUSED" ? "connection refused" : code
    here = (here as { readonly cause?: unknown }).cause
  }
  return undefined
}

/** No relay can run the demo: unreachable, not serving the demo's scenarios, or the in-process one failed to start. */
class NoRelay extends Data.TaggedError("NoRelay")<{ readonly message: string }> {}

const noRelay = (message: string) => new NoRelay({ message })

/** Says why no relay can run the demo (with `--json`, also as `{ "_tag": "NoRelay", "exitCode": 3, "message" }`). */
const reportNoRelay = (options: { readonly json: boolean }) => (e: NoRelay) =>
  Effect.gen(function*() {
    yield* Console.error(`toolgate: ${e.message}`)
    if (options.json) yield* Console.log(failureJson("NoRelay", exitCodes.noRelay, e.message))
    return yield* new CliExit({ code: exitCodes.noRelay })
  })

/** Checks that `url` is a relay serving the demo's scenarios (its "matches" capabilities answer 200). */
const preflight = (url: string) =>
  Effect.gen(function*() {
    const [Relay, RelayProfileClient] = yield* Effect.all([Lazy.relay, Lazy.relayProfileClient])
    const target = `${url}${Relay.scenarioPath(Demo.scenarios[0]!.name)}${RelayProfileClient.path}`
    const answer = yield* HttpClient.get(target).pipe(
      Effect.timeout("5 seconds"),
      Effect.scoped,
      Effect.either
    )
    if (answer._tag === "Left") {
      const why = answer.left._tag === "TimeoutException" ? "no answer within 5 seconds" : causeCode(answer.left) ?? answer.left.message.split("\n")[0]
      return yield* noRelay(`cannot reach the relay at ${url} (${why}). Start one with \`toolgate serve\`, or run \`toolgate demo\` without --relay.`)
    }
    if (answer.right.status !== 200) {
      return yield* noRelay(
        `the relay at ${url} does not serve the demo scenarios (GET ${target} answered ${answer.right.status}). Start it with \`toolgate serve\`.`
      )
    }
  })

/** The relay's base URL: the one given (checked), or one started in-process for the command's scope. */
const relayUrl = (given: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isSome(given)) {
      const url = given.value.trim().replace(/\/+$/, "")
      if (!(yield* Lazy.decode).isHttpUrl(url)) return yield* new BadInput({ message: `--relay must be an http(s) URL, got ${JSON.stringify(given.value)}.` })
      yield* withProgress(`waiting for the relay at ${url}`, preflight(url))
      return { url, inProcess: false }
    }
    const Relay = yield* Lazy.relay
    const started = yield* withProgress(
      "starting the relay",
      // The relay's own warnings go to stderr, so stdout stays the trace (and valid JSON lines with --json).
      // Fault headers on, as the tests' relays have them (`toolgate serve` only with --faults).
      Relay.start({ ...Demo.config, faultHeaders: true }).pipe(
        Logger.withMinimumLogLevel(LogLevel.Warning),
        Effect.locally(FiberRef.currentLoggers, HashSet.make(Logger.prettyLogger({ stderr: true, colors: false })))
      )
    )
    return { url: started.url, inProcess: true }
  })

/** The only logger while a scenario runs: it keeps warnings (the drift gate's) for the trace and drops the rest (stdout stays the trace). */
const collecting = (sink: DemoRun.WarningSink) =>
  Logger.make(({ logLevel, message }) => {
    if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) return
    const parts = Array.isArray(message) ? message : [message]
    sink.current.push(parts.map((p) => typeof p === "string" ? p : JsonValue.stringify(p) ?? String(p)).join(" "))
  })

/**
 * What the demo shows while a scenario's turn runs: with `--json` each event as a JSON line as it happens; on a
 * terminal the text the model is writing, on one live line erased before the trace; in a pipe nothing (the
 * output stays the traces and the summary, line by line).
 */
const watcher = (json: boolean, scenario: string, Render: typeof DemoRender) => {
  if (json) return { onEvent: (event: AgentSession.TurnEvent) => Console.log(Render.eventJson(scenario, event)), done: Effect.void }
  if (process.stdout.isTTY !== true) return { onEvent: () => Effect.void, done: Effect.void }
  const line = Render.live(Render.terminalWidth(process.stdout.columns))
  const write = (text: string | undefined) => Effect.sync(() => void (text === undefined || text === "" ? undefined : process.stdout.write(text)))
  return { onEvent: (event: AgentSession.TurnEvent) => write(line.push(event)), done: Effect.suspend(() => write(line.clear())) }
}

/** Runs every scenario in order, printing each trace as it ends (and what its turn does as it happens), then the summary. */
const runAll = (options: { readonly relay: Option.Option<string>; readonly json: boolean }) =>
  Effect.gen(function*() {
    const relay = yield* relayUrl(options.relay)
    const Relay = yield* Lazy.relay
    const [Run, Render] = yield* Lazy.demo
    const total = Demo.scenarios.length
    yield* Console.log(
      options.json
        ? JSON.stringify({ type: "relay", url: relay.url, inProcess: relay.inProcess, scenarios: total })
        : `toolgate demo: ${total} scenarios against the relay at ${relay.url}${relay.inProcess ? " (started in-process)" : ""}\n`
    )
    const sink: DemoRun.WarningSink = { current: [] }
    const results: Array<DemoRun.Result> = []
    for (const [i, scenario] of Demo.scenarios.entries()) {
      const watching = watcher(options.json, scenario.name, Render)
      const result = yield* withProgress(
        `${scenario.name}: waiting for the relay`,
        Run.run(scenario, i + 1, `${relay.url}${Relay.scenarioPath(scenario.name)}`, sink, watching.onEvent)
      ).pipe(Effect.locally(FiberRef.currentLoggers, HashSet.make(collecting(sink))), Effect.ensuring(watching.done))
      results.push(result)
      yield* Console.log(options.json ? Render.scenarioJson(result).join("\n") : Render.scenarioText(result, total))
    }
    yield* Console.log(options.json ? Render.summaryJson(results, relay.url) : Render.summaryText(results))
    if (results.some((r) => !r.passed)) return yield* new CliExit({ code: exitCodes.failed })
  }).pipe(Effect.scoped, Effect.provide(Lazy.httpClient))

/** The `demo` subcommand. */
export const command = Command.make("demo", { relay: relayOption, json }, (options) =>
  runAll(options).pipe(
    Effect.catchTag("ServeError", (e) => noRelay(`cannot start the in-process relay: ${e.message}`)),
    Effect.catchTag("NoRelay", reportNoRelay(options)),
    Effect.catchTag("BadInput", badInput(options, exitCodes.badInput))
  )).pipe(Command.withDescription(
  "The main job: eleven scenarios, one per contract (drift gate proven / drifted / old relay, coercion, repair, " +
    "repair exhausted, provider event contract, tool chaining, text-routed tool calls, tool discovery past maxTools, a provider's schema dialect on Gemini's wire), " +
    "each a real session over a real relay on loopback, " +
    "with a trace and a summary table. Exit 0 every scenario as expected, 1 some not, 2 bad input, 3 relay unreachable " +
    "or not serving the demo scenarios. Example: toolgate demo   (or: toolgate serve --port 8787 & toolgate demo --relay http://127.0.0.1:8787)"
))

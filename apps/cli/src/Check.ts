/**
 * `toolgate check --tools FILE (--relay URL | --capabilities FILE) [--json]`: the drift gate for CI. Every
 * tool the relay exports is proved against the local schema (`cloud ⊑ local`). Exit 0 all proven, 1 drift
 * (or a cloud tool the app cannot execute), 2 unsupported or a broken capabilities envelope, 3 the relay is
 * unreachable or predates the export, 4 bad input.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { JsonSchema, JsonValue, Subschema } from "@toolgate/json-schema"
import { Capabilities } from "@toolgate/runtime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { CliExit } from "./CliExit.js"
import { BadInput, parseJson, textOf } from "./internal/input.js"
import * as ToolsFile from "./internal/toolsFile.js"
import { json } from "./Validate.js"

/** One cloud tool's verdict. */
export type Row =
  | { readonly tool: string; readonly verdict: "proven" }
  | { readonly tool: string; readonly verdict: "drift"; readonly reasons: ReadonlyArray<Subschema.Reason>; readonly witness: JsonValue.JsonValue }
  | { readonly tool: string; readonly verdict: "unsupported"; readonly construct: string; readonly path: string }
  | { readonly tool: string; readonly verdict: "unknown_tool" }

/** The whole check: the verdict rows, or why there are none. */
export type Report =
  | { readonly outcome: "checked"; readonly version: string; readonly rows: ReadonlyArray<Row>; readonly localOnly: ReadonlyArray<string> }
  | { readonly outcome: "predates" | "unreachable" | "contract_error"; readonly detail: string }

/** Proves every exported tool against the local tools, in the relay's order. */
export const rows = (
  exported: ReadonlyMap<string, JsonSchema.JsonSchema>,
  local: ReadonlyMap<string, JsonSchema.JsonSchema>
): ReadonlyArray<Row> =>
  Array.from(exported, ([tool, cloud]): Row => {
    const schema = local.get(tool)
    if (schema === undefined) return { tool, verdict: "unknown_tool" }
    const verdict = Subschema.check(JsonSchema.upgrade(cloud).schema, schema)
    switch (verdict._tag) {
      case "Subtype":
        return { tool, verdict: "proven" }
      case "Drift":
        return { tool, verdict: "drift", reasons: verdict.reasons, witness: verdict.witness }
      case "Unsupported":
        return { tool, verdict: "unsupported", construct: verdict.construct, path: verdict.path }
    }
  })

/** The exit code of a report: drift wins over unsupported (a proven drift is certain). */
export const exitCode = (report: Report): 0 | 1 | 2 | 3 => {
  if (report.outcome !== "checked") return report.outcome === "contract_error" ? 2 : 3
  if (report.rows.some((r) => r.verdict === "drift" || r.verdict === "unknown_tool")) return 1
  return report.rows.some((r) => r.verdict === "unsupported") ? 2 : 0
}

const clipped = (value: unknown, max = 160): string => {
  const text = JsonValue.stringify(value) ?? "(not JSON)"
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const line = (row: Row, width: number): string => {
  const name = row.tool.padEnd(width)
  switch (row.verdict) {
    case "proven":
      return `  ✔ ${name}  proven`
    case "drift":
      return [
        `  ✘ ${name}  drift: ${row.reasons.map((r) => r.message).join("; ")}`,
        `    ${" ".repeat(width)}  witness (the relay accepts it, the app rejects it): ${clipped(row.witness)}`
      ].join("\n")
    case "unsupported":
      return `  ? ${name}  unsupported: ${row.construct} at ${row.path || "/"} (cannot be proven: fail closed)`
    case "unknown_tool":
      return `  ✘ ${name}  unknown tool: the relay exports it, the app has no executor for it`
  }
}

/** The human-readable report. */
export const render = (report: Report, source: string): string => {
  switch (report.outcome) {
    case "predates":
      return `? ${source}: the relay predates the tool schema export (${report.detail}); nothing to check. Arguments are still validated at run time.`
    case "unreachable":
      return `? ${source}: the relay is unreachable (${report.detail}); nothing was checked.`
    case "contract_error":
      return `✘ ${source}: ${report.detail}`
    case "checked": {
      const width = Math.min(40, Math.max(4, ...report.rows.map((r) => r.tool.length)))
      const count = (v: Row["verdict"]) => report.rows.filter((r) => r.verdict === v).length
      return [
        `${source} (capabilities_version ${report.version}): ${report.rows.length} exported tool${report.rows.length === 1 ? "" : "s"}`,
        ...report.rows.map((r) => line(r, width)),
        ...(report.localOnly.length > 0 ? [`  local tools the relay does not export (not checked): ${report.localOnly.join(", ")}`] : []),
        `${count("proven")} proven, ${count("drift") + count("unknown_tool")} drifted, ${count("unsupported")} unsupported`
      ].join("\n")
    }
  }
}

const toolsOption = Options.text("tools").pipe(
  Options.withDescription("the app's tools: a JSON file (or inline JSON) mapping tool name → parameter schema, or an MCP tools/list result")
)
const relayOption = Options.text("relay").pipe(
  Options.optional,
  Options.withDescription("the relay's base URL; its GET /v1/agent/capabilities is probed")
)
const timeoutOption = Options.integer("timeout").pipe(
  Options.withDefault(10),
  Options.withDescription("seconds to wait for the relay before calling it unreachable (default 10)")
)
const capabilitiesOption = Options.text("capabilities").pipe(
  Options.optional,
  Options.withDescription("a capabilities response saved as a JSON file (instead of --relay)")
)

/** The capabilities, probed from the relay or read from a file, as a report over `local`. */
const report = (
  source: { readonly relay: string; readonly timeout: number } | { readonly file: string },
  local: ReadonlyMap<string, JsonSchema.JsonSchema>
) =>
  Effect.gen(function*() {
    const probe = "relay" in source
      ? yield* Effect.scoped(Effect.flatMap(
        Capabilities.make({ baseUrl: source.relay, timeout: `${source.timeout} seconds` }),
        (capabilities) => capabilities.probe()
      )).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.either)
      : yield* textOf(source.file, "capabilities").pipe(
        Effect.flatMap((text) => parseJson(text, "capabilities file")),
        Effect.map(Capabilities.fromBody)
      )
    if (Either.isLeft(probe)) return { outcome: "contract_error", detail: probe.left.message } satisfies Report
    const answer = probe.right
    switch (answer._tag) {
      case "Predates":
        return { outcome: "predates", detail: "neither capabilities_version nor tool_schemas" } satisfies Report
      case "Unreachable":
        return { outcome: "unreachable", detail: answer.cause } satisfies Report
      case "Exported":
        return {
          outcome: "checked",
          version: answer.version,
          rows: rows(answer.toolSchemas, local),
          localOnly: Array.from(local.keys()).filter((name) => !answer.toolSchemas.has(name))
        } satisfies Report
    }
  })

const isHttpUrl = (s: string): boolean => {
  try {
    return ["http:", "https:"].includes(new URL(s).protocol)
  } catch {
    return false
  }
}

/** Where the capabilities come from: exactly one of `--relay` and `--capabilities`. */
const sourceOf = (relay: Option.Option<string>, file: Option.Option<string>, timeout: number) => {
  if (Option.isSome(relay) && Option.isSome(file)) return Effect.fail(new BadInput({ message: "Give either --relay or --capabilities, not both." }))
  if (!(timeout >= 1 && timeout <= 3600)) return Effect.fail(new BadInput({ message: `--timeout must be 1 to 3600 seconds, got ${timeout}.` }))
  if (Option.isSome(relay)) {
    return isHttpUrl(relay.value)
      ? Effect.succeed({ relay: relay.value, timeout })
      : Effect.fail(new BadInput({ message: `--relay must be an http(s) URL, got ${JSON.stringify(relay.value)}.` }))
  }
  if (Option.isSome(file)) return Effect.succeed({ file: file.value })
  return Effect.fail(new BadInput({ message: "Give the relay (--relay URL) or a saved capabilities response (--capabilities FILE)." }))
}

/** The `check` subcommand. */
export const command = Command.make(
  "check",
  { tools: toolsOption, relay: relayOption, capabilities: capabilitiesOption, timeout: timeoutOption, json },
  (options) =>
    Effect.gen(function*() {
      const source = yield* sourceOf(options.relay, options.capabilities, options.timeout)
      const local = yield* textOf(options.tools, "tools").pipe(
        Effect.flatMap((text) => parseJson(text, "tools file")),
        Effect.flatMap((u) => Either.mapLeft(ToolsFile.read(u), (message) => new BadInput({ message: `The tools file cannot be used: ${message}.` })))
      )
      const result = yield* report(source, local)
      const code = exitCode(result)
      const name = "relay" in source ? source.relay : /^\s*[{[]/.test(source.file) ? "capabilities (inline)" : source.file
      yield* Console.log(options.json ? JsonValue.stringify({ source: name, exitCode: code, ...result }) ?? "{}" : render(result, name))
      if (code !== 0) return yield* new CliExit({ code })
    }).pipe(
      Effect.catchTag("BadInput", (e) => Console.error(`toolgate: ${e.message}`).pipe(Effect.zipRight(new CliExit({ code: 4 }))))
    )
).pipe(Command.withDescription(
  "The drift gate for CI: prove every tool the relay exports against the app's schema. " +
    "Exit 0 all proven, 1 drift, 2 unsupported or broken capabilities, 3 relay unreachable or predating the export, 4 bad input. " +
    "Example: toolgate check --tools tools.json --relay http://127.0.0.1:8787"
))

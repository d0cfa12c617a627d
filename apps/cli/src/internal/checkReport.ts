/**
 * What `toolgate check` found, as data, and how it reads: a table for a person, one `_tag`-ed JSON object
 * for a machine (the rows carry `Subschema.Verdict`'s tags, so `check` and `subschema` speak one family).
 *
 * @internal
 */
import { JsonValue, Text } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import { DriftGate } from "@toolgate/runtime"
import * as Either from "effect/Either"
import type { Warning } from "./checkKeywords.js"
import { jsonLine } from "./output.js"
import type * as ToolsFile from "./toolsFile.js"

/** One cloud tool's verdict: the proof's, or `UnknownTool` when the app has no executor for it (`DriftGate.verdicts`). */
export type Row = DriftGate.ToolVerdict

/** The whole check: the verdict rows, or why there are none. */
export type Report =
  | {
    readonly _tag: "Checked"
    readonly version: string
    readonly rows: ReadonlyArray<Row>
    readonly localOnly: ReadonlyArray<string>
    readonly upgrades: ReadonlyArray<ToolsFile.Upgrade>
    /** What the local schemas say that the validator will not enforce (unknown keywords and formats). */
    readonly warnings: ReadonlyArray<Warning>
    /** For `check --mcp`: the lock entry proved, and the notes (new tools, changed descriptions, names left out). */
    readonly mcp?: Mcp
  }
  | { readonly _tag: "Predates" | "Unreachable" | "ContractError"; readonly detail: string; readonly hint?: string }

/** What `check --mcp` adds to a report: the lock entry it proved and what it notes. */
export interface Mcp {
  readonly server: string
  readonly scope: string
  readonly lock: string
  /** Tools the server lists that the lock does not have (not gated). */
  readonly added: ReadonlyArray<string>
  /** Locked tools whose description changed. */
  readonly described: ReadonlyArray<string>
  /** Tool names MCP does not allow (left out). */
  readonly badNames: ReadonlyArray<string>
}

/** How many rows of each kind: unknown tools are counted apart from drifted ones. */
export const summary = (rs: ReadonlyArray<Row>) => {
  const count = (tag: Row["_tag"]) => rs.filter((r) => r._tag === tag).length
  return { proven: count("Subtype"), drifted: count("Drift"), unknown: count("UnknownTool"), unsupported: count("Unsupported") }
}

/** The exit code of a report: drift (or an unknown tool) wins over unsupported (a proven drift is certain). */
export const exitCode = (report: Report): 0 | 1 | 2 | 3 => {
  if (report._tag !== "Checked") return report._tag === "ContractError" ? 2 : 3
  return Either.match(DriftGate.fold(report.rows), { onLeft: (e) => e._tag === "SchemaDriftError" ? 1 : 2, onRight: () => 0 })
}

const clipped = (value: unknown, max = 160): string => {
  const text = JsonValue.stringify(value) ?? "(not JSON)"
  return Text.clip(text, max)
}

const relayWitness = "the relay accepts it, the app rejects it"
const mcpWitness = "the lock accepts it, the server rejects it"

/** The notes of an MCP check: tools added, descriptions changed, names left out. */
const mcpNotes = (mcp: Mcp | undefined): ReadonlyArray<string> =>
  mcp === undefined ? [] : [
    ...(mcp.added.length > 0 ? [`  note: tools the lock does not have (not checked; lock them with toolgate mcp lock): ${mcp.added.join(", ")}`] : []),
    ...mcp.described.map((t) => `  note: the description of ${t} changed`),
    ...mcp.badNames.map((t) => `  warning: ${JSON.stringify(t)} is not a tool name MCP allows; left out`)
  ]

const line = (row: Row, width: number, witness = relayWitness): string => {
  const name = row.tool.padEnd(width)
  switch (row._tag) {
    case "Subtype":
      return `  ✔ ${name}  proven`
    case "Drift":
      return [
        `  ✘ ${name}  drift: ${row.reasons.map(Subschema.explain).join("; ")}`,
        `    ${" ".repeat(width)}  witness (${witness}): ${clipped(row.witness)}`
      ].join("\n")
    case "Unsupported":
      return `  ? ${name}  unsupported: ${row.construct} at ${row.path || "/"} (cannot be proven: fail closed)`
    case "UnknownTool":
      return `  ✘ ${name}  unknown tool: the relay exports it, the app has no executor for it`
  }
}

/** The human-readable report. */
export const text = (report: Report, source: string): string => {
  const hint = report._tag !== "Checked" && report.hint !== undefined ? `\n  hint: ${report.hint}` : ""
  switch (report._tag) {
    case "Predates":
      return `? ${source}: the relay predates the tool schema export (${report.detail}); nothing to check. Arguments are still validated at run time.`
    case "Unreachable":
      return `? ${source}: the relay is unreachable (${report.detail}); nothing was checked.${hint}`
    case "ContractError":
      return `✘ ${source}: ${report.detail}${hint}`
    case "Checked": {
      const width = Math.min(40, Math.max(4, ...report.rows.map((r) => r.tool.length)))
      const s = summary(report.rows)
      const n = report.rows.length
      const head = report.mcp === undefined
        ? `${source} (capabilities_version ${report.version}): ${n} exported tool${n === 1 ? "" : "s"}`
        : `${source} (server ${report.mcp.server} ${report.version}, scope ${report.mcp.scope}): ${n} locked tool${n === 1 ? "" : "s"} in ${report.mcp.lock}`
      return [
        head,
        ...report.rows.map((r) => line(r, width, report.mcp === undefined ? relayWitness : mcpWitness)),
        ...mcpNotes(report.mcp),
        ...(report.localOnly.length > 0 ? [`  local tools the relay does not export (not checked): ${report.localOnly.join(", ")}`] : []),
        ...upgradeNote(report.upgrades),
        ...report.warnings.map((w) => `  warning: ${w.message}`),
        `${s.proven} proven, ${s.drifted} drifted, ${s.unknown} unknown, ${s.unsupported} unsupported`
      ].join("\n")
    }
  }
}

/**
 * The upgrade notes as one line: a single change as it is, many (a file of draft-07 tools) summed up with
 * the tools they touched; the JSON report lists each.
 */
const upgradeNote = (upgrades: ReadonlyArray<ToolsFile.Upgrade>): ReadonlyArray<string> => {
  const [first] = upgrades
  if (first === undefined) return []
  if (upgrades.length === 1) return [`  note: the local schema of ${first.tool} was upgraded: ${first.path || "/"}: ${first.change}`]
  const tools = [...new Set(upgrades.map((u) => u.tool))]
  const named = tools.length <= 3 ? tools.join(", ") : `${tools.slice(0, 3).join(", ")} and ${tools.length - 3} more`
  return [
    `  note: the local schemas of ${tools.length} tool${tools.length === 1 ? "" : "s"} (${named}) were upgraded to JSON Schema 2020-12 ` +
    `(${upgrades.length} changes, such as ${first.tool} ${first.path || "/"}: ${first.change}); --json lists each`
  ]
}

/** The machine-readable report: its `_tag`, its exit code, where it came from, then its fields. */
export const json = (report: Report, source: string): string => {
  const { _tag, ...fields } = report
  return jsonLine({ _tag, exitCode: exitCode(report), source, ...(report._tag === "Checked" ? { summary: summary(report.rows) } : {}), ...fields })
}

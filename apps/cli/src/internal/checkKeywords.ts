/**
 * What the local schemas say that the validator will not enforce, read before any proof: a keyword one
 * misspelling away from a keyword that changes what validates (`propertes`) is bad input, since a proof
 * over that schema would prove a contract the executor's validator does not check; every other unknown
 * keyword or format is a warning of the report.
 *
 * @internal
 */
import { Tool } from "@toolgate/runtime"
import type * as ToolsFile from "./toolsFile.js"

/** One thing a local schema says that the validator will not enforce (the runtime's `Tool.SchemaWarning`). */
export type Warning = Tool.SchemaWarning

/** The local schemas' warnings, split into likely misspellings of keywords and the rest. */
export interface Found {
  readonly misspelled: ReadonlyArray<Warning>
  readonly warnings: ReadonlyArray<Warning>
}

/** Every local tool's warnings, in the tools' order, split by whether a keyword is a likely misspelling. */
export const found = (local: ToolsFile.Tools): Found => {
  const all = Array.from(local.schemas, ([tool, schema]) => Tool.warningsOf(tool, schema)).flat()
  return { misspelled: all.filter((w) => w.likely !== undefined), warnings: all.filter((w) => w.likely === undefined) }
}

/** The bad-input message for likely misspellings: each tool, pointer and the keyword it likely means. */
export const misspelledMessage = (misspelled: ReadonlyArray<Warning>): string =>
  "The local schemas have keywords the validator does not know, each close to one it does (fix the spelling: " +
  "a proof over them would not be a proof of what the executor checks): " +
  misspelled.map((w) => `tool \`${w.tool}\` at ${w.path}: \`${w.name}\` (did you mean \`${w.likely}\`?)`).join("; ") + "."

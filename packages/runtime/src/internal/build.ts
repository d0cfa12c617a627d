/**
 * Builders behind the success constructors, in the wire's key order.
 *
 * @internal
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import { lineCount, utf8Length } from "./text.js"

/** `n` when it is a count (a non-negative safe integer), else `fallback`: a nonsense count cannot make a result lie. */
const count = (n: number | undefined, fallback: number): number => n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : fallback

/** A success envelope in the wire's key order; an empty `warnings` list is left out. */
export const success = (result: J.JsonValue, options: ToolEnvelope.SuccessOptions = {}) => ({
  ok: true as const,
  ...(options.tool === undefined ? {} : { tool: options.tool }),
  result,
  ...(options.warnings === undefined || options.warnings.length === 0 ? {} : { warnings: options.warnings })
})

/** A listing result; `entry_count` is at least the entries given. */
export const listing = (path: string, entries: ReadonlyArray<ToolEnvelope.ListingEntry>, options: ToolEnvelope.ListingOptions = {}) => {
  const entryCount = Math.max(entries.length, count(options.entryCount, entries.length))
  return {
    kind: "listing" as const,
    path,
    entries: entries.map(({ name, path, type }) => ({ name, path, type })),
    entry_count: entryCount,
    truncated: options.truncated ?? entries.length < entryCount
  }
}

/** A file content result with its line range, total lines and UTF-8 size. */
export const file = (path: string, text: string, options: ToolEnvelope.FileOptions = {}) => {
  const startLine = Math.max(1, count(options.startLine, 1))
  const endLine = startLine + lineCount(text) - 1
  const totalLines = Math.max(endLine, count(options.totalLines, endLine))
  return {
    kind: "file" as const,
    path,
    text,
    start_line: startLine,
    end_line: Math.max(0, endLine),
    total_lines: totalLines,
    bytes: count(options.bytes, utf8Length(text)),
    truncated: options.truncated ?? (startLine > 1 || endLine < totalLines)
  }
}

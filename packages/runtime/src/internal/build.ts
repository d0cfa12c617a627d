/**
 * Builders behind the success constructors. They read their options defensively, so a caller's
 * hostile options object (throwing getters, wrong types) yields a well-formed envelope, not a throw.
 *
 * @internal
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import { safeGet, safeString } from "./json.js"
import { lineCount, utf8Length } from "./text.js"

/** `u` when it is a string, `""` for nothing, else its `String` form (or `""` when that throws). */
export const str = (u: unknown): string => typeof u === "string" ? u : u === undefined || u === null ? "" : safeString(u)

/** An option that must be a string. */
export const optString = (options: unknown, key: string): string | undefined => {
  const v = safeGet(options, key)
  return typeof v === "string" ? v : undefined
}

/** An option that must be a boolean. */
export const optBoolean = (options: unknown, key: string): boolean | undefined => {
  const v = safeGet(options, key)
  return typeof v === "boolean" ? v : undefined
}

/** An option that must be a non-negative safe integer; `fallback` otherwise. */
export const optCount = (options: unknown, key: string, fallback: number): number => {
  const v = safeGet(options, key)
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : fallback
}

/** The string warnings of the options, or `undefined` when there are none. */
const warningsOf = (options: unknown): ReadonlyArray<string> | undefined => {
  const v = safeGet(options, "warnings")
  if (!Array.isArray(v)) return undefined
  const strings = v.filter((w): w is string => typeof w === "string")
  return strings.length === 0 ? undefined : strings
}

/** A success envelope in the wire's key order. */
export const success = (result: J.JsonValue, options: unknown) => {
  const tool = optString(options, "tool")
  const warnings = warningsOf(options)
  return {
    ok: true as const,
    ...(tool === undefined ? {} : { tool }),
    result,
    ...(warnings === undefined ? {} : { warnings })
  }
}

const entryTypes: ReadonlyArray<string> = ["file", "directory", "symlink", "other"]

/** A listing result; entries are copied field by field, an unknown entry type is `"other"`. */
export const listing = (path: unknown, entries: unknown, options: unknown) => {
  const list: ReadonlyArray<unknown> = Array.isArray(entries) ? entries : []
  const copied = list.map((e) => {
    const type = safeGet(e, "type")
    return {
      name: str(safeGet(e, "name")),
      path: str(safeGet(e, "path")),
      type: (typeof type === "string" && entryTypes.includes(type) ? type : "other") as
        | "file"
        | "directory"
        | "symlink"
        | "other"
    }
  })
  const entryCount = Math.max(copied.length, optCount(options, "entryCount", copied.length))
  return {
    kind: "listing" as const,
    path: str(path),
    entries: copied,
    entry_count: entryCount,
    truncated: optBoolean(options, "truncated") ?? copied.length < entryCount
  }
}

/** A file content result with its line range, total lines and UTF-8 size. */
export const file = (path: unknown, text: unknown, options: unknown) => {
  const content = str(text)
  const startLine = Math.max(1, optCount(options, "startLine", 1))
  const endLine = startLine + lineCount(content) - 1
  const totalLines = Math.max(endLine, optCount(options, "totalLines", endLine))
  return {
    kind: "file" as const,
    path: str(path),
    text: content,
    start_line: startLine,
    end_line: Math.max(0, endLine),
    total_lines: totalLines,
    bytes: optCount(options, "bytes", utf8Length(content)),
    truncated: optBoolean(options, "truncated") ?? (startLine > 1 || endLine < totalLines)
  }
}

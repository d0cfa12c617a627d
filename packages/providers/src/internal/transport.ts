/**
 * What every HTTP provider says the same way: a clipped one-line text, a transport failure in words, and
 * whether an HTTP status may pass when tried again.
 *
 * @internal
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"

/** At most `max` characters of `text` on one line, with an ellipsis when cut. */
export const clip = (text: string, max = 300): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

/** Whether a status may succeed when tried again: a timeout, a rate limit or quota, or a server fault. */
export const statusRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500

/** A transport failure in words: the system error code when there is one (`ECONNREFUSED`, …), else the message. */
export const transportCause = (e: HttpClientError.HttpClientError): string => {
  const inner = read(e.cause, "cause")
  const code = read(inner, "code") ?? read(e.cause, "code")
  const detail = typeof code === "string" ? code : read(inner, "message") ?? read(e.cause, "message")
  return clip(`${e.reason.toLowerCase()} error${typeof detail === "string" && detail !== "" ? ` (${detail})` : ""}`, 200)
}

/** A property read that never throws (a cause is whatever the platform threw). */
const read = (u: unknown, key: string): unknown => {
  if ((typeof u !== "object" && typeof u !== "function") || u === null) return undefined
  try {
    return (u as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/**
 * How a Gemini failure reads: the server's message out of a Google error object (with the retry delay a
 * 429 suggests), whether trying again may help (429, 408 and 5xx; the canonical statuses that mean the
 * same mid-stream), how a finish reason ends a round, and a scrubber that keeps the credential out of
 * every text that reaches an error.
 *
 * @internal
 */
import { decodeErrorBody, type ErrorObject } from "./geminiWire.js"
import { clip, statusRetryable } from "./transport.js"

/** The canonical statuses Google reports that may pass when tried again. */
const retryableStatuses: ReadonlySet<string> = new Set(["RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "ABORTED"])

/** Whether an error object (mid-stream, where there is no HTTP status) may pass when tried again. */
export const errorRetryable = (error: ErrorObject): boolean =>
  typeof error.code === "number" ? statusRetryable(error.code) : retryableStatuses.has(error.status ?? "")

/** The `retryDelay` of a `google.rpc.RetryInfo` detail (`"37s"`), when the server suggested one. */
const retryDelay = (error: ErrorObject): string | undefined => {
  for (const detail of error.details ?? []) {
    if (typeof detail === "object" && detail !== null && typeof (detail as { retryDelay?: unknown }).retryDelay === "string") {
      return (detail as { retryDelay: string }).retryDelay
    }
  }
  return undefined
}

/** An error object in words: `STATUS: message`, and the suggested retry delay. */
export const errorText = (error: ErrorObject): string => {
  const delay = retryDelay(error)
  const status = error.status ?? (typeof error.code === "number" ? String(error.code) : undefined)
  const message = error.message ?? ""
  return `${status === undefined ? "" : `${status}: `}${message === "" ? "(no message)" : message}${delay === undefined ? "" : ` (retry in ${delay})`}`
}

/** The server's message in a failed response's body (its error object, else the raw text), scrubbed and clipped. */
export const bodyMessage = (body: string, scrub: (text: string) => string): string => {
  const error = decodeErrorBody(body)
  const text = clip(scrub(error === undefined ? body : errorText(error)))
  return text === "" ? "(no message)" : text
}

/** A function that replaces every occurrence of each secret in a text. */
export const scrubber = (secrets: ReadonlyArray<string>): (text: string) => string => {
  const present = secrets.filter((s) => s !== "")
  return present.length === 0 ? (text) => text : (text) => present.reduce((t, s) => t.split(s).join("[redacted]"), text)
}

/** How a finish reason ends a round: normally, or as a failure (and whether sampling again may help). */
export type Finish =
  | { readonly _tag: "Finished" }
  | { readonly _tag: "Failed"; readonly reason: string; readonly retryable: boolean }

/** Reasons a round ends as it should: the model stopped, or hit its output limit (the text so far stands). */
const normal: ReadonlySet<string> = new Set(["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"])

/** Reasons that say the model's call was unusable: another sample may well be fine. */
const resample: ReadonlySet<string> = new Set(["MALFORMED_FUNCTION_CALL"])

/** A finish reason (with the server's `finishMessage`) as the way the round ends. */
export const finish = (reason: string, message: string | undefined): Finish => {
  if (normal.has(reason)) return { _tag: "Finished" }
  const detail = message === undefined || message === "" ? "" : `: ${clip(message, 200)}`
  return { _tag: "Failed", reason: `the model stopped with ${reason}${detail}`, retryable: resample.has(reason) }
}

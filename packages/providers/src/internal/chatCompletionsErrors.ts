/**
 * How a Chat Completions failure reads: the server's own message out of an error body (OpenAI, vLLM,
 * llama.cpp and Ollama shapes), whether trying again may help, and a scrubber that keeps the API key out
 * of every text that ends up in an error (a server may echo the key it refused).
 *
 * @internal
 */
import * as Either from "effect/Either"
import { decodeErrorBody } from "./chatCompletionsChunk.js"
import { clip, statusRetryable } from "./transport.js"

/** The message of an error object or string, as a server sent it. */
export const errorText = (error: { readonly message?: string | null | undefined } | string): string =>
  typeof error === "string" ? error : (error.message ?? "")

/**
 * The server's message in a failed response's body (`error.message`, or `error`; in a body read only in
 * part, the first `"message"` string; else the raw text), scrubbed, then clipped.
 */
export const bodyMessage = (body: string, scrub: (text: string) => string): string => {
  const decoded = decodeErrorBody(body)
  const text = clip(scrub(Either.isRight(decoded) ? errorText(decoded.right.error) : (partialMessage(body) ?? body)))
  return text === "" ? "(no message)" : text
}

/** The first `"message": "…"` string of JSON text that may be cut off (the cut string's start counts). */
const partialMessage = (body: string): string | undefined => {
  const found = /"message"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(body.slice(0, 65_536))
  if (found === null) return undefined
  try {
    return JSON.parse(`"${found[1]!.replace(/\\$/, "")}"`) as string
  } catch {
    return found[1]
  }
}

/** Whether an error a server reported mid-stream may pass when tried again (a rate limit or a server fault). */
export const streamErrorRetryable = (
  error: { readonly type?: string | null | undefined; readonly code?: string | number | null | undefined } | string
): boolean => {
  if (typeof error === "string") return false
  if (typeof error.code === "number") return statusRetryable(error.code)
  const kind = `${error.type ?? ""} ${typeof error.code === "string" ? error.code : ""}`
  return /server_error|rate_limit|overloaded|unavailable|timeout/i.test(kind)
}

/** A function that replaces every occurrence of `secret` in a text (identity when there is no secret). */
export const scrubber = (secret: string | undefined): (text: string) => string =>
  secret === undefined || secret === "" ? (text) => text : (text) => text.split(secret).join("[redacted]")

/**
 * What every HTTP provider says the same way: a clipped one-line text, whether an HTTP status may pass
 * when tried again, what it means to a caller (`ProviderError.code`), and a transport failure in words
 * (`transportCause`).
 *
 * @internal
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import { Text } from "@toolgate/json-schema"
import type { Errors } from "@toolgate/runtime"

/** At most `max` characters of `text` on one line, with an ellipsis when cut. */
export const clip = (text: string, max = 300): string => {
  return Text.clip(text.replace(/\s+/g, " ").trim(), max)
}

/** Whether a status may succeed when tried again: a timeout, a rate limit or quota, or a server fault. */
export const statusRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500

/** What a status means to a caller when it can act on it (413: the request is too large; 429: rate limited). */
export const statusCode = (status: number): Errors.ProviderErrorCode | undefined =>
  status === 413 ? "request_too_large" : status === 429 ? "rate_limited" : undefined

/** `u[key]`, or `undefined` when `u` is not an object or reading it throws (a getter, a Proxy trap). */
const safeGet = (u: unknown, key: string): unknown => {
  if ((typeof u !== "object" && typeof u !== "function") || u === null) return undefined
  try {
    return (u as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/**
 * A transport failure in words, down to the system error code when there is one: `transport error
 * (ECONNREFUSED)`. The relay profile client, the relay client and every HTTP provider say it this one way.
 */
export const transportCause = (e: HttpClientError.HttpClientError): string => {
  const inner = safeGet(e.cause, "cause")
  const code = safeGet(inner, "code") ?? safeGet(e.cause, "code")
  const detail = typeof code === "string" ? code : safeGet(inner, "message") ?? safeGet(e.cause, "message")
  return clip(`${e.reason.toLowerCase()} error${typeof detail === "string" && detail !== "" ? ` (${detail})` : ""}`, 200)
}

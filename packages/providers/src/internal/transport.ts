/**
 * What every HTTP provider says the same way: a clipped one-line text, whether an HTTP status may pass
 * when tried again, and what it means to a caller (`ProviderError.code`). A transport failure in words is
 * `Errors.transportCause`, shared with the runtime.
 *
 * @internal
 */
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

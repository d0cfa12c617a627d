/**
 * @effect/ai's failures as toolgate's `ProviderError`, with `retryable` as the runtime reads it: a
 * transport failure, a body that broke off, 408, 429 and 5xx may pass when tried again; another status,
 * output the provider could not parse and input it refused will not.
 */
import type * as AiError from "@effect/ai/AiError"
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"
import { Text } from "@toolgate/json-schema"
import { Errors } from "@toolgate/runtime"

/** Builds the provider's `ProviderError`s (its name is fixed). */
export type Failure = (reason: string, retryable: boolean, cause?: string) => Errors.ProviderError

/** A `Failure` for the provider `name`. */
export const failureFor = (name: string): Failure => (reason, retryable, cause) =>
  new Errors.ProviderError({ provider: name, reason, retryable, ...(cause === undefined ? {} : { cause: clip(cause) }) })

/**
 * A model stream's end as the session can handle it: its typed failures and interruption as they are; a
 * defect (the model library's own code dying, e.g. @effect/ai's SSE reader on an event past its 10 MiB bound)
 * as a `ProviderError` that is not retried, since the same answer would break the same way.
 */
export const brokeOff = (failure: Failure, cause: Cause.Cause<Errors.ProviderError>): Cause.Cause<Errors.ProviderError> => {
  if (Cause.isInterrupted(cause) || Option.isSome(Cause.failureOption(cause))) return cause
  const defect = Cause.dieOption(cause)
  const message = Option.match(defect, { onNone: () => Cause.pretty(cause), onSome: (d) => d instanceof Error ? d.message : String(d) })
  return Cause.fail(failure("the model library failed while reading the answer", false, message))
}

/** A status the runtime may try again. */
export const statusRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500

/** One `AiError` as a `ProviderError`. */
export const fromAiError = (failure: Failure, error: AiError.AiError): Errors.ProviderError => {
  switch (error._tag) {
    case "HttpRequestError":
      return failure("the request failed", error.reason === "Transport", error.message)
    case "HttpResponseError":
      return error.reason === "StatusCode"
        ? failure(`HTTP ${error.response.status}`, statusRetryable(error.response.status), error.body ?? error.message)
        : failure("the response body broke off or could not be read", true, error.message)
    case "MalformedOutput":
      return failure("the model's output could not be read", false, error.message)
    case "MalformedInput":
      return failure("the provider refused the request", false, error.message)
    case "UnknownError":
      return failure("the provider failed", false, error.message)
  }
}

/** Error types a Messages stream may send mid-answer that pass when tried again. */
const retryableTypes = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"])

/** A stream's `error` part (Anthropic's `event: error`, `{ type, message }`) as a `ProviderError`. */
export const errorPart = (failure: Failure, error: unknown): Errors.ProviderError => {
  const type = field(error, "type")
  const message = field(error, "message")
  const retryable = type !== undefined && retryableTypes.has(type)
  return failure(`the model's stream reported an error${type === undefined ? "" : ` (${type})`}`, retryable, message ?? safeJson(error))
}

const field = (u: unknown, key: string): string | undefined => {
  if (typeof u !== "object" || u === null || !Object.hasOwn(u, key)) return undefined
  const value = (u as Record<string, unknown>)[key]
  return typeof value === "string" ? value : undefined
}

const safeJson = (u: unknown): string => {
  try {
    return JSON.stringify(u) ?? String(u)
  } catch {
    return String(u)
  }
}

/** Server texts in errors stay readable: at most 500 characters. */
const clip = (text: string): string => Text.clip(text, 500)

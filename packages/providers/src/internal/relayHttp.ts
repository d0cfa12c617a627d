/**
 * The HTTP side of `CloudRelay`: the request body, and every way a turns request can fail mapped to a
 * `ProviderError` (transport and timeouts retryable, 5xx/408/429 retryable, other statuses not; 413 and 429
 * carry their `code`; a `retry-after` in seconds leads the cause; at most 64 KiB of an error body is read).
 *
 * @internal
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { JsonValue as J, Text } from "@toolgate/json-schema"
import type { Provider } from "@toolgate/runtime"
import { Errors } from "@toolgate/runtime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as RelayWire from "../RelayWire.js"
import { statusCode, statusRetryable, transportCause } from "./transport.js"

/** The provider name in every error. */
export const name = "cloud-relay"

/** A `ProviderError` of this provider. */
export const failure = (reason: string, retryable: boolean, cause?: string, code?: Errors.ProviderErrorCode): Errors.ProviderError =>
  new Errors.ProviderError({
    provider: name,
    reason,
    retryable,
    ...(cause === undefined ? {} : { cause: Text.clip(cause, 300) }),
    ...(code === undefined ? {} : { code })
  })

const encodeTurnRequest = Schema.encodeEither(RelayWire.TurnRequest, { errors: "all" })

/**
 * The JSON body of a turns request: the conversation, the tools by NAME only, the tool choice, the system
 * prompt and sampling, within `maxBytes` counted in UTF-8 bytes of the JSON text (what the relay counts).
 * A body past it has its oldest whole turns left out (see `fit`); one whose current turn alone is too large
 * is not sent (the relay would answer 413).
 */
export const requestBody = (request: Provider.CompletionRequest, maxBytes: number): Either.Either<string, Errors.ProviderError> => {
  const tools = Array.isArray(request?.tools) ? request.tools.map((tool) => tool?.name) : request?.tools
  const encoded = encodeTurnRequest({
    messages: request?.messages,
    tools,
    toolChoice: request?.toolChoice,
    ...(request?.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    ...(request?.sampling === undefined ? {} : { sampling: request.sampling }),
    ...(request?.maxToolCallsPerTurn === undefined ? {} : { maxToolCallsPerTurn: request.maxToolCallsPerTurn })
  } as RelayWire.TurnRequest)
  if (Either.isLeft(encoded)) {
    return Either.left(failure("the request does not fit the relay's wire format", false, encoded.left.message))
  }
  return fit(encoded.right, maxBytes)
}

/**
 * The encoded request as JSON text of at most `maxBytes` UTF-8 bytes: whole turns (a `User` message and what
 * follows it up to the next; messages before the first `User` count as one) are left out, oldest first, never
 * the current turn (from the last `User` message). The session trims by its own estimate first; this is
 * where the estimate meets the bytes (text of three bytes a character, escapes), so a request never goes out
 * past the relay's limit while older turns could still make room.
 */
const fit = (encoded: RelayWire.TurnRequest, maxBytes: number): Either.Either<string, Errors.ProviderError> => {
  // The deep-safe writer: tool arguments in history may nest deeper than `JSON.stringify` recurses.
  const json = J.stringify(encoded)
  if (json === undefined) return Either.left(failure("the request is not JSON", false))
  const bytes = Buffer.byteLength(json)
  if (bytes <= maxBytes) return Either.right(json)
  const { messages } = encoded
  const sizes = messages.map((message) => Buffer.byteLength(J.stringify(message) ?? ""))
  let total = bytes
  let from = 0
  let current = messages.length - 1
  while (current > 0 && messages[current]!._tag !== "User") current--
  while (total > maxBytes && from < current) {
    let next = from + 1
    while (next < current && messages[next]!._tag !== "User") next++
    // each message left out takes its comma with it
    for (let i = from; i < next; i++) total -= sizes[i]! + 1
    from = next
  }
  if (from === 0 || total > maxBytes) return Either.left(tooLarge(`the request is ${bytes} bytes, more than the relay's ${maxBytes}`))
  const trimmed = J.stringify({ ...encoded, messages: messages.slice(from) })
  if (trimmed === undefined) return Either.left(failure("the request is not JSON", false))
  const trimmedBytes = Buffer.byteLength(trimmed)
  return trimmedBytes <= maxBytes
    ? Either.right(trimmed)
    : Either.left(tooLarge(`the request is ${trimmedBytes} bytes, more than the relay's ${maxBytes}`))
}

/** A request the relay will not take for its size: not retryable as it is; the history must shrink. */
const tooLarge = (cause: string | undefined): Errors.ProviderError =>
  failure("the request is too large for the relay (shorten the history or the current turn)", false, cause, "request_too_large")

/** The most bytes of an error body read for its message; the rest is not read (the connection is given up). */
export const maxErrorBodyBytes = 64 * 1024

/**
 * A non-2xx answer as a `ProviderError`, with the relay's own message (`{ error: { message } }`) when it sent
 * one. At most `maxErrorBodyBytes` of the body are read (the caller's `timeout` bounds the time): a relay
 * streaming a huge error body costs that much and no more.
 */
export const statusFailure = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<never, Errors.ProviderError> =>
  prefix(response, maxErrorBodyBytes).pipe(
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((text) => {
      const message = relayMessage(text)
      if (response.status === 413) return Effect.fail(tooLarge(message))
      // a rate limit's wait, when the relay says it, leads the cause (the message after it may be clipped)
      const wait = response.headers["retry-after"]
      const cause = typeof wait === "string" && /^\d{1,9}$/.test(wait.trim()) ? `retry-after: ${wait.trim()} s${message === undefined ? "" : `; ${message}`}` : message
      return Effect.fail(failure(`the relay answered HTTP ${response.status}`, statusRetryable(response.status), cause, statusCode(response.status)))
    })
  )

/** The first `max` bytes of a body as text (a character cut at the end is replaced); reading stops there. */
const prefix = (response: HttpClientResponse.HttpClientResponse, max: number): Effect.Effect<string, HttpClientError.ResponseError> =>
  response.stream.pipe(
    Stream.runFoldWhile(
      { chunks: [] as Array<Uint8Array>, size: 0 },
      (read) => read.size < max,
      (read, chunk) => {
        const piece = chunk.byteLength <= max - read.size ? chunk : chunk.subarray(0, max - read.size)
        read.chunks.push(piece)
        return { chunks: read.chunks, size: read.size + piece.byteLength }
      }
    ),
    Effect.map((read) => new TextDecoder().decode(Buffer.concat(read.chunks)))
  )

/** The message of a relay's JSON error body, else the body's first characters (`undefined` when empty). */
const relayMessage = (text: string): string | undefined => {
  try {
    const message = pick(pick(JSON.parse(text), "error"), "message")
    if (typeof message === "string") return message
  } catch {
    // Not JSON: the raw text below is the best cause there is.
  }
  return text === "" ? undefined : text
}

/**
 * A 2xx answer that is not an event stream (a proxy's HTML page, a JSON body): the same relay would answer the
 * same. Its first bytes are read into the cause, and the rest is not read (the connection is given up).
 */
export const notEventStream = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<never, Errors.ProviderError> =>
  prefix(response, 300).pipe(
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((text) => {
      const contentType = `content-type: ${response.headers["content-type"] ?? "none"}`
      return Effect.fail(failure("the relay did not answer with an event stream", false, text === "" ? contentType : `${contentType}; body: ${text}`))
    })
  )

/** Whether a content type is `text/event-stream` (parameters allowed). */
export const isEventStream = (contentType: string | undefined): boolean =>
  typeof contentType === "string" && contentType.split(";")[0]!.trim().toLowerCase() === "text/event-stream"

/** No response (refused, reset, DNS): worth trying again. */
export const transportFailure = (e: HttpClientError.RequestError): Errors.ProviderError =>
  failure("the relay could not be reached", true, transportCause(e))

/** The body broke off (the socket closed before the stream ended): worth trying again. */
export const bodyFailure = (e: HttpClientError.ResponseError): Errors.ProviderError =>
  failure("the relay's stream broke off", true, transportCause(e))

/** No answer headers within the timeout. */
export const noAnswer = (timeout: Duration.Duration): Errors.ProviderError =>
  failure(`the relay did not answer within ${Duration.format(timeout)}`, true)

/** An own property of an object, never a prototype's, never a throw (a getter may throw). */
const pick = (u: unknown, key: string): unknown => {
  try {
    return typeof u === "object" && u !== null && Object.hasOwn(u, key) ? (u as Record<string, unknown>)[key] : undefined
  } catch {
    return undefined
  }
}

/** At most `max` characters of `s`, marked when cut. */

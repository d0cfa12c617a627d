/**
 * One round trip as every streaming HTTP provider makes it: post the request body, wait for the status
 * within a time limit, turn a failed status or a JSON answer into a `ProviderError` carrying the server's
 * message, and read the event stream within the round's bounds (`boundedStream`).
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Errors } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Bounded from "./boundedStream.js"
import type { ServerSentEvent } from "./sse.js"
import { statusCode, statusRetryable, transportCause } from "./transport.js"

/** How a provider words a failure: its name on every error, its secrets scrubbed from the cause. */
export type Failure = (reason: string, retryable: boolean, cause?: string, code?: Errors.ProviderErrorCode) => Errors.ProviderError

/** The `Failure` of a provider named `provider` that scrubs its secrets with `scrub`. */
export const failureOf = (provider: string, scrub: (text: string) => string): Failure => (reason, retryable, cause, code) =>
  new Errors.ProviderError({ provider, reason, retryable, ...(cause === undefined ? {} : { cause: scrub(cause) }), ...(code === undefined ? {} : { code }) })

/** The server a provider talks to, and how it words what goes wrong there. */
export interface Server {
  readonly client: HttpClient.HttpClient
  /** The longest wait for the response's status and headers. */
  readonly timeout: Duration.Duration
  readonly bounds: Bounded.Bounds
  readonly failure: Failure
  /** The server's message in an error body, scrubbed and clipped. */
  readonly bodyMessage: (text: string) => string
  /** Why a JSON answer instead of an event stream, as the API's users would look for it. */
  readonly jsonAnswer: string
}

/** The most characters of an error body read for its message. */
const maxErrorBody = 65_536

/** A response that is not a stream (a non-2xx status, a JSON answer): what it is, then the server's message. */
const notAStream = (server: Server, response: HttpClientResponse.HttpClientResponse, what: string, retryable: boolean, code?: Errors.ProviderErrorCode) =>
  response.stream.pipe(
    Stream.decodeText(),
    Stream.runFoldWhile("", (s) => s.length < maxErrorBody, (s, piece) => s + piece),
    Effect.timeout(server.timeout),
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((text) => Effect.fail(server.failure(`${what}: ${server.bodyMessage(text)}`, retryable, undefined, code)))
  )

/** Posts `body` (JSON text) to `url` and reads the answer's events with `events`, every failure a `ProviderError`. */
export const post = Effect.fnUntraced(function*(
  server: Server,
  url: string,
  body: string,
  events: (sse: Stream.Stream<ServerSentEvent, Errors.ProviderError>) => Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError>
) {
  const { failure, timeout } = server
  const response = yield* server.client.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText(body, "application/json"))).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => failure(`no response within ${Duration.format(timeout)}`, true) }),
    Effect.catchTags({
      RequestError: (e) => Effect.fail(failure("the request failed", true, transportCause(e))),
      ResponseError: (e) => Effect.fail(failure("the response could not be read", true, transportCause(e)))
    })
  )
  if (response.status < 200 || response.status >= 300) {
    return yield* notAStream(server, response, `HTTP ${response.status}`, statusRetryable(response.status), statusCode(response.status))
  }
  // a server that ignores streaming answers one JSON document (or an error in a 200): say so, not `missing_done`
  if (/^application\/json/i.test(response.headers["content-type"] ?? "")) {
    return yield* notAStream(server, response, server.jsonAnswer, false)
  }
  const bytes = response.stream.pipe(
    Stream.catchTag("ResponseError", (e) => Stream.fail(failure("the response body broke off", true, transportCause(e))))
  )
  return Bounded.events(bytes, server.bounds, failure).pipe(events, Bounded.timed(server.bounds, failure))
})

/**
 * What every endpoint of the relay shares: JSON errors, JSON and Schema decoding that never throws (not even
 * on 10,000-level values), and the fault switches read from a request (its headers only when the relay
 * honours them) and applied to an answer (slow, fail, garbage, drop). Request bodies: `body.ts`.
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Stream from "effect/Stream"
import * as Text from "@toolgate/json-schema/Text"
import * as Faults from "../Faults.js"

/** A request the relay refuses: the status and the `{ error: { message, type } }` body it answers with. */
export class Rejection extends Data.TaggedError("Rejection")<{
  readonly status: number
  readonly message: string
  readonly type: string
  /** Answer with `connection: close` (a body left unread: the client may still be sending it). */
  readonly close?: boolean
}> {}

/** A 400 for a request that does not say what the endpoint needs. */
export const invalid = (message: string): Rejection => new Rejection({ status: 400, message, type: "invalid_request_error" })

/** Which error body an endpoint answers with: OpenAI's `{ error: { message, type } }` or, on Gemini's paths, Google's `{ error: { code, message, status } }`. */
export type ErrorStyle = "openai" | "google"

/** The Google API status word of an HTTP status. */
const googleStatus = (status: number): string => {
  switch (status) {
    case 400: case 411: case 413: case 415: return "INVALID_ARGUMENT"
    case 403: return "PERMISSION_DENIED"
    case 404: return "NOT_FOUND"
    case 405: case 501: return "UNIMPLEMENTED"
    case 408: return "DEADLINE_EXCEEDED"
    case 429: return "RESOURCE_EXHAUSTED"
    case 503: return "UNAVAILABLE"
    default: return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
  }
}

/** The JSON error body of a status in `style`. */
export const errorBody = (status: number, message: string, type: string, style: ErrorStyle = "openai"): string =>
  style === "google"
    ? JSON.stringify({ error: { code: status, message, status: googleStatus(status) } })
    : JSON.stringify({ error: { message, type } })

/** The JSON error response of a status. */
export const errorResponse = (status: number, message: string, type: string, headers?: Record<string, string>, style: ErrorStyle = "openai") =>
  HttpServerResponse.text(errorBody(status, message, type, style), {
    status,
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })

/** A rejection as its response. */
export const reject = (rejection: Rejection, style: ErrorStyle = "openai") =>
  errorResponse(rejection.status, rejection.message, rejection.type, rejection.close === true ? { connection: "close" } : undefined, style)

/** JSON text to a value, or a 400. */
export const parseJson = (text: string): Either.Either<unknown, Rejection> => {
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch {
    return Either.left(invalid("the request body is not JSON"))
  }
}

/** A decoding failure as a 400 with readable, bounded messages. */
export const decodeFailure = (what: string, error: ParseResult.ParseError): Rejection => invalid(`${what}: ${issuesText(error)}`)

/** A `ParseError`'s first issues, bounded; a value too deep for the formatter is said so instead of overflowing. */
export const issuesText = (error: ParseResult.ParseError): string => {
  try {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
    const lines = issues.slice(0, 10).map((issue) =>
      `${issue.path.length === 0 ? "" : `at ${Text.clip(issue.path.map(String).join("."), 200)}: `}${Text.clip(issue.message, 300)}`
    )
    return `${lines.join("; ")}${issues.length > 10 ? ` (and ${issues.length - 10} more)` : ""}`
  } catch {
    return "it does not have the expected shape (a value is nested too deeply to describe)"
  }
}

/** Text cut to `max` characters. */

/** The faults of one request and the `slow` delay. */
export interface Plan {
  readonly faults: ReadonlySet<Faults.Fault>
  readonly delayMs: number
}

/**
 * The request's faults (its header, when `headers` are honoured, plus the profile's) and delay, or a 400 for
 * an unknown fault, a bad delay, or a fault header sent to a relay that does not honour them.
 */
export const plan = (
  request: HttpServerRequest.HttpServerRequest,
  profileFaults: ReadonlyArray<Faults.Fault>,
  headers: boolean
): Either.Either<Plan, Rejection> => {
  const header = request.headers[Faults.header]
  if (!headers) {
    const sent = [Faults.header, Faults.delayHeader].filter((name) => request.headers[name] !== undefined)
    if (sent.length > 0) return Either.left(invalid(`${sent.join(", ")}: ${disabled}`))
    return Either.right({ faults: new Set(profileFaults), delayMs: Faults.defaultDelayMs })
  }
  const listed = Faults.parse(typeof header === "string" ? header : "")
  if (Either.isLeft(listed)) {
    return Either.left(invalid(`${Faults.header}: unknown ${listed.left.map((name) => JSON.stringify(Text.clip(name, 40))).join(", ")} (faults: ${Faults.all.join(", ")})`))
  }
  const delay = Faults.delayMs(request.headers[Faults.delayHeader])
  if (Either.isLeft(delay)) return Either.left(invalid(delay.left))
  return Either.right({ faults: new Set([...profileFaults, ...listed.right]), delayMs: delay.right })
}

const disabled = "this relay does not honour fault switch headers (start it with them on: `toolgate serve --faults`, or `faultHeaders: true`)"

/** An answer before faults: a status, a content type and the body in pieces (server-sent events, or one JSON text). */
export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly pieces: ReadonlyArray<string>
  /** Sent as a stream of server-sent events (else one JSON body). */
  readonly streamed: boolean
}

/** A JSON answer. */
export const jsonAnswer = (status: number, body: string): Answer =>
  ({ status, contentType: "application/json", pieces: [body], streamed: false })

/** A server-sent events answer. */
export const eventsAnswer = (pieces: ReadonlyArray<string>): Answer =>
  ({ status: 200, contentType: "text/event-stream", pieces, streamed: true })

const garbageText = "<html>this is not JSON: the relay's garbage fault {"

/** Applies the request's faults to an answer: `slow` waits, then `fail`, `rate-limit`, `garbage` or `drop` replace or cut it. */
export const respond = (request: HttpServerRequest.HttpServerRequest, plan: Plan, answer: Answer, style: ErrorStyle = "openai") =>
  Effect.gen(function*() {
    if (plan.faults.has("slow")) yield* Effect.sleep(plan.delayMs)
    if (plan.faults.has("fail")) return errorResponse(500, "the relay failed (its fail fault is on)", "server_error", undefined, style)
    if (plan.faults.has("rate-limit")) {
      const headers = { "retry-after": String(Faults.retryAfterSeconds) }
      return errorResponse(429, "rate limited (the relay's rate-limit fault is on)", "rate_limit_error", headers, style)
    }
    if (plan.faults.has("garbage")) {
      return answer.streamed
        ? send({ ...answer, status: 200, pieces: [`data: ${garbageText}\n\n`] })
        : HttpServerResponse.text(garbageText, { status: 200, contentType: "application/json" })
    }
    if (plan.faults.has("drop")) return dropAfterFirst(request, answer)
    return send(answer)
  })

const eventHeaders = { "cache-control": "no-cache" }

/** An answer as it is, without faults. */
export const send = (answer: Answer): HttpServerResponse.HttpServerResponse =>
  answer.streamed
    ? HttpServerResponse.stream(Stream.fromIterable(answer.pieces).pipe(Stream.encodeText), {
      status: answer.status,
      contentType: answer.contentType,
      headers: eventHeaders
    })
    : HttpServerResponse.text(answer.pieces.join(""), { status: answer.status, contentType: answer.contentType })

/** The first event (or the first half of a JSON body), then the connection is closed before the body ends. */
const dropAfterFirst = (request: HttpServerRequest.HttpServerRequest, answer: Answer) => {
  const whole = answer.pieces.join("")
  const first = answer.streamed ? answer.pieces[0] ?? "" : whole.slice(0, Math.floor(whole.length / 2))
  const close = Effect.async<never>(() => {
    // `destroySoon` flushes what was written, then closes; the server interrupts the response when it closes.
    NodeHttpServerRequest.toServerResponse(request).socket?.destroySoon()
  })
  const body = Stream.make(first).pipe(Stream.encodeText, Stream.concat(Stream.fromEffect(close)))
  return HttpServerResponse.stream(body, {
    status: answer.status,
    contentType: answer.contentType,
    headers: answer.streamed ? eventHeaders : {}
  })
}

/** A URL's path, without its query. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Text safe for one log line or message: control characters escaped, at most 200 characters. */
export const clean = (text: string): string =>
  Text.clip(text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`), 200)

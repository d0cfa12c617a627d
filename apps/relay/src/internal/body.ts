/**
 * A request body as the relay reads it, the one trust boundary of its POST endpoints: the content type must
 * say JSON (a web page's cross-origin "simple" POST is `text/plain` or a form, so it is refused unread with
 * a 415), the body must arrive within `maxBodyBytes` (413) and `bodyTimeoutMs` (408: a client trickling its
 * body is cut off), be UTF-8, and nest at most `maxBodyDepth` arrays and objects (400, found in one linear
 * scan before `JSON.parse` is asked to build anything).
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Readable } from "node:stream"
import type { Limits } from "./config.js"
import { invalid, parseJson, Rejection } from "./http.js"

/** Whether a `content-type` names JSON: `application/json` in any case, with or without parameters (`; charset=utf-8`). */
export const isJson = (contentType: string | undefined): boolean =>
  typeof contentType === "string" && contentType.split(";", 1)[0]!.trim().toLowerCase() === "application/json"

/**
 * Whether `text` nests at most `max` arrays and objects, in one pass that skips strings (escapes included).
 * Exact for JSON; for text that is not JSON it only has to be bounded, as `JSON.parse` refuses it next.
 */
export const depthWithin = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return true
}

/** The JSON body of a POST, within the limits, or the rejection that answers it. */
export const json = (request: HttpServerRequest.HttpServerRequest, limits: Limits): Effect.Effect<unknown, Rejection> =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"]
    if (!isJson(contentType)) {
      const given = contentType === undefined ? "none" : JSON.stringify(contentType.slice(0, 100))
      return yield* new Rejection({ status: 415, message: `the request body must be application/json (content-type: ${given})`, type: "invalid_request_error" })
    }
    const text = yield* read(request, limits)
    if (!depthWithin(text, limits.maxBodyDepth)) {
      return yield* invalid(`the request body nests arrays and objects more than ${limits.maxBodyDepth} levels deep`)
    }
    return yield* Either.match(parseJson(text), { onLeft: Effect.fail, onRight: Effect.succeed })
  })

/** How much of a refused oversized body is still read (and discarded) so the client gets the 413, not a reset. */
const drainLimit = (maxBytes: number): number => Math.max(maxBytes * 4, 8 * 1024 * 1024)

/**
 * The Node request under the platform's, when there is one. Its body is read without `closeOnDone`, so a
 * read cut short (the time limit) leaves the socket to carry the 408; Node discards the rest after it.
 */
const incoming = (request: HttpServerRequest.HttpServerRequest): Readable | undefined => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  return source instanceof Readable ? source : undefined
}

/**
 * The body as UTF-8 text, within `bodyTimeoutMs` (else 408, and the connection is closed after the answer).
 * Over `maxBodyBytes` → 413: the rest is read and discarded up to a bound, so a client still sending gets
 * the answer rather than a reset; a body declared past that bound is refused unread, and one that grows past
 * it has its connection closed. (Not `HttpIncomingMessage.withMaxBodySize`: past its limit the platform
 * closes the request stream, so a client still sending gets a reset instead of the 413.)
 */
const read = (request: HttpServerRequest.HttpServerRequest, limits: Limits): Effect.Effect<string, Rejection> =>
  Effect.gen(function*() {
    const maxBytes = limits.maxBodyBytes
    const tooLarge = new Rejection({ status: 413, message: `the request body is larger than ${maxBytes} bytes`, type: "invalid_request_error" })
    const drain = drainLimit(maxBytes)
    // A body declared past the drain bound is refused unread (Node discards it after the answer).
    if (Number(request.headers["content-length"]) > drain) return yield* tooLarge
    const node = incoming(request)
    const body = node === undefined ? request.stream : NodeStream.fromReadable(() => node, (e) => e, { closeOnDone: false })
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* body.pipe(
      Stream.runForEachWhile((chunk) =>
        Effect.sync(() => {
          size += chunk.byteLength
          if (size <= maxBytes) chunks.push(chunk)
          return size <= drain
        })
      ),
      Effect.mapError(() => invalid("the request body could not be read")),
      Effect.timeoutFail({
        duration: Duration.millis(limits.bodyTimeoutMs),
        onTimeout: () =>
          new Rejection({ status: 408, message: `the request body did not arrive within ${limits.bodyTimeoutMs} ms`, type: "invalid_request_error", close: true })
      })
    )
    if (size > drain) node?.destroy()
    if (size > maxBytes) return yield* tooLarge
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
    } catch {
      return yield* invalid("the request body is not UTF-8 text")
    }
  })

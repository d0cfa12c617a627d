/**
 * The wire contract of the relay's turns endpoint, shared by `CloudRelay` (the client) and apps/relay
 * (the server): the request body (`TurnRequest`: the conversation, tool NAMES only, the tool choice) and
 * the server-sent events body (one `data:` event per `StreamEvent` as JSON; a relay-side failure is an
 * `event: error` block with `{ "reason": string, "retryable": boolean }`).
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Text } from "@toolgate/json-schema"
import { Errors, Message, Provider, StreamEvent } from "@toolgate/runtime"
import * as Sse from "./internal/sse.js"

/** The path of the turns endpoint under the relay's base URL. */
export const turnsPath = "/v1/agent/turns"

/** The body of `POST /v1/agent/turns`: the relay owns the tool schemas, so tools travel by name. */
export const TurnRequest = Schema.Struct({
  messages: Schema.Array(Message.Message),
  tools: Schema.Array(Schema.String),
  toolChoice: Provider.ToolChoice,
  /** The session's system prompt (persona, directives), when it has one. */
  systemPrompt: Schema.optionalWith(Schema.String, { exact: true }),
  /** The sampling the send asks for, when it asks for any. */
  sampling: Schema.optionalWith(Provider.Sampling, { exact: true }),
  /** Provider-driven relays: the most tool calls the relay may start in this turn. */
  maxToolCallsPerTurn: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
}).annotations({ identifier: "TurnRequest" })
export type TurnRequest = typeof TurnRequest.Type

/** The data of an `event: error` block. */
export const ErrorData = Schema.Struct({ reason: Schema.String, retryable: Schema.Boolean }).annotations({
  identifier: "RelayError"
})
export type ErrorData = typeof ErrorData.Type

/** The name `decodeEvents` gives its `ProviderError`s (the relay's client is the cloud-relay provider). */
export const providerName = "cloud-relay"

/**
 * One event as an SSE block. A value that is not a `StreamEvent` (a JavaScript caller's mistake) becomes an
 * `event: error` block (not retryable) rather than a throw or a line the client could not decode.
 */
export const encodeEvent = (event: StreamEvent.StreamEvent): string => {
  const json = StreamEvent.encodeJson(event)
  return json !== undefined
    ? Sse.encode({ event: "message", data: json })
    : encodeError("the relay produced an event that is not a StreamEvent", false)
}

/** A relay-side failure as an `event: error` block; the client fails with a `ProviderError` of this reason. */
export const encodeError = (reason: string, retryable: boolean): string =>
  Sse.encode({
    event: "error",
    data: JSON.stringify({ reason: typeof reason === "string" ? reason : String(reason), retryable: retryable === true })
  })

/**
 * The body's events, a chunk at a time. `event: error` → `ProviderError` with its reason and retryable; a
 * `data:` line that is not a `StreamEvent` → `ProviderError` "malformed event" (not retryable); blocks of
 * other event types are skipped (room for keepalives and later additions). The events before a failure
 * are emitted first. A body that ends without `Done` just ends (the event contract reports it).
 */
export const decodeEvents = <E, R>(
  body: Stream.Stream<Uint8Array, E, R>
): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderError, R> => decodeBlocks(Sse.parse(body))

/** `decodeEvents` on a body already split into server-sent events (`{ event, data }`), e.g. by a bounded reader. */
export const decodeBlocks = <E, R>(
  blocks: Stream.Stream<Sse.ServerSentEvent, E, R>
): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderError, R> =>
  blocks.pipe(
    Stream.chunks,
    Stream.flatMap((chunk) => {
      const { events, failure } = decodeChunk(chunk)
      const emitted = Stream.fromChunk(Chunk.unsafeFromArray(events))
      return failure === undefined ? emitted : Stream.concat(emitted, Stream.fail(failure))
    })
  )

/** The events of one chunk of SSE blocks, up to the first failure. */
const decodeChunk = (
  chunk: Chunk.Chunk<Sse.ServerSentEvent>
): { readonly events: Array<StreamEvent.StreamEvent>; readonly failure: Errors.ProviderError | undefined } => {
  const events: Array<StreamEvent.StreamEvent> = []
  for (const block of chunk) {
    if (block.event === "error") return { events, failure: relayFailure(block.data) }
    if (block.event !== "message") continue
    const decoded = StreamEvent.decodeJson(block.data)
    if (Either.isLeft(decoded)) return { events, failure: malformed(decoded.left.message) }
    events.push(decoded.right)
  }
  return { events, failure: undefined }
}

/** The `ProviderError` an `event: error` block stands for (its data unreadable: a malformed event). */
const relayFailure = (data: string): Errors.ProviderError => {
  const decoded = decodeErrorData(data)
  return Either.isRight(decoded)
    ? new Errors.ProviderError({ provider: providerName, reason: decoded.right.reason, retryable: decoded.right.retryable })
    : malformed(`an error event whose data is not {"reason","retryable"}: ${decoded.left.message}`)
}

/** "malformed event", not retryable (the same relay would send the same bytes), with a clipped cause. */
const malformed = (cause: string): Errors.ProviderError =>
  new Errors.ProviderError({ provider: providerName, reason: "malformed event", retryable: false, cause: Text.clip(cause, 300) })

const decodeErrorData = Schema.decodeUnknownEither(Schema.parseJson(ErrorData), { errors: "all" })


/** At most `max` characters of `s`, marked when cut. */

/**
 * A session's streamed turn as the Vercel AI SDK's UI message stream, the protocol `useChat` and
 * `DefaultChatTransport` read: `start`, then per round a step (`start-step` … `finish-step`) holding the text
 * as it streams (`text-start` / `text-delta` / `text-end`) and the tool parts, then `finish`.
 *
 * - A call the session accepted is `tool-input-available`, then `tool-output-available` with the tool's result
 *   (or `tool-output-error` with the failure envelope's kind and message: a call not run, a tool that failed).
 * - A call with bad arguments is `tool-input-error` whose `errorText` is the validation issues, one a line;
 *   a call of an unknown tool the same. The stream goes on: the model gets the issues and may repair.
 * - A provider-driven call shows as `tool-input-start` when it begins.
 * - A failed turn (any `SendError`: drift, repair exhausted, provider, deadline, …) ends with an `error` chunk
 *   (`<tag>: <message>`), then `finish` with `finishReason: "error"`; a turn that took back tools it had run
 *   says so first in a `data-toolgate-compensated` part. A defect is an `error` chunk too. The stream always
 *   ends with `finish`; only an interruption (the client went away) ends it without one.
 * - Text that is not the answer (`RoundDiscarded`: the round called tools, or the turn failed after it): the
 *   open text part ends and a `data-toolgate-round-discarded` part in the same step names the round and the
 *   reason, so a UI that shows only the answer hides that step's text. With `discardedText: "remove"` the step
 *   is reset first (`reset-step`: the AI SDK drops the step's parts from the message) and its other parts
 *   (tool parts, data) are sent again, so the text is gone from the message itself.
 * - `data-toolgate-gate` and `data-toolgate-repair` parts carry the drift gate's verdict and each repair spent.
 *
 * @since 0.1.0
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { AgentSession } from "@toolgate/runtime"
import { createUIMessageStreamResponse } from "ai"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Mapper from "./internal/chatMapper.js"

/** The data parts a chat stream sends, by name (`data-<name>`): type your `useChat` messages with `ChatMessage`. */
export type DataTypes = Mapper.DataTypes

/** The UI message a chat stream builds (`useChat<ChatStream.ChatMessage>()`). */
export type ChatMessage = Mapper.ChatMessage

/** One chunk of the stream (the AI SDK's `UIMessageChunk` with toolgate's data parts). */
export type UiChunk = Mapper.Chunk

/** What a streamed turn emits: the session's events, then `TurnFinished`. */
export type Event = AgentSession.TurnEvent

/** A typed failure as the stream can report it. */
export interface Reportable {
  readonly _tag: string
  readonly message: string
}

/** How the stream reads. */
export interface Options<E> {
  /** The assistant message's id, sent in `start` (default: none; the client makes one). */
  readonly messageId?: string
  /** The `errorText` of a failed turn (default `<tag>: <message>`); return less to hide details from the browser. */
  readonly errorText?: (error: E) => string
  /** A discarded round's text: kept and marked (`"mark"`, the default, as the AI SDK keeps a tool step's text) or removed from the message. */
  readonly discardedText?: Mapper.Discarded
}

const defaultErrorText = (error: Reportable): string => `${error._tag}: ${error.message}`

/** The stream's last chunks for a cause: an interruption passes through, a failure or defect becomes `error` and `finish`. */
const failed = <E extends Reportable>(mapper: Mapper.Mapper, errorText: (error: E) => string) => (cause: Cause.Cause<E>) => {
  if (Cause.isInterruptedOnly(cause)) return Stream.failCause(cause as Cause.Cause<never>)
  const out: Array<UiChunk> = []
  const failure = Cause.failureOption(cause)
  const text = Option.isSome(failure) ? errorText(failure.value) : "the turn failed unexpectedly"
  mapper.fail(out, text)
  const logged = Option.isSome(failure) ? Effect.void : Effect.logError("ChatStream: the turn died", cause)
  return Stream.concat(Stream.execute(logged), Stream.fromIterable(out))
}

/**
 * A streamed turn's events (`session.stream(text)`) as UI message chunks, a chunk of events at a time. The
 * stream never fails: a failure is its `error` chunk. Interrupting it interrupts the turn.
 */
export const fromEvents = <E extends Reportable>(events: Stream.Stream<Event, E>, options: Options<E> = {}): Stream.Stream<UiChunk> =>
  Stream.suspend(() => {
    const mapper = new Mapper.Mapper(options.discardedText ?? "mark")
    const errorText = options.errorText ?? defaultErrorText
    const mapped = Stream.mapChunks(events, (chunk) => {
      const out: Array<UiChunk> = []
      for (const event of chunk) mapper.push(event, out)
      return Chunk.unsafeFromArray(out)
    })
    const end = Stream.suspend(() => {
      const out: Array<UiChunk> = []
      mapper.finish(out, "other")
      return Stream.fromIterable(out)
    })
    return Stream.make(mapper.start(options.messageId)).pipe(
      Stream.concat(mapped),
      Stream.catchAllCause(failed(mapper, errorText)),
      Stream.concat(end)
    )
  })

/** One turn of `session` as UI message chunks: `session.stream(text, options)` through `fromEvents`. */
export const turn = (
  session: AgentSession.AgentSession,
  text: string,
  options: Options<AgentSession.SendError> & { readonly send?: AgentSession.SendOptions } = {}
): Stream.Stream<UiChunk> => fromEvents(session.stream(text, options.send), options)

/** How the response is sent. */
export interface ResponseInit {
  readonly status?: number
  readonly headers?: Record<string, string>
  /** Send an SSE comment when nothing was sent for this long (milliseconds, 1 to 2,147,483,647), so a proxy keeps a long tool run open. */
  readonly keepAliveMs?: number
}

/**
 * The chunks as the HTTP response `DefaultChatTransport` reads: the AI SDK's own `createUIMessageStreamResponse`
 * (server-sent events with `UI_MESSAGE_STREAM_HEADERS`, ending `data: [DONE]`) as a platform response. The
 * body is pulled as the client reads it; a client that goes away cancels the stream, which interrupts the turn.
 */
export const toResponse = (chunks: Stream.Stream<UiChunk>, init: ResponseInit = {}): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(Stream.toReadableStreamEffect(chunks), (stream) =>
    HttpServerResponse.fromWeb(createUIMessageStreamResponse({
      stream,
      ...(init.status === undefined ? {} : { status: init.status }),
      ...(init.headers === undefined ? {} : { headers: init.headers }),
      ...(init.keepAliveMs === undefined ? {} : { keepAliveMs: init.keepAliveMs })
    })))

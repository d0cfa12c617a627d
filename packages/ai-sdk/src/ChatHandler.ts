/**
 * The HTTP endpoint `useChat` talks to: an `@effect/platform` app that answers a `DefaultChatTransport` POST
 * with the turn as the AI SDK's UI message stream (`ChatStream`). Mount it on a router
 * (`HttpRouter.post("/api/chat", handler)`) or serve it alone.
 *
 * The request is read at the edge: `content-type` must be JSON (else 415: a web page's cross-origin "simple"
 * POST is refused unread), the body must arrive within `maxBodyBytes` (413) and `bodyTimeout` (408), be JSON
 * (400) and a chat request (`ChatRequest`, 400). Each refusal is a JSON `{ error: { message, type } }` and no
 * session is looked up. Then the chat `id`'s session (the app's `session` lookup, such as `ChatSessions.keyed`)
 * runs the turn, streamed as it happens; a lookup that fails is the stream's `error` chunk. With
 * `trigger: "regenerate-message"` the session's last turn is taken back first (`undoLastTurn`, its tools'
 * undos run) when it committed, and the user's text is sent again.
 *
 * @since 0.1.0
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Decode from "@toolgate/runtime/Decode"
import type * as Errors from "@toolgate/runtime/Errors"
import type * as AgentSession from "@toolgate/runtime/AgentSession"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "./ChatRequest.js"
import type { Lookup } from "./ChatSessions.js"
import * as ChatStream from "./ChatStream.js"

/** A request the endpoint refuses before any session is looked up: its HTTP status and why. */
export class ChatRejected extends Schema.TaggedError<ChatRejected>()("ChatRejected", {
  status: Schema.Int,
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/** What the endpoint is made of. */
export interface Options<E extends ChatStream.Reportable> {
  /** The session of a chat id, held for the turn (`ChatSessions.keyed`, or your own). */
  readonly session: Lookup<E>
  /** The largest body read (bytes, default 1 MiB; a chat request resends the whole conversation). */
  readonly maxBodyBytes?: number
  /** How long the body may take to arrive once the headers have (default 10 seconds). */
  readonly bodyTimeout?: Duration.DurationInput
  /** The `errorText` of a failed turn or lookup (default `<tag>: <message>`). */
  readonly errorText?: (error: AgentSession.SendError | E | Errors.UndoIncomplete | Errors.UndoSuperseded | Errors.SessionStoreError) => string
  /** Send an SSE comment when the turn has sent nothing for this long (default: none), so a proxy keeps a long tool run open. */
  readonly keepAlive?: Duration.DurationInput
  /** A discarded round's text: kept and marked (default) or removed from the message (`ChatStream.Options`). */
  readonly discardedText?: "mark" | "remove"
  /** What each send asks for besides the text (tool choice, directives, …), from the request. */
  readonly sendOptions?: (request: ChatRequest.ChatRequest) => AgentSession.SendOptions
}

const Settings = Schema.Struct({
  maxBodyBytes: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1024 * 1024 * 1024)), { exact: true, default: () => 1024 * 1024 }),
  bodyTimeout: Schema.optionalWith(Decode.PositiveDuration, { exact: true, default: () => Duration.seconds(10) }),
  keepAlive: Schema.optionalWith(
    Decode.PositiveDuration.pipe(Schema.filter((d) => Duration.toMillis(d) <= 2_147_483_647, { message: () => "at most 2,147,483,647 ms (a timer's limit)" })),
    { exact: true }
  )
})

const decodeSettings = Decode.options("ChatHandler", Settings)

/** Whether a `content-type` names JSON. */
const isJson = (contentType: string | undefined): boolean =>
  typeof contentType === "string" && contentType.split(";", 1)[0]!.trim().toLowerCase() === "application/json"

/**
 * The body as UTF-8 text, within the limits. The read runs in a fiber of its own that the time limit does not
 * interrupt: interrupting the platform's body stream closes the connection, and the client would get no 408.
 * Past the limit the refusal is answered with `connection: close`, which ends the read; the read's own
 * backstop (twice the limit) ends it otherwise.
 */
const readBody = (request: HttpServerRequest.HttpServerRequest, settings: typeof Settings.Type): Effect.Effect<string, ChatRejected> =>
  Effect.gen(function*() {
    const max = settings.maxBodyBytes
    const tooLarge = new ChatRejected({ status: 413, detail: `the request body is larger than ${max} bytes` })
    if (Number(request.headers["content-length"]) > max) return yield* tooLarge
    const chunks: Array<Uint8Array> = []
    let size = 0
    const read = request.stream.pipe(
      Stream.runForEachWhile((chunk) =>
        Effect.sync(() => {
          size += chunk.byteLength
          if (size <= max) chunks.push(chunk)
          return size <= max
        })
      ),
      Effect.mapError(() => new ChatRejected({ status: 400, detail: "the request body could not be read" })),
      Effect.timeout(Duration.times(settings.bodyTimeout, 2)),
      Effect.ignore
    )
    const reading = yield* Effect.forkDaemon(read)
    const finished = yield* Fiber.await(reading).pipe(Effect.timeout(settings.bodyTimeout), Effect.option)
    if (Option.isNone(finished)) {
      return yield* new ChatRejected({ status: 408, detail: `the request body did not arrive within ${Duration.format(settings.bodyTimeout)}` })
    }
    if (size > max) return yield* tooLarge
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
    } catch {
      return yield* new ChatRejected({ status: 400, detail: "the request body is not UTF-8 text" })
    }
  })

/** The request as a chat request, or the refusal that answers it. */
export const readRequest = (request: HttpServerRequest.HttpServerRequest, options: { readonly maxBodyBytes: number; readonly bodyTimeout: Duration.DurationInput }): Effect.Effect<ChatRequest.ChatRequest, ChatRejected> =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"]
    if (!isJson(contentType)) {
      return yield* new ChatRejected({ status: 415, detail: `the request body must be application/json (content-type: ${contentType === undefined ? "none" : JSON.stringify(contentType.slice(0, 100))})` })
    }
    const text = yield* readBody(request, { maxBodyBytes: options.maxBodyBytes, bodyTimeout: Duration.decode(options.bodyTimeout) })
    return yield* Either.match(ChatRequest.fromText(text), {
      onLeft: (e) => Effect.fail(new ChatRejected({ status: 400, detail: e.message })),
      onRight: Effect.succeed
    })
  })

/** A refusal as its JSON response (the connection closed when the body may be unread). */
export const rejection = (rejected: ChatRejected): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: { message: rejected.detail, type: "invalid_request_error" } }, {
    status: rejected.status,
    ...(rejected.status === 413 || rejected.status === 408 ? { headers: { connection: "close" } } : {})
  })

/** Whether the session's last turn committed (its history ends with the assistant's answer). */
const lastTurnCommitted = (session: AgentSession.AgentSession) =>
  Effect.map(session.history, (history) => history.length > 0 && history[history.length - 1]!._tag === "Assistant")

/** The turn a chat request asks for, as UI message chunks: the session looked up and held for the turn. */
export const stream = <E extends ChatStream.Reportable>(
  request: ChatRequest.ChatRequest,
  options: Pick<Options<E>, "session" | "errorText" | "sendOptions" | "discardedText"> & { readonly messageId?: string }
): Stream.Stream<ChatStream.UiChunk> => {
  const events = Stream.unwrapScoped(Effect.gen(function*() {
    const session = yield* options.session(request.id)
    if (request.trigger === "regenerate-message" && (yield* lastTurnCommitted(session))) yield* session.undoLastTurn
    return session.stream(request.text, options.sendOptions?.(request))
  }))
  return ChatStream.fromEvents(events, {
    ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
    ...(options.errorText === undefined ? {} : { errorText: options.errorText }),
    ...(options.discardedText === undefined ? {} : { discardedText: options.discardedText })
  })
}

/**
 * The endpoint: a POST's body read and decoded within the limits (a refusal is a 4xx, nothing runs), then
 * the turn streamed as the AI SDK's UI message stream. Options that are not valid fail with `InvalidOptions`.
 */
export const make = <E extends ChatStream.Reportable>(options: Options<E>): Effect.Effect<HttpApp.Default, Errors.InvalidOptions> =>
  Effect.map(decodeSettings(options), (settings) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      readRequest(request, settings).pipe(
        Effect.flatMap((chat) =>
          ChatStream.toResponse(
            stream(chat, { ...options, messageId: crypto.randomUUID() }),
            settings.keepAlive === undefined ? {} : { keepAliveMs: Math.max(1, Math.round(Duration.toMillis(settings.keepAlive))) }
          )
        ),
        Effect.catchTag("ChatRejected", (e) => Effect.succeed(rejection(e)))
      )))

/**
 * `POST /chat`: the AI SDK's chat endpoint (`DefaultChatTransport`, `useChat`) over the relay's scripted model,
 * answered with the turn as the AI SDK's UI message stream (`@toolgate/ai-sdk`'s `ChatStream`). The body is
 * read as every relay POST is (`body.ts`: JSON content type, size, time and depth limits), then decoded as a
 * chat request (`ChatRequest`, a 400 when it is not one); the chat id names a session (`chatSessions.ts`).
 * The AI SDK is loaded on the first chat request, so the relay's other routes never pay for it.
 *
 * @internal
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Body from "./body.js"
import { sessions } from "./chatSessions.js"
import type { Resolved } from "./endpoint.js"
import * as Http from "./http.js"

/** The chat path (under the served root, and under each scenario). */
export const chatPath = "/chat"

const aiSdk = Effect.promise(() => import("@toolgate/ai-sdk"))

/** The chat endpoint of one served profile and script. */
export const chat = (relay: Resolved): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> => {
  const lookup = sessions(relay.profile, relay.script)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* Http.plan(request, [], relay.faultHeaders)
    const body = yield* Body.json(request, relay)
    const { ChatHandler, ChatRequest, ChatStream } = yield* aiSdk
    const decoded = ChatRequest.fromJson(body)
    if (Either.isLeft(decoded)) return yield* Http.invalid(decoded.left.message)
    return yield* ChatStream.toResponse(ChatHandler.stream(decoded.right, { session: lookup, messageId: crypto.randomUUID() }))
  }).pipe(
    Effect.catchTag("Rejection", (rejection) => Effect.succeed(Http.reject(rejection))),
    Effect.catchAllDefect(() => Effect.succeed(Http.errorResponse(500, "the relay could not answer this request", "server_error")))
  )
}

/**
 * `POST /v1/chat/completions`: an OpenAI Chat Completions request in, the scripted round out in the same
 * wire format, streamed (`stream: true`) or not, its text's `{{fields}}` filled from the request (see `ModelView`). A `Failure` round answers with an OpenAI-style error:
 * 503 when it is retryable, else 400; so does a request the script has no round for (400).
 *
 * @internal
 */
import { Script } from "@toolgate/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ChatAnswer from "./chatAnswer.js"
import * as ChatWire from "./chatWire.js"
import { attempt, type Resolved } from "./endpoint.js"
import * as Http from "./http.js"
import * as ModelView from "./modelView.js"
import { noRound } from "./turns.js"

/** An OpenAI-style JSON error answer. */
const error = (status: number, message: string, type: string): Http.Answer =>
  Http.jsonAnswer(status, JSON.stringify({ error: { message, type } }))

/**
 * The scripted round for `messages` (Chat Completions and Responses share it), or the OpenAI-style error
 * answer: 400 when the script has no round, 503 for a retryable `Failure` round, else 400.
 */
export const roundOrError = (
  script: Script.Script,
  messages: Parameters<typeof Script.select>[1]
): Exclude<Script.Round, Script.Failure> | Http.Answer => {
  const round = Script.select(script, messages)
  if (round === undefined) return error(400, noRound(messages), "invalid_request_error")
  if (Array.isArray(round)) return round
  const { fail } = round as Script.Failure
  return fail.retryable ? error(503, fail.reason, "server_error") : error(400, fail.reason, "invalid_request_error")
}

/** The answer to a Chat Completions body; `next` numbers the completion ids. */
export const answer = (resolved: Resolved, body: unknown, next: () => number): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const decoded = ChatWire.decode(body)
    if (Either.isLeft(decoded)) return yield* Http.decodeFailure("not a chat completions request", decoded.left)
    const request = decoded.right
    const messages = ChatWire.toMessages(request.messages)
    const round = roundOrError(resolved.script, messages)
    if ("status" in round) return round
    const reply: ChatAnswer.Reply = {
      id: `chatcmpl-toolgate-${next()}`,
      created: Math.floor((yield* Clock.currentTimeMillis) / 1000),
      model: request.model,
      includeUsage: request.stream_options?.include_usage === true
    }
    const seen = ChatWire.seen(request)
    return request.stream === true
      ? Http.eventsAnswer(yield* attempt("encode the scripted round", () => ChatAnswer.chunks(reply, ModelView.fill(round, seen))))
      : Http.jsonAnswer(200, yield* attempt("encode the scripted round", () => ChatAnswer.completion(reply, ModelView.fill(round, seen))))
  })

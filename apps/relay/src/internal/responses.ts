/**
 * `POST /v1/responses`: an OpenAI Responses API request in, the scripted round out in the same wire format,
 * streamed (`stream: true`: the typed server-sent events `@effect/ai-openai`'s `OpenAiLanguageModel` and
 * the official SDK read) or not (one `response` object), its text's `{{fields}}` filled from the request (see
 * `ModelView`). A `Failure` round answers with an OpenAI-style error: 503 when it is retryable, else 400;
 * so does a request the script has no round for (400).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { roundOrError } from "./chat.js"
import { attempt, type Resolved } from "./endpoint.js"
import * as Http from "./http.js"
import * as ModelView from "./modelView.js"
import * as ResponsesAnswer from "./responsesAnswer.js"
import * as ResponsesWire from "./responsesWire.js"

/** The answer to a Responses body; `next` numbers the response ids. */
export const answer = (resolved: Resolved, body: unknown, next: () => number): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const decoded = ResponsesWire.decode(body)
    if (Either.isLeft(decoded)) return yield* Http.decodeFailure("not a responses request", decoded.left)
    const request = decoded.right
    const messages = ResponsesWire.toMessages(request.input)
    const round = roundOrError(resolved.script, messages)
    if ("status" in round) return round
    const reply: ResponsesAnswer.Reply = {
      id: `resp_toolgate_${next()}`,
      created: Math.floor((yield* Clock.currentTimeMillis) / 1000),
      model: request.model
    }
    const filled = ModelView.fill(round, ResponsesWire.seen(request))
    return request.stream === true
      ? Http.eventsAnswer(yield* attempt("encode the scripted round", () => ResponsesAnswer.streamEvents(reply, filled)))
      : Http.jsonAnswer(200, yield* attempt("encode the scripted round", () => ResponsesAnswer.response(reply, filled)))
  })

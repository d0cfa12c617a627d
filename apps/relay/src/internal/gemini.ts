/**
 * `POST /v1beta/models/{model}:streamGenerateContent`: a Gemini API `GenerateContentRequest` in, the
 * scripted round out as `GenerateContentResponse` chunks (server-sent events with `?alt=sse`, else one JSON
 * array), its text's `{{fields}}` filled from the request (see `ModelView`). A `Failure` round answers with a
 * Google API error `{ error: { code, message, status } }`: 503 `UNAVAILABLE` when it is retryable, else 400
 * `INVALID_ARGUMENT`; so does a request the script has no round for (400). Another method on a model path
 * (`:generateContent`, `:countTokens`) is a 404.
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Script } from "@toolgate/providers"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { attempt, type Resolved } from "./endpoint.js"
import * as GeminiAnswer from "./geminiAnswer.js"
import * as GeminiWire from "./geminiWire.js"
import * as Http from "./http.js"
import * as ModelView from "./modelView.js"
import { noRound } from "./turns.js"

/** Where the model paths start (a `…/v1beta` base URL, as `Gemini.make({ baseUrl })` takes it). */
export const modelsPrefix = "/v1beta/models/"

/** What a model path asks for: the model and whether the answer is server-sent events. */
export interface Target {
  readonly model: string
  readonly sse: boolean
}

/** The target of a request URL, or why it has none (an unknown method, a model id that is not URL-encoded text). */
export const target = (url: string): Either.Either<Target, string> => {
  const rest = Http.pathOf(url).slice(modelsPrefix.length)
  const colon = rest.lastIndexOf(":")
  const method = colon < 0 ? "" : rest.slice(colon + 1)
  if (method !== "streamGenerateContent") {
    return Either.left(`no method ${JSON.stringify(Http.clean(method))} here (the relay serves :streamGenerateContent)`)
  }
  try {
    const model = decodeURIComponent(rest.slice(0, colon))
    const query = url.indexOf("?")
    const alt = query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get("alt")
    return model === "" ? Either.left("no model in the path") : Either.right({ model, sse: alt === "sse" })
  } catch {
    return Either.left("the model id is not URL-encoded text")
  }
}

const googleError = (code: number, message: string, status: string): Http.Answer =>
  Http.jsonAnswer(code, JSON.stringify({ error: { code, message, status } }))

/** The answer to a `streamGenerateContent` body for `to`; `next` numbers the response ids. */
export const answer = (resolved: Resolved, body: unknown, to: Target, next: () => number): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const decoded = GeminiWire.decode(body)
    if (Either.isLeft(decoded)) return yield* Http.decodeFailure("not a generateContent request", decoded.left)
    const messages = GeminiWire.toMessages(decoded.right.contents)
    const round = Script.select(resolved.script, messages)
    if (round === undefined) return googleError(400, noRound(messages), "INVALID_ARGUMENT")
    if (!Array.isArray(round)) {
      const { fail } = round as Script.Failure
      return fail.retryable ? googleError(503, fail.reason, "UNAVAILABLE") : googleError(400, fail.reason, "INVALID_ARGUMENT")
    }
    const reply: GeminiAnswer.Reply = { responseId: `toolgate-${next()}`, modelVersion: to.model }
    const filled = ModelView.fill(round, GeminiWire.seen(decoded.right))
    return to.sse
      ? Http.eventsAnswer(yield* attempt("encode the scripted round", () => GeminiAnswer.sse(reply, filled)))
      : Http.jsonAnswer(200, yield* attempt("encode the scripted round", () => GeminiAnswer.array(reply, filled)))
  })

/** The model path's target from the request, as a 404 rejection when there is none. */
export const targetOf = (request: HttpServerRequest.HttpServerRequest): Either.Either<Target, Http.Rejection> =>
  Either.mapLeft(target(request.url), (why) => new Http.Rejection({ status: 404, message: why, type: "not_found" }))

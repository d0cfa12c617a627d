/**
 * Gemini's model paths under `/v1beta/models/{model}`: `:streamGenerateContent` (the scripted round as
 * `GenerateContentResponse` chunks, server-sent events with `?alt=sse`, else one JSON array),
 * `:generateContent` (the round as one `GenerateContentResponse`) and `:countTokens` (an approximate count,
 * see `countTokens`), its text's `{{fields}}` filled from the request (see `ModelView`). Every error on these
 * paths has Google's shape `{ error: { code, message, status } }`: a `Failure` round is a 503 `UNAVAILABLE`
 * when it is retryable, else a 400 `INVALID_ARGUMENT`, and so is a request the script has no round for
 * (400). Another method on a model path is a 404.
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { JsonValue as J } from "@toolgate/json-schema"
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

/** The methods served on a model path. */
const methods = ["streamGenerateContent", "generateContent", "countTokens"] as const

/** What a model path asks for: the model, the method and whether the answer is server-sent events. */
export interface Target {
  readonly model: string
  readonly method: typeof methods[number]
  readonly sse: boolean
}

const isMethod = (method: string): method is Target["method"] => (methods as ReadonlyArray<string>).includes(method)

/** The target of a request URL, or why it has none (an unknown method, a model id that is not URL-encoded text). */
export const target = (url: string): Either.Either<Target, string> => {
  const rest = Http.pathOf(url).slice(modelsPrefix.length)
  const colon = rest.lastIndexOf(":")
  const method = colon < 0 ? "" : rest.slice(colon + 1)
  if (!isMethod(method)) {
    return Either.left(`no method ${JSON.stringify(Http.clean(method))} here (the relay serves :${methods.join(", :")})`)
  }
  try {
    const model = decodeURIComponent(rest.slice(0, colon))
    const query = url.indexOf("?")
    const alt = query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get("alt")
    return model === "" ? Either.left("no model in the path") : Either.right({ model, method, sse: alt === "sse" })
  } catch {
    return Either.left("the model id is not URL-encoded text")
  }
}

const googleError = (code: number, message: string): Http.Answer => Http.jsonAnswer(code, Http.errorBody(code, message, "", "google"))

/** The answer to a model path's body for `to`; `next` numbers the response ids. */
export const answer = (resolved: Resolved, body: unknown, to: Target, next: () => number): Effect.Effect<Http.Answer, Http.Rejection> =>
  to.method === "countTokens" ? countTokens(body) : generate(resolved, body, to, next)

/** `streamGenerateContent` and `generateContent`: the scripted round, or its failure as a Google error. */
const generate = (resolved: Resolved, body: unknown, to: Target, next: () => number): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const decoded = GeminiWire.decode(body)
    if (Either.isLeft(decoded)) return yield* Http.decodeFailure("not a generateContent request", decoded.left)
    const messages = GeminiWire.toMessages(decoded.right.contents)
    const round = Script.select(resolved.script, messages)
    if (round === undefined) return googleError(400, noRound(messages))
    if (!Array.isArray(round)) {
      const { fail } = round as Script.Failure
      return googleError(fail.retryable ? 503 : 400, fail.reason)
    }
    const reply: GeminiAnswer.Reply = { responseId: `toolgate-${next()}`, modelVersion: to.model }
    const filled = ModelView.fill(round, GeminiWire.seen(decoded.right))
    if (to.method === "generateContent") return Http.jsonAnswer(200, yield* attempt("encode the scripted round", () => GeminiAnswer.response(reply, filled)))
    return to.sse
      ? Http.eventsAnswer(yield* attempt("encode the scripted round", () => GeminiAnswer.sse(reply, filled)))
      : Http.jsonAnswer(200, yield* attempt("encode the scripted round", () => GeminiAnswer.array(reply, filled)))
  })

/**
 * `countTokens`: an approximate count, not a tokenizer's: the characters of the request's text, function
 * calls and responses (their JSON) and system instruction, divided by four and rounded up (the estimate
 * toolgate's sessions use for a context window). Its `contents`, or a whole `generateContentRequest`.
 */
const countTokens = (body: unknown): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const decoded = GeminiWire.decodeCount(body)
    if (Either.isLeft(decoded)) return yield* Http.decodeFailure("not a countTokens request", decoded.left)
    const request = decoded.right.generateContentRequest
    const contents = [...(decoded.right.contents ?? []), ...(request?.contents ?? []), ...(request?.systemInstruction == null ? [] : [request.systemInstruction])]
    let characters = 0
    for (const content of contents) {
      for (const part of content.parts) {
        characters += (part.text ?? "").length
        if (part.functionCall != null) characters += part.functionCall.name.length + (J.stringify(part.functionCall.args ?? {}) ?? "").length
        if (part.functionResponse != null) characters += part.functionResponse.name.length + (J.stringify(part.functionResponse.response) ?? "").length
      }
    }
    return Http.jsonAnswer(200, JSON.stringify({ totalTokens: Math.ceil(characters / 4) }))
  })

/** The model path's target from the request, as a 404 rejection when there is none. */
export const targetOf = (request: HttpServerRequest.HttpServerRequest): Either.Either<Target, Http.Rejection> =>
  Either.mapLeft(target(request.url), (why) => new Http.Rejection({ status: 404, message: why, type: "not_found" }))

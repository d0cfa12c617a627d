/**
 * The Gemini wire shapes this provider reads: one streamed `GenerateContentResponse` (the Gemini API's
 * `data:` payload; Cloud Code Assist wraps it as `{ response }`) and the error body Google APIs answer a
 * failed request with. Lenient on purpose: unknown fields are ignored (`modelVersion`, `citationMetadata`,
 * `safetyRatings`, …) and every field a server may leave out is optional. Only what the reader acts on is typed.
 *
 * @internal
 */
import { JsonValue as J } from "@toolgate/json-schema"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

/**
 * The arguments of a call: a JSON object, kept as `JSON.parse` made it. Not a `Schema.Record`, whose
 * decoding copies keys into a fresh object, where an own `__proto__` key would become a prototype.
 */
const Args = Schema.declare((u: unknown): u is J.JsonObject => J.isObject(u), { identifier: "JsonObject" })

/** A call the model made: a name and its arguments as an object (`args` left out when there are none). */
export const FunctionCall = Schema.Struct({
  id: optionalNullable(Schema.String),
  name: Schema.String,
  args: optionalNullable(Args)
})

/** One part of a candidate's content: text (a thought summary when `thought`), or a function call. */
export const Part = Schema.Struct({
  text: optionalNullable(Schema.String),
  thought: optionalNullable(Schema.Boolean),
  thoughtSignature: optionalNullable(Schema.String),
  functionCall: optionalNullable(FunctionCall)
})
export type Part = typeof Part.Type

/** One candidate answer; `finishReason` is set on its last chunk. */
export const Candidate = Schema.Struct({
  index: optionalNullable(Schema.Number),
  content: optionalNullable(Schema.Struct({ parts: optionalNullable(Schema.Array(Part)) })),
  finishReason: optionalNullable(Schema.String),
  finishMessage: optionalNullable(Schema.String)
})

/** Token counts; each chunk repeats the counts so far, so the last one is the round's. */
export const UsageMetadata = Schema.Struct({
  promptTokenCount: optionalNullable(Schema.Number),
  candidatesTokenCount: optionalNullable(Schema.Number),
  thoughtsTokenCount: optionalNullable(Schema.Number),
  toolUsePromptTokenCount: optionalNullable(Schema.Number)
})

/** A Google API error object: an HTTP-like `code`, a message and a canonical `status` (`RESOURCE_EXHAUSTED`, …). */
export const ErrorObject = Schema.Struct({
  code: optionalNullable(Schema.Number),
  message: optionalNullable(Schema.String),
  status: optionalNullable(Schema.String),
  details: optionalNullable(Schema.Array(Schema.Unknown))
})
export type ErrorObject = typeof ErrorObject.Type

/** One `data:` payload of the Gemini API stream (or an error reported mid-stream). */
export const Response = Schema.Struct({
  responseId: optionalNullable(Schema.String),
  candidates: optionalNullable(Schema.Array(Candidate)),
  usageMetadata: optionalNullable(UsageMetadata),
  promptFeedback: optionalNullable(Schema.Struct({
    blockReason: optionalNullable(Schema.String),
    blockReasonMessage: optionalNullable(Schema.String)
  })),
  error: optionalNullable(ErrorObject)
})
export type Response = typeof Response.Type

/** One `data:` payload of the Cloud Code Assist stream: the Gemini response under `response`. */
export const CcaEvent = Schema.Struct({
  response: optionalNullable(Response),
  error: optionalNullable(ErrorObject)
})

const decodeResponse = Schema.decodeUnknownEither(Response, { errors: "all" })
const decodeCca = Schema.decodeUnknownEither(CcaEvent, { errors: "all" })

/** JSON text to a response (unwrapped from `{ response }` when `wrapped`), or why not. */
export const decodeEvent = (text: string, wrapped: boolean): Either.Either<Response, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return Either.left(`not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const format = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)
  if (!wrapped) return Either.mapLeft(decodeResponse(value), format)
  const event = decodeCca(value)
  if (Either.isLeft(event)) return Either.left(format(event.left))
  const { error, response } = event.right
  if (error != null) return Either.right({ error })
  return response != null ? Either.right(response) : Either.left("a Cloud Code Assist event without `response`")
}

/** A failed request's body: `{ error }`, or (some Google front ends) a one-element array of it. */
const ErrorBody = Schema.Union(
  Schema.Struct({ error: ErrorObject }),
  Schema.Tuple([Schema.Struct({ error: ErrorObject })], Schema.Unknown)
)
const decodeErrorBodyValue = Schema.decodeUnknownEither(ErrorBody)

/** The error object of a failed request's body, when it has one. */
export const decodeErrorBody = (text: string): ErrorObject | undefined => {
  try {
    const decoded = decodeErrorBodyValue(JSON.parse(text))
    if (Either.isLeft(decoded)) return undefined
    return Array.isArray(decoded.right) ? decoded.right[0].error : (decoded.right as { readonly error: ErrorObject }).error
  } catch {
    return undefined
  }
}

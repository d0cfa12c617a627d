/**
 * The Chat Completions wire shapes this provider reads: one streamed `chat.completion.chunk` and the error
 * body a server answers a failed request with. Lenient on purpose: unknown fields are ignored (servers add
 * `timings`, `logprobs`, `system_fingerprint`, …), and every field a server may send as `null` or leave
 * out (vLLM's usage chunk has `choices: null`, llama.cpp's role delta has `content: null`) is optional and
 * nullable. Only what the assembler acts on is typed.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** A piece of one tool call: `index` says which call; `id` and `name` come with its first piece. */
export const ToolCallDelta = Schema.Struct({
  index: optionalNullable(Schema.Number),
  id: optionalNullable(Schema.String),
  function: optionalNullable(Schema.Struct({
    name: optionalNullable(Schema.String),
    arguments: optionalNullable(Schema.String)
  }))
})
export type ToolCallDelta = typeof ToolCallDelta.Type

/** What one chunk adds to a choice's message. */
export const Delta = Schema.Struct({
  content: optionalNullable(Schema.String),
  refusal: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(ToolCallDelta))
})

/** One choice of a chunk; `finish_reason` is set on the choice's last chunk. */
export const Choice = Schema.Struct({
  index: optionalNullable(Schema.Number),
  delta: optionalNullable(Delta),
  finish_reason: optionalNullable(Schema.String)
})

/** Token counts; servers that count nothing leave the fields out. */
export const Usage = Schema.Struct({
  prompt_tokens: optionalNullable(Schema.Number),
  completion_tokens: optionalNullable(Schema.Number)
})

/** An error object, as OpenAI, vLLM and llama.cpp send it (`message`, a `type`, a string or numeric `code`). */
export const ErrorObject = Schema.Struct({
  message: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  code: optionalNullable(Schema.Union(Schema.String, Schema.Number))
})

/** One `data:` payload of the stream: a chunk, or (mid-stream) an error. */
export const Chunk = Schema.Struct({
  id: optionalNullable(Schema.String),
  choices: optionalNullable(Schema.Array(Choice)),
  usage: optionalNullable(Usage),
  error: optionalNullable(Schema.Union(ErrorObject, Schema.String))
})
export type Chunk = typeof Chunk.Type

const decodeChunkValue = Schema.decodeUnknownEither(Chunk, { errors: "all" })

/** JSON text to a chunk, or why not (not JSON, or not shaped like a chunk). `JSON.parse` first: a third of the cost of `parseJson`. */
export const decodeChunk = (text: string): Either.Either<Chunk, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return Either.left(`not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  return Either.mapLeft(decodeChunkValue(value), (error) => ParseResult.TreeFormatter.formatErrorSync(error))
}

/** A failed request's body: `{ error: { message } }` (OpenAI, vLLM, llama.cpp) or `{ error: "…" }` (Ollama). */
export const ErrorBody = Schema.Struct({
  error: Schema.Union(ErrorObject, Schema.String)
})

/** JSON text to an error body, or a `ParseError`. */
export const decodeErrorBody = Schema.decodeUnknownEither(Schema.parseJson(ErrorBody))

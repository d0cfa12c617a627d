/**
 * The tool result envelope: every tool result the model sees is one of two JSON shapes.
 *
 * - success: `{ "ok": true, "tool"?: string, "result": JSON, "warnings"?: string[] }`
 * - failure: `{ "ok": false, "kind": Kind, "message": string, "field"?: string, "expected"?: string,
 *   "tool"?: string, "retryable": boolean }`
 *
 * Both are Effect Schemas, so they encode and decode; constructors build them, detectors recognise them
 * (and the legacy forms) in a JSON string or a parsed value, and `truncateForModel` caps model-bound text.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { JsonValue as J, type Validator } from "@toolgate/json-schema"
import * as build from "./internal/build.js"
import * as detect from "./internal/detect.js"
import * as errors from "./internal/fromError.js"
import { safeGet } from "./internal/json.js"
import * as schemas from "./internal/schemas.js"
import * as truncate from "./internal/truncate.js"
import * as kinds from "./internal/kinds.js"

/** A JSON value, as an Effect Schema (checked iteratively, passed through untouched). */
export const Json = schemas.Json

/** What went wrong, as the model and the agent loop route on it. */
export const Kind = kinds.Kind

/** One of the eight failure kinds. */
export type Kind = kinds.Kind

/** Every kind, in the order of the contract's table. */
export const allKinds = kinds.allKinds

/** The default `retryable` of each kind: whether trying again (usually with other arguments) may succeed. */
export const defaultRetryable = kinds.defaultRetryable

/** Whether `u` is one of the eight kinds. */
export const isKind = kinds.isKind

/** The success envelope's Schema. */
export const Success = schemas.Success

/** A success envelope. */
export type Success = typeof Success.Type

/** The failure envelope's Schema. */
export const Failure = schemas.Failure

/** A failure envelope. */
export type Failure = typeof Failure.Type

/** Either envelope, told apart by `ok`. */
export const Envelope = schemas.Envelope

/** A success or failure envelope. */
export type Envelope = typeof Envelope.Type

/** The envelope as the JSON string the model sees. */
export const EnvelopeFromString = Schema.parseJson(Envelope)

/** One entry of a directory listing; `path` is ready to pass to the next read. */
export const ListingEntry = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  type: Schema.Literal("file", "directory", "symlink", "other")
}).annotations({ identifier: "ToolEnvelope.ListingEntry" })

/** One entry of a directory listing. */
export type ListingEntry = typeof ListingEntry.Type

/** A directory listing result: `entry_count` is how many entries the directory holds, `truncated` whether some are left out. */
export const Listing = Schema.Struct({
  kind: Schema.Literal("listing"),
  path: Schema.String,
  entries: Schema.Array(ListingEntry),
  entry_count: Schema.NonNegativeInt,
  truncated: Schema.Boolean
}).annotations({ identifier: "ToolEnvelope.Listing" })

/** A directory listing result. */
export type Listing = typeof Listing.Type

/** A file content result: 1-based inclusive line range, the file's total lines and size in bytes. */
export const FileContent = Schema.Struct({
  kind: Schema.Literal("file"),
  path: Schema.String,
  text: Schema.String,
  start_line: Schema.NonNegativeInt,
  end_line: Schema.NonNegativeInt,
  total_lines: Schema.NonNegativeInt,
  bytes: Schema.NonNegativeInt,
  truncated: Schema.Boolean
}).annotations({ identifier: "ToolEnvelope.FileContent" })

/** A file content result. */
export type FileContent = typeof FileContent.Type

/** Options every success constructor takes. */
export interface SuccessOptions {
  readonly tool?: string | undefined
  readonly warnings?: ReadonlyArray<string> | undefined
}

/** Builds a success envelope; an empty `warnings` list is left out. */
export const success = (result: J.JsonValue, options?: SuccessOptions): Success => build.success(result, options)

/** A success whose result is `{ "text": text }`, which chat UIs render verbatim. */
export const text = (text: string, options?: SuccessOptions): Success => build.success({ text }, options)

/** Options of `listing`: the directory's real size when `entries` is a prefix of it. */
export interface ListingOptions extends SuccessOptions {
  readonly entryCount?: number | undefined
  readonly truncated?: boolean | undefined
}

/** A directory listing success; `entry_count` defaults to the entries given, `truncated` to whether fewer were given. */
export const listing = (path: string, entries: ReadonlyArray<ListingEntry>, options?: ListingOptions): Success =>
  build.success(build.listing(path, entries, options), options)

/** Options of `file`: where the text sits in the file. */
export interface FileOptions extends SuccessOptions {
  readonly startLine?: number | undefined
  readonly totalLines?: number | undefined
  readonly bytes?: number | undefined
  readonly truncated?: boolean | undefined
}

/**
 * A file content success. The text's lines are counted (a final newline ends a line, it does not
 * start one); by default the text is the whole file, so `total_lines` is its line count and `bytes`
 * its UTF-8 size.
 */
export const file = (path: string, text: string, options?: FileOptions): Success =>
  build.success(build.file(path, text, options), options)

/** Options of a failure: `field`, `expected`, `tool`, and a `retryable` that overrides the kind's default. */
export type FailureOptions = kinds.FailureOptions

/** Builds a failure envelope with `retryable` defaulted by kind. */
export const failure = (kind: Kind, message: string, options?: FailureOptions): Failure => kinds.failure(kind, message, options)

/** A validation issue as `Validator` of `@toolgate/json-schema` reports it. */
export type Issue = Validator.Issue

/**
 * Turns the issues of one call into one `invalid_args` failure. One issue gives its message, field and
 * expected; several are listed in the message (the first 20), with field and expected from the first.
 */
export const fromIssues = (issues: ReadonlyArray<Issue>, tool?: string): Failure => errors.fromIssues(issues, tool)

/**
 * Maps a thrown or failed value to a failure envelope: the runtime's typed errors by tag, a value with a
 * `kind` (a tool failure), Effect's `TimeoutException`, an `Error`, a string; anything else is an
 * `execution_error`. Never throws, whatever the value's getters or `toString` do.
 */
export const fromError = (error: unknown, tool?: string): Failure => errors.fromError(error, tool)

const encodeEither = Schema.encodeEither(Envelope)
const decodeString = Schema.decodeUnknownEither(EnvelopeFromString, { errors: "all" })
const decodeValue = Schema.decodeUnknownEither(Envelope, { errors: "all" })

/**
 * The JSON string the model sees. Total: an envelope whose result is not JSON (a function, a cycle, a
 * `bigint`) becomes an `execution_error` saying so, never an exception.
 */
export const encode = (envelope: Envelope): string => {
  try {
    const encoded = encodeEither(envelope)
    const text = Either.isRight(encoded) ? J.stringify(encoded.right) : undefined
    if (text !== undefined) return text
  } catch {
    // a hostile envelope (throwing getters) falls through to the failure below
  }
  const tool = safeGet(envelope, "tool")
  return JSON.stringify(
    failure("execution_error", "The tool's result could not be encoded as JSON.", {
      tool: typeof tool === "string" ? tool : undefined
    })
  )
}

/** Decodes an envelope from a JSON string or from a parsed value; a value whose getters or traps throw is a `ParseError` too. */
export const decode = (input: unknown): Either.Either<Envelope, ParseResult.ParseError> => {
  try {
    return typeof input === "string" ? decodeString(input) : decodeValue(input)
  } catch {
    return Either.left(
      new ParseResult.ParseError({ issue: new ParseResult.Type(Envelope.ast, undefined, "the value could not be read") })
    )
  }
}

/** What a tool result is: a success (with its payload), a failure (current or legacy form), or neither. */
export type Detected = detect.Detected

/**
 * Classifies a tool result given as a JSON string or a parsed value. Legacy forms count as failures:
 * text starting with `[REJECTED]` (kind `rejected`) or `[TIMEOUT]` (kind `timeout`), and the legacy
 * error object `{ "error": "message" | { "message": "..." }, "kind"?: Kind, "code"?: string,
 * "retryable"?: boolean }` without an `ok` key. Only own data properties are read, so `__proto__` keys
 * and inherited values cannot fake an envelope.
 */
export const classify = detect.classify

/** Whether a tool result is a success envelope. */
export const isSuccess = (input: unknown): boolean => classify(input)._tag === "Success"

/** Whether a tool result is a failure envelope, a legacy error object or a legacy prefixed string. */
export const isError = (input: unknown): boolean => classify(input)._tag === "Failure"

/** The `result` of a success envelope; `None` for anything else (or a success without a result). */
export const successPayload = detect.successPayload

/** The message of a failure; for anything else, the input itself as text. */
export const failureMessage = detect.failureMessage

/** The legacy prefix of a policy rejection. */
export const legacyRejectedPrefix = detect.legacyRejectedPrefix

/** The legacy prefix of a timeout. */
export const legacyTimeoutPrefix = detect.legacyTimeoutPrefix

/**
 * Caps model-bound text at `maxChars` (default 50,000) UTF-16 code units: head and tail kept, the middle
 * replaced by a line such as `[… 12,345 characters omitted …]`. Text that fits comes back unchanged, so
 * truncating twice gives the same result; a surrogate pair is never split.
 */
export const truncateForModel: (text: string, maxChars?: number) => string = truncate.truncateForModel

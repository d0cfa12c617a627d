/**
 * Stored values as JSON text: encoded through their Schema within a size limit, decoded (every row read)
 * back through it. `JSON.stringify` escapes lone surrogates and control characters, so the text is plain
 * ASCII-safe UTF-16 any database keeps byte for byte, and `JSON.parse` gives the same string back; objects
 * keep an own `__proto__` key as data. A value too deep for the engine's stack is a typed error, not a crash.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { SessionStoreError } from "./storeErrors.js"

interface Compiled {
  readonly encode: (value: unknown) => Either.Either<string, ParseResult.ParseError>
  readonly decode: (text: unknown) => Either.Either<unknown, ParseResult.ParseError>
}

const compiledBySchema = new WeakMap<object, Compiled>()

const compiled = (schema: Schema.Schema<any, any>): Compiled => {
  let c = compiledBySchema.get(schema)
  if (c === undefined) {
    const json = Schema.parseJson(schema)
    c = { encode: Schema.encodeEither(json), decode: Schema.decodeUnknownEither(json, { errors: "all" }) }
    compiledBySchema.set(schema, c)
  }
  return c
}

/** The first issues of a parse error, short enough for an error message. */
const describe = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).slice(0, 3)
  return issues.map((i) => `${i.path.length > 0 ? `at ${i.path.join(".")}: ` : ""}${i.message}`).join("; ").slice(0, 600)
}

const thrown = (e: unknown): string => e instanceof Error ? `${e.name}: ${e.message}` : "an exception"

/** Where an encode or decode happens, for its error. */
export interface Site {
  readonly session: string
  readonly operation: string
}

/** `value` as JSON text through `schema`, at most `limit` characters. */
export const encode = <A, I>(schema: Schema.Schema<A, I>, value: A, limit: number, site: Site): Effect.Effect<string, SessionStoreError> =>
  Effect.suspend(() => {
    let result: Either.Either<string, ParseResult.ParseError>
    try {
      result = compiled(schema).encode(value)
    } catch (e) {
      return Effect.fail(new SessionStoreError({ ...site, detail: `a value could not be encoded (${thrown(e)})` }))
    }
    if (Either.isLeft(result)) return Effect.fail(new SessionStoreError({ ...site, detail: `a value is not storable: ${describe(result.left)}` }))
    if (result.right.length > limit) {
      return Effect.fail(new SessionStoreError({ ...site, detail: `a value of ${result.right.length} characters is over the limit of ${limit}` }))
    }
    return Effect.succeed(result.right)
  })

/** A stored row's JSON text decoded through `schema`; anything else (not text, not JSON, not the schema) is a `SessionStoreError`. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, text: unknown, site: Site): Effect.Effect<A, SessionStoreError> =>
  Effect.suspend(() => {
    if (typeof text !== "string") return Effect.fail(new SessionStoreError({ ...site, detail: `a stored value is corrupted (${typeof text}, not JSON text)` }))
    let result: Either.Either<unknown, ParseResult.ParseError>
    try {
      result = compiled(schema).decode(text)
    } catch (e) {
      return Effect.fail(new SessionStoreError({ ...site, detail: `a stored value could not be decoded (${thrown(e)})` }))
    }
    return Either.isLeft(result)
      ? Effect.fail(new SessionStoreError({ ...site, detail: `a stored value is corrupted: ${describe(result.left)}` }))
      : Effect.succeed(result.right as A)
  })

/** Encodes every value of `values` (in order). */
export const encodeAll = <A, I>(schema: Schema.Schema<A, I>, values: ReadonlyArray<A>, limit: number, site: Site): Effect.Effect<Array<string>, SessionStoreError> =>
  Effect.forEach(values, (v) => encode(schema, v, limit, site))

/**
 * Decoding at the edge: options as they are given where a service, provider or session is made: decoded once, there, by one
 * Schema each, and what does not decode is always `Errors.InvalidOptions` (never a default taken in
 * silence, never a defect). The schemas every HTTP client of the project shares live here too.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidOptions } from "./Errors.js"

/** Decodes options with `schema`; what fails is an `InvalidOptions` naming `of` (what was being made). */
export const options = <A, I>(of: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })
  return (options: unknown): Effect.Effect<A, InvalidOptions> =>
    Effect.mapError(decode(options), (e) => new InvalidOptions({ of, detail: ParseResult.TreeFormatter.formatErrorSync(e) }))
}

/** Whether `u` parses as an absolute http: or https: URL. */
const isHttpUrl = (u: string): boolean => {
  try {
    const { protocol } = new URL(u)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}

/** An absolute http: or https: URL, as given. */
export const HttpUrl = Schema.String.pipe(Schema.filter(isHttpUrl, { message: () => "an absolute http: or https: URL" }))

/** A duration from what a caller gave, `undefined` when it is not one (`Duration.decode` throws on those). */
const durationOf = (input: unknown): Duration.Duration | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  try {
    return Duration.decode(input as Duration.DurationInput)
  } catch {
    return undefined
  }
}

const durationInput = (positive: boolean) =>
  Schema.transformOrFail(Schema.Unknown, Schema.DurationFromSelf, {
    strict: true,
    decode: (u, _, ast) => {
      const d = durationOf(u)
      return d === undefined || (positive && Duration.isZero(d))
        ? ParseResult.fail(new ParseResult.Type(ast, u, positive ? "a positive duration" : "a duration"))
        : ParseResult.succeed(d)
    },
    encode: ParseResult.succeed
  })

/** A `Duration.DurationInput` (`"5 seconds"`, millis, a `Duration`) decoded into a `Duration`. */
export const DurationInput = durationInput(false)

/** A `Duration.DurationInput` that is more than zero (a zero timeout would fail every request). */
export const PositiveDuration = durationInput(true)

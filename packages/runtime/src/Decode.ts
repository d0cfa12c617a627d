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

/**
 * Decodes options with `schema`; what fails is an `InvalidOptions` naming `of` (what was being made), options
 * that cannot even be read (a throwing getter or proxy trap) included.
 */
export const options = <A, I>(of: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })
  return (options: unknown): Effect.Effect<A, InvalidOptions> =>
    Effect.suspend(() => decode(options)).pipe(
      Effect.mapError((e) => new InvalidOptions({ of, detail: ParseResult.TreeFormatter.formatErrorSync(e) })),
      Effect.catchAllDefect((defect) =>
        Effect.fail(new InvalidOptions({ of, detail: `the options could not be read: ${defect instanceof Error ? defect.message : String(defect)}` }))
      )
    )
}

/** Whether `u` parses as an absolute http: or https: URL (the one check every client and the CLI use). */
export const isHttpUrl = (u: string): boolean => {
  try {
    const { protocol } = new URL(u)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}

/** An absolute http: or https: URL, as given. */
export const HttpUrl = Schema.String.pipe(Schema.filter(isHttpUrl, { message: () => "an absolute http: or https: URL" }))

/** Whether `input` holds a negative number, which `Duration.decode` would take as zero without a word. */
const negative = (input: unknown): boolean =>
  (typeof input === "number" || typeof input === "bigint") ? input < 0 : Array.isArray(input) && input.some((n) => typeof n === "number" && n < 0)

/** A duration from what a caller gave, `undefined` when it is not one (`Duration.decode` throws on those) or is negative. */
const durationOf = (input: unknown): Duration.Duration | undefined => {
  if ((typeof input === "number" && Number.isNaN(input)) || negative(input)) return undefined
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
      return d === undefined || (positive && (Duration.isZero(d) || !Duration.isFinite(d)))
        ? ParseResult.fail(new ParseResult.Type(ast, u, positive ? "a positive, finite duration" : "a duration, not negative"))
        : ParseResult.succeed(d)
    },
    encode: ParseResult.succeed
  })

/** A `Duration.DurationInput` (`"5 seconds"`, millis, a `Duration`) decoded into a `Duration`; a negative one is refused. */
export const DurationInput = durationInput(false)

/** A `Duration.DurationInput` more than zero and finite: a timeout (zero would fail every request, infinity wait for ever). */
export const PositiveDuration = durationInput(true)

/**
 * Decoding at the edge: options as they are given where a service, provider or session is made: decoded once, there, by one
 * Schema each, and what does not decode is always `Errors.InvalidOptions` (never a default taken in
 * silence, never a defect). The schemas every HTTP client of the project shares live here too.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidOptions } from "./Errors.js"

/** Whether a decoding stopped because the Schema needs an effect to decode (`Forbidden` in the synchronous decoder). */
const needsEffect = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Forbidden":
      return true
    case "Composite":
      return Array.isArray(issue.issues) ? issue.issues.some(needsEffect) : needsEffect(issue.issues as ParseResult.ParseIssue)
    case "Pointer":
    case "Refinement":
    case "Transformation":
      return needsEffect(issue.issue)
    default:
      return false
  }
}

/**
 * Decodes options with `schema`; what fails is an `InvalidOptions` naming `of` (what was being made), options
 * that cannot even be read (a throwing getter or proxy trap) included. Options Schemas decode synchronously:
 * each value is decoded in one call, with no effect built for it; a Schema that needs an effect to decode
 * is decoded as an effect.
 */
export const options = <A, I>(of: string, schema: Schema.Schema<A, I>) => {
  const parse = { errors: "all", onExcessProperty: "ignore" } as const
  const decodeNow = Schema.decodeUnknownEither(schema, parse)
  const decode = Schema.decodeUnknown(schema, parse)
  const invalid = (e: ParseResult.ParseError) => new InvalidOptions({ of, detail: ParseResult.TreeFormatter.formatErrorSync(e) })
  const unreadable = (defect: unknown) =>
    new InvalidOptions({ of, detail: `the options could not be read: ${defect instanceof Error ? defect.message : String(defect)}` })
  return (options: unknown): Effect.Effect<A, InvalidOptions> =>
    Effect.suspend(() => {
      try {
        // reading the options and describing what is wrong with them both read the caller's value
        const decoded = decodeNow(options)
        if (Either.isRight(decoded)) return Effect.succeed(decoded.right)
        if (!needsEffect(decoded.left.issue)) return Effect.fail(invalid(decoded.left))
      } catch (defect) {
        return Effect.fail(unreadable(defect))
      }
      return Effect.suspend(() => decode(options)).pipe(
        Effect.mapError(invalid),
        Effect.catchAllDefect((defect) => Effect.fail(unreadable(defect)))
      )
    })
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

/** The bad values of a `ConfigError` as `KEY: message` lines (none when it only reports missing data). */
const badValues = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    orCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [path.length === 0 ? message : `${path.join(".")}: ${message}`],
    missingDataCase: () => [],
    sourceUnavailableCase: () => [],
    unsupportedCase: () => []
  })

/** A `ParseError`'s messages on one line, each naming its option: `Expected … (option \`maxToolArgumentRepairs\`)`. */
const issues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.message} (option \`${issue.path.join(".")}\`)`).join("; ")

/** One option's config, checked by its field of the options Schema; an option the Schema may leave out may be absent. */
const field = (key: string, schema: Schema.Struct.Field, config: Config.Config<unknown>): Config.Config<unknown> => {
  const decode = Schema.decodeUnknownEither(Schema.Struct({ [key]: schema }) as unknown as Schema.Schema<unknown>, { errors: "all" })
  const checked = Config.mapOrFail(config, (value) =>
    Either.match(decode({ [key]: value }), {
      onLeft: (e) => Either.left(ConfigError.InvalidData([], issues(e))),
      onRight: () => Either.right(value)
    }))
  return Either.isRight(decode({})) ? Config.withDefault(checked, undefined) : checked
}

/**
 * Options read from config, where the app names the keys: `config` gives a `Config` per option (a
 * `Config.Wrap`, e.g. `{ baseUrl: Config.string("MY_URL") }`), and each value read is checked by that
 * option's field of `schema`, the Schema given options decode with. An option the Schema may leave out may
 * be absent from config (its default applies); a missing required key is the `ConfigError` that says so. A
 * value that is not of its type, or that the Schema refuses, is `InvalidOptions` naming its key. The options
 * then go to `make`, which decodes them whole.
 */
export const fromConfig = <O>(
  of: string,
  schema: { readonly fields: Schema.Struct.Fields },
  config: Config.Config.Wrap<O>
): Effect.Effect<O, ConfigError.ConfigError | InvalidOptions> => {
  const read: Config.Config<unknown> = Config.isConfig(config) ? config : Config.all(Object.fromEntries(
    Object.entries(config as Record<string, Config.Config.Wrap<unknown>>).map(([key, wrapped]) => {
      const option = Config.unwrap(wrapped)
      const schemaField = schema.fields[key]
      return [key, schemaField === undefined ? option : field(key, schemaField, option)]
    })
  )).pipe(Config.map((options) => Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))))
  return Effect.catchAll(read, (error) => {
    const bad = badValues(error)
    return Effect.fail(bad.length === 0 ? error : new InvalidOptions({ of, detail: `from config: ${bad.join("; ")}` }))
  }) as Effect.Effect<O, ConfigError.ConfigError | InvalidOptions>
}

/**
 * The limits of one turn: how many argument repairs it may spend (`maxToolArgumentRepairs`, default 1),
 * how many provider round trips it may make (`maxProviderRoundTrips`, default 10), its deadline, how many
 * calls it and each of its rounds may run, and how many bytes of a tool's answer the model is sent. Given
 * directly, by default, or from config; `RepairBudget.make` turns the first two into a per-turn budget.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Decode from "./Decode.js"
import * as EnvConfig from "./EnvConfig.js"
import * as Errors from "./Errors.js"

/** The least value of each limit: the one table the Schema and the config read. */
export const bounds = {
  maxToolArgumentRepairs: 0,
  maxProviderRoundTrips: 1,
  turnDeadlineMillis: 1,
  maxToolCallsPerTurn: 0,
  maxToolCallsPerRound: 1,
  maxToolResultBytes: 1024
} as const

/** An integer of at least `bounds[key]`. */
const atLeast = (key: keyof typeof bounds) => Schema.Int.pipe(Schema.greaterThanOrEqualTo(bounds[key]))

/** The limits as a Schema: each an integer of at least its `bounds`; absent keys take the defaults. */
export const Limits = Schema.Struct({
  maxToolArgumentRepairs: Schema.optionalWith(atLeast("maxToolArgumentRepairs"), { exact: true, default: () => 1 }),
  maxProviderRoundTrips: Schema.optionalWith(atLeast("maxProviderRoundTrips"), { exact: true, default: () => 10 }),
  /** How long a whole turn may take, in milliseconds (absent: `defaultTurnDeadlineMillis`, 10 minutes). */
  turnDeadlineMillis: Schema.optionalWith(atLeast("turnDeadlineMillis"), { exact: true }),
  /** Provider-driven: the most tool calls the provider may start in one turn (absent: no limit); one more is a contract violation. */
  maxToolCallsPerTurn: Schema.optionalWith(atLeast("maxToolCallsPerTurn"), { exact: true }),
  /**
   * App-driven: the most calls of one round that run (absent: `defaultMaxToolCallsPerRound`, 64); the calls
   * after them are answered `rejected` (retryable) and not run.
   */
  maxToolCallsPerRound: Schema.optionalWith(atLeast("maxToolCallsPerRound"), { exact: true }),
  /**
   * The most UTF-8 bytes of a tool's envelope the model is sent (at least 1,024; absent:
   * `defaultMaxToolResultBytes`, 100,000); a larger result is cut head + tail for the model, and the whole
   * result stays in the turn's `calls`.
   */
  maxToolResultBytes: Schema.optionalWith(atLeast("maxToolResultBytes"), { exact: true })
}).annotations({ identifier: "RunLimits" })

/** A turn's deadline when the limits give none: 10 minutes. */
export const defaultTurnDeadlineMillis = 600_000

/** The calls of one app-driven round that run when the limits give no `maxToolCallsPerRound`: 64. */
export const defaultMaxToolCallsPerRound = 64

/** The bytes of a tool envelope the model is sent when the limits give no `maxToolResultBytes`: 100,000. */
export const defaultMaxToolResultBytes = 100_000

/** The limits of a turn. */
export type Limits = typeof Limits.Type

/** The limits as given: either key may be left out. */
export type Input = typeof Limits.Encoded

/** The turn limits of the application. */
export class RunLimits extends Context.Tag("@toolgate/runtime/RunLimits")<RunLimits, Limits>() {}

/** One repair and ten round trips per turn. */
export const defaults: Limits = { maxToolArgumentRepairs: 1, maxProviderRoundTrips: 10 }

const decode = Schema.decodeUnknownEither(Limits, { errors: "all" })

/** Limits from a caller's values, defaults filling the gaps; never throws, whatever `input` is. */
export const make = (input: Input = {}): Either.Either<Limits, Errors.InvalidRunLimits> => {
  try {
    return Either.mapLeft(decode(input), (e) => new Errors.InvalidRunLimits({ detail: ParseResult.TreeFormatter.formatErrorSync(e) }))
  } catch {
    return Either.left(new Errors.InvalidRunLimits({ detail: "the limits could not be read" }))
  }
}

/** The default limits. */
export const layer: Layer.Layer<RunLimits> = Layer.succeed(RunLimits, defaults)

/**
 * The limits read from config while the layer is built, under the keys the app names:
 * `layerConfig({ maxToolArgumentRepairs: Config.integer("MY_REPAIRS") })`; a key left unset takes the
 * default. A value the `Limits` Schema refuses is `InvalidRunLimits` naming its key.
 */
export const layerConfig = (config: Config.Config.Wrap<Input>): Layer.Layer<RunLimits, ConfigError.ConfigError | Errors.InvalidRunLimits> =>
  Layer.effect(
    RunLimits,
    Decode.fromConfig("RunLimits", Limits, config).pipe(
      Effect.catchTag("InvalidOptions", (e) => Effect.fail(new Errors.InvalidRunLimits({ detail: e.detail }))),
      Effect.flatMap(make)
    )
  )

const env = EnvConfig.names.RunLimits

/**
 * `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.RunLimits`): `TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS`,
 * `TOOLGATE_MAX_PROVIDER_ROUND_TRIPS`, `TOOLGATE_TURN_DEADLINE_MS`, `TOOLGATE_MAX_TOOL_CALLS_PER_TURN`,
 * `TOOLGATE_MAX_TOOL_CALLS_PER_ROUND`, `TOOLGATE_MAX_TOOL_RESULT_BYTES`.
 */
export const layerEnv: Layer.Layer<RunLimits, ConfigError.ConfigError | Errors.InvalidRunLimits> = layerConfig({
  maxToolArgumentRepairs: Config.integer(env.maxToolArgumentRepairs),
  maxProviderRoundTrips: Config.integer(env.maxProviderRoundTrips),
  turnDeadlineMillis: Config.integer(env.turnDeadlineMillis),
  maxToolCallsPerTurn: Config.integer(env.maxToolCallsPerTurn),
  maxToolCallsPerRound: Config.integer(env.maxToolCallsPerRound),
  maxToolResultBytes: Config.integer(env.maxToolResultBytes)
})

/** The limits given directly (a typed `InvalidRunLimits` when they are not valid). */
export const layerWith = (input: Input): Layer.Layer<RunLimits, Errors.InvalidRunLimits> => Layer.effect(RunLimits, make(input))

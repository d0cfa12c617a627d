/**
 * The relay's profile over HTTP: `GET {baseUrl}/v1/agent/capabilities`, decoded with Schema and classified
 * as the wire contract says (`Exported` · `Predates` · `Unreachable`, or a `RelayProfileContractError`),
 * served as the runtime's `RelayProfile` service that `DriftGate` reads. The probe is single-flight and
 * cached: concurrent first callers share one request, an answer from the relay (`Exported` or `Predates`)
 * is kept for a time to live, and neither a failure, an `Unreachable` nor an interrupted caller is ever
 * cached (the next call asks again).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Decode, EnvConfig, Errors, RelayProfile, Telemetry } from "@toolgate/runtime"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { classify, Envelope, malformed } from "./internal/relayProfileWire.js"
import { transportCause } from "./internal/transport.js"

/** Where the relay is, how long to wait for it, and how long an answer is kept. */
export interface Options {
  readonly baseUrl: string
  /** Per probe, connecting and reading the body included (default 5 seconds). */
  readonly timeout?: Duration.DurationInput
  /** How long an `Exported` or `Predates` answer is kept (default 5 minutes). */
  readonly timeToLive?: Duration.DurationInput
  /** The largest body read (default 16 MiB): the body is read as a stream and reading stops past it. */
  readonly maxBodyBytes?: number
}

/** The default body limit: 16 MiB, far above any real profile. */
export const defaultMaxBodyBytes = 16 * 1024 * 1024

/** Reads a body as a stream, stopping (typed) as soon as it passes `max` bytes; the text as UTF-8. */
const readBounded = (response: HttpClientResponse.HttpClientResponse, max: number) =>
  response.stream.pipe(
    Stream.runFoldEffect({ parts: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
      const size = acc.size + chunk.length
      if (size > max) {
        return Effect.fail(new Errors.RelayProfileContractError({ reason: "malformed", detail: `the body is larger than ${max} bytes (the limit); reading stopped there` }))
      }
      acc.parts.push(chunk)
      return Effect.succeed({ parts: acc.parts, size })
    }),
    Effect.map(({ parts, size }) => {
      const all = new Uint8Array(size)
      let at = 0
      for (const part of parts) {
        all.set(part, at)
        at += part.length
      }
      return new TextDecoder().decode(all)
    })
  )

/** The body's JSON, or the contract error of a body that is not JSON. */
const parseJson = (text: string, status: number): Effect.Effect<unknown, Errors.RelayProfileContractError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => new Errors.RelayProfileContractError({ reason: "malformed", detail: `HTTP ${status} with a body that is not JSON` })
  })

/** The path of the relay's profile under its base URL (the wire's name for it). */
export const path = "/v1/agent/capabilities"

/** The options as a Schema (defaults filled in): an http(s) base URL, durations that are durations, a positive byte limit. */
const Settings = Schema.Struct({
  baseUrl: Decode.HttpUrl,
  timeout: Schema.optionalWith(Decode.PositiveDuration, { exact: true, default: () => Duration.seconds(5) }),
  timeToLive: Schema.optionalWith(Decode.DurationInput, { exact: true, default: () => Duration.minutes(5) }),
  maxBodyBytes: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true, default: () => defaultMaxBodyBytes })
})

const decodeSettings = Decode.options("RelayProfileClient", Settings)

/** Builds the service; its cached probe lives in the surrounding scope (the layer's). Options that are not valid fail with `InvalidOptions`. */
export const make = (options: Options): Effect.Effect<RelayProfile.Service, Errors.InvalidOptions, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const { maxBodyBytes, timeToLive, timeout, ...settings } = yield* decodeSettings(options)
    const baseUrl = settings.baseUrl.replace(/\/+$/, "")
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => request.pipe(HttpClientRequest.prependUrl(baseUrl), HttpClientRequest.acceptJson)),
      HttpClient.filterStatusOk
    )
    const fetch = Effect.gen(function*() {
      const response = yield* client.get(path)
      const text = yield* readBounded(response, maxBodyBytes)
      const body = yield* Effect.flatMap(parseJson(text, response.status), decodeEnvelopeEffect)
      const wire = yield* classify(body)
      return wire._tag === "Exported" ? RelayProfile.Probe.Exported(wire) : RelayProfile.Probe.Predates()
    }).pipe(
      Effect.timeout(timeout),
      Effect.catchTags({
        TimeoutException: () => Effect.succeed(RelayProfile.Probe.Unreachable({ cause: `no answer within ${Duration.format(timeout)}` })),
        RequestError: (e) => Effect.succeed(RelayProfile.Probe.Unreachable({ cause: transportCause(e) })),
        ResponseError: responseFailure,
        ParseError: (e) => Effect.fail(malformed(e))
      }),
      Telemetry.span("RelayProfileClient.fetch", { "url.full": `${baseUrl}${path}` })
    )
    const scope = yield* Effect.scope
    const [cached, invalidate] = yield* Effect.cachedInvalidateWithTTL(
      Effect.forkIn(fetch, scope),
      timeToLive
    )
    // Every joiner of a failed fiber sees the failure; only the first invalidates, so a late joiner cannot
    // drop the fiber of a newer probe.
    const invalidated = new WeakSet<Fiber.RuntimeFiber<RelayProfile.Probe, Errors.RelayProfileContractError>>()
    const drop = (fiber: Fiber.RuntimeFiber<RelayProfile.Probe, Errors.RelayProfileContractError>) =>
      Effect.suspend(() => {
        if (invalidated.has(fiber)) return Effect.void
        invalidated.add(fiber)
        return invalidate
      })
    const probe = Effect.fnUntraced(function*() {
      let fiber = yield* cached
      // A failure no caller saw (its only caller was interrupted) is still in the cache: drop it, ask again.
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done) && !keeps(done.value)) {
        yield* drop(fiber)
        fiber = yield* cached
      }
      // Awaiting (not joining under `tapErrorCause`): an interrupted caller leaves the fiber and cache alone.
      const exit = yield* Fiber.await(fiber)
      if (!keeps(exit)) yield* drop(fiber)
      return yield* exit
    }, Telemetry.span("RelayProfileClient.probe"))
    return RelayProfile.RelayProfile.of({ probe })
  })

const decodeEnvelope = Schema.decodeUnknownEither(Envelope, { errors: "all" })
const decodeEnvelopeEffect = Schema.decodeUnknown(Envelope, { errors: "all" })

/**
 * A profile body read without HTTP (a file, a recorded response), classified exactly as `probe`
 * classifies the relay's answer: `Exported`, `Predates`, or a `RelayProfileContractError`.
 */
export const fromBody = (body: unknown): Either.Either<RelayProfile.Probe, Errors.RelayProfileContractError> =>
  Either.flatMap(
    Either.mapLeft(decodeEnvelope(body), malformed),
    (envelope) => Either.map(classify(envelope), (wire) => wire._tag === "Exported" ? RelayProfile.Probe.Exported(wire) : RelayProfile.Probe.Predates())
  )

/** The service for `options`, over the `HttpClient` in context. */
export const layerWith = (options: Options): Layer.Layer<RelayProfile.RelayProfile, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.scoped(RelayProfile.RelayProfile, make(options))

/**
 * The service with its options read from config while the layer is built, under the keys the app names:
 * `layerConfig({ baseUrl: Config.string("RELAY_URL"), timeToLive: Config.duration("PROFILE_TTL") })`.
 * A value the options' Schema refuses is `InvalidOptions` naming its key.
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<RelayProfile.RelayProfile, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.scoped(RelayProfile.RelayProfile, Effect.flatMap(readConfig(config), make))

/** Options read from config under the app's keys (the keys `config` gives, checked as `make` checks them); `CloudRelay.layerConfig` reads the probe's this way. */
export const readConfig = <O extends Partial<Options>>(config: Config.Config.Wrap<O>): Effect.Effect<O, ConfigError.ConfigError | Errors.InvalidOptions> =>
  Decode.fromConfig("RelayProfileClient", Settings, config)

const env = EnvConfig.names.RelayProfileClient

/** The probe's timeout and time to live under their `TOOLGATE_*` names (`CloudRelay.layerEnv` reads them too). */
export const envTuning: Config.Config.Wrap<Omit<Options, "baseUrl">> = {
  timeout: Config.duration(env.timeout),
  timeToLive: Config.duration(env.timeToLive)
}

/** `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.RelayProfileClient`): `TOOLGATE_RELAY_URL`, `TOOLGATE_RELAY_PROFILE_TIMEOUT`, `TOOLGATE_RELAY_PROFILE_TTL`. */
export const layerEnv: Layer.Layer<RelayProfile.RelayProfile, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> = layerConfig({
  baseUrl: Config.string(env.baseUrl),
  ...envTuning
})

/** Whether a finished probe is an answer from the relay, kept for the time to live (not a failure or `Unreachable`). */
const keeps = (exit: Exit.Exit<RelayProfile.Probe, Errors.RelayProfileContractError>): boolean =>
  Exit.isSuccess(exit) && exit.value._tag !== "Unreachable"

/**
 * A non-2xx status or a body that could not be read: 404, 408, 429 and 5xx degrade, and so does a connection
 * that broke while the body was read (a network failure); any other status, or a body that arrived whole but
 * is not JSON, breaks the contract.
 */
const responseFailure = (e: HttpClientError.ResponseError): Effect.Effect<RelayProfile.Probe, Errors.RelayProfileContractError> => {
  const status = e.response.status
  if (e.reason !== "StatusCode") {
    if (!(e.cause instanceof SyntaxError)) {
      return Effect.succeed(RelayProfile.Probe.Unreachable({ cause: `the connection broke off while the body was read (HTTP ${status})` }))
    }
    return Effect.fail(new Errors.RelayProfileContractError({ reason: "malformed", detail: `HTTP ${status} with a body that is not JSON` }))
  }
  if (status === 404 || status === 408 || status === 429 || status >= 500) {
    return Effect.succeed(RelayProfile.Probe.Unreachable({ cause: `HTTP ${status}` }))
  }
  return Effect.fail(new Errors.RelayProfileContractError({ reason: "malformed", detail: `HTTP ${status} instead of the capabilities envelope` }))
}


/**
 * The relay's capabilities: `GET {baseUrl}/v1/agent/capabilities`, decoded with Schema and classified as
 * the wire contract says (`Exported` · `Predates` · `Unreachable`, or a `CapabilitiesContractError`).
 * The probe is single-flight and cached: concurrent first callers share one request, an answer from the
 * relay (`Exported` or `Predates`) is kept for a time to live, and neither a failure, an `Unreachable`
 * nor an interrupted caller is ever cached (the next call asks again).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { JsonSchema } from "@toolgate/json-schema"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
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
import * as Errors from "./Errors.js"
import * as Decode from "./Decode.js"
import { CapabilitiesContractError, transportCause } from "./Errors.js"
import { classify, Envelope, malformed } from "./internal/capabilitiesWire.js"
import * as Telemetry from "./Telemetry.js"

/** What the relay said: its exported tool schemas, that it predates the export, or nothing usable. */
export type Probe = Data.TaggedEnum<{
  /** The relay exports its resolved tool schemas (by tool name, as sent: not yet upgraded). */
  Exported: { readonly version: string; readonly toolSchemas: ReadonlyMap<string, JsonSchema.JsonSchema> }
  /** The relay answered without either key: it predates the export. */
  Predates: {}
  /** No answer: a network error, a timeout, a 404, 408, 429 or 5xx (`cause` says which). */
  Unreachable: { readonly cause: string }
}>

/** Constructors and matchers of `Probe`. */
export const Probe = Data.taggedEnum<Probe>()

/** The capabilities service: one traced, single-flight, cached probe. */
export interface Service {
  readonly probe: () => Effect.Effect<Probe, CapabilitiesContractError>
}

/** The capabilities service tag. */
export class Capabilities extends Context.Tag("@toolgate/runtime/Capabilities")<Capabilities, Service>() {}

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
        return Effect.fail(new CapabilitiesContractError({ reason: "malformed", detail: `the body is larger than ${max} bytes (the limit); reading stopped there` }))
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
const parseJson = (text: string, status: number): Effect.Effect<unknown, CapabilitiesContractError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => new CapabilitiesContractError({ reason: "malformed", detail: `HTTP ${status} with a body that is not JSON` })
  })

/** The path of the capabilities endpoint under the base URL. */
export const path = "/v1/agent/capabilities"

/** The options as a Schema (defaults filled in): an http(s) base URL, durations that are durations, a positive byte limit. */
const Settings = Schema.Struct({
  baseUrl: Decode.HttpUrl,
  timeout: Schema.optionalWith(Decode.PositiveDuration, { exact: true, default: () => Duration.seconds(5) }),
  timeToLive: Schema.optionalWith(Decode.DurationInput, { exact: true, default: () => Duration.minutes(5) }),
  maxBodyBytes: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true, default: () => defaultMaxBodyBytes })
})

const decodeSettings = Decode.options("Capabilities", Settings)

/** Builds the service; its cached probe lives in the surrounding scope (the layer's). Options that are not valid fail with `InvalidOptions`. */
export const make = (options: Options): Effect.Effect<Service, Errors.InvalidOptions, HttpClient.HttpClient | Scope.Scope> =>
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
      return wire._tag === "Exported" ? Probe.Exported(wire) : Probe.Predates()
    }).pipe(
      Effect.timeout(timeout),
      Effect.catchTags({
        TimeoutException: () => Effect.succeed(Probe.Unreachable({ cause: `no answer within ${Duration.format(timeout)}` })),
        RequestError: (e) => Effect.succeed(Probe.Unreachable({ cause: transportCause(e) })),
        ResponseError: responseFailure,
        ParseError: (e) => Effect.fail(malformed(e))
      }),
      Telemetry.span("Capabilities.fetch", { "url.full": `${baseUrl}${path}` })
    )
    const scope = yield* Effect.scope
    const [cached, invalidate] = yield* Effect.cachedInvalidateWithTTL(
      Effect.forkIn(fetch, scope),
      timeToLive
    )
    // Every joiner of a failed fiber sees the failure; only the first invalidates, so a late joiner cannot
    // drop the fiber of a newer probe.
    const invalidated = new WeakSet<Fiber.RuntimeFiber<Probe, CapabilitiesContractError>>()
    const drop = (fiber: Fiber.RuntimeFiber<Probe, CapabilitiesContractError>) =>
      Effect.suspend(() => {
        if (invalidated.has(fiber)) return Effect.void
        invalidated.add(fiber)
        return invalidate
      })
    const probe = Effect.fn("Capabilities.probe")(function*() {
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
    })
    return Capabilities.of({ probe })
  })

const decodeEnvelope = Schema.decodeUnknownEither(Envelope, { errors: "all" })
const decodeEnvelopeEffect = Schema.decodeUnknown(Envelope, { errors: "all" })

/**
 * A capabilities body read without HTTP (a file, a recorded response), classified exactly as `probe`
 * classifies the relay's answer: `Exported`, `Predates`, or a `CapabilitiesContractError`.
 */
export const fromBody = (body: unknown): Either.Either<Probe, CapabilitiesContractError> =>
  Either.flatMap(
    Either.mapLeft(decodeEnvelope(body), malformed),
    (envelope) => Either.map(classify(envelope), (wire) => wire._tag === "Exported" ? Probe.Exported(wire) : Probe.Predates())
  )

/** The service for `options`, over the `HttpClient` in context. */
export const layerWith = (options: Options): Layer.Layer<Capabilities, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.scoped(Capabilities, make(options))

/** The options from config: `TOOLGATE_RELAY_URL`, `TOOLGATE_CAPABILITIES_TIMEOUT` (5 s), `TOOLGATE_CAPABILITIES_TTL` (5 min). */
export const config: Config.Config<Options> = Config.all({
  baseUrl: Config.url("TOOLGATE_RELAY_URL").pipe(Config.map((url) => url.href)),
  timeout: Config.duration("TOOLGATE_CAPABILITIES_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
  timeToLive: Config.duration("TOOLGATE_CAPABILITIES_TTL").pipe(Config.withDefault(Duration.minutes(5)))
})

/** The service with its options read from `config` while the layer is built. */
export const layerConfig: Layer.Layer<Capabilities, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> = Layer.scoped(
  Capabilities,
  Effect.flatMap(config, make)
)

/** Whether a finished probe is an answer from the relay, kept for the time to live (not a failure or `Unreachable`). */
const keeps = (exit: Exit.Exit<Probe, CapabilitiesContractError>): boolean =>
  Exit.isSuccess(exit) && exit.value._tag !== "Unreachable"

/**
 * A non-2xx status or a body that could not be read: 404, 408, 429 and 5xx degrade, and so does a connection
 * that broke while the body was read (a network failure); any other status, or a body that arrived whole but
 * is not JSON, breaks the contract.
 */
const responseFailure = (e: HttpClientError.ResponseError): Effect.Effect<Probe, CapabilitiesContractError> => {
  const status = e.response.status
  if (e.reason !== "StatusCode") {
    if (!(e.cause instanceof SyntaxError)) {
      return Effect.succeed(Probe.Unreachable({ cause: `the connection broke off while the body was read (HTTP ${status})` }))
    }
    return Effect.fail(new CapabilitiesContractError({ reason: "malformed", detail: `HTTP ${status} with a body that is not JSON` }))
  }
  if (status === 404 || status === 408 || status === 429 || status >= 500) {
    return Effect.succeed(Probe.Unreachable({ cause: `HTTP ${status}` }))
  }
  return Effect.fail(new CapabilitiesContractError({ reason: "malformed", detail: `HTTP ${status} instead of the capabilities envelope` }))
}


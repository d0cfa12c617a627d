/**
 * The cloud-profile provider: the relay owns the tool schemas and the model, the app owns the executors.
 * Each round trip POSTs the conversation and the tool NAMES to `{baseUrl}/v1/agent/turns` and streams the
 * relay's `StreamEvent`s back (server-sent events, `RelayWire`). A relay that fails, hangs or breaks off
 * ends the stream with a `ProviderError` saying whether trying again may help; it never hangs the turn:
 * the answer must start within `timeout`, the body may not go quiet for longer than `idleTimeout`, and a round
 * is bounded in time and bytes (`Bounded.Options`).
 *
 * `layerWith` also provides the relay's profile probe (`RelayProfileClient`, same base URL), so `DriftGate.layer`
 * can sit on top and prove the relay's schemas against the local tools before the first round trip.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Decode, EnvConfig, Provider, type RelayProfile, Telemetry } from "@toolgate/runtime"
import type { Errors, StreamEvent } from "@toolgate/runtime"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Bounded from "./internal/boundedStream.js"
import * as Http from "./internal/relayHttp.js"
import * as RelayProfileClient from "./RelayProfileClient.js"
import * as RelayWire from "./RelayWire.js"

/** Where the relay is, how long to wait for it and how much to take from it (see `Bounded.Options` for the round's bounds). */
export interface Options extends Bounded.Options {
  /** The relay's base URL (http or https; a path prefix is kept): `http://127.0.0.1:8787`. */
  readonly baseUrl: string
  /** Per request, to the answer's first byte (its status and headers); default 30 seconds. */
  readonly timeout?: Duration.DurationInput
  /**
   * The largest request body the relay accepts, in UTF-8 bytes of the JSON request; default 1 MiB (the reference
   * relay's limit). The history is trimmed to fit: by the session's context window (derived from it unless
   * `capabilities` sets one), then by bytes, the oldest whole turns left out until the request fits. A request
   * whose current turn alone is larger is not sent: the round fails with `code: "request_too_large"`, as a 413
   * from the relay does.
   */
  readonly maxRequestBytes?: number
  /** What this relay's model does beyond the defaults below, e.g. a relay whose model runs tools itself (`providerDriven`). */
  readonly capabilities?: Provider.CapabilityOverrides
}

/** The reference relay's request body limit, and the default `maxRequestBytes`. */
export const defaultMaxRequestBytes = 1024 * 1024

/** The options as a Schema (defaults filled in). */
const OptionsSchema = Schema.Struct({
  baseUrl: Decode.HttpUrl,
  timeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.seconds(30) }),
  ...Bounded.fields({ idleTimeout: "60 seconds", roundTimeout: "5 minutes" }),
  maxRequestBytes: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024)), { default: () => defaultMaxRequestBytes }),
  capabilities: Schema.optional(Provider.CapabilityFlags)
})

const decodeOptions = Decode.options("CloudRelay", OptionsSchema)

/**
 * The context window (in the session's estimate: characters / 4) that keeps a request's messages within
 * three quarters of `maxRequestBytes`, leaving the rest for the tool names, the system prompt and text that
 * takes more than a byte per character.
 */
export const contextWindowFor = (maxRequestBytes: number): number => Math.floor((maxRequestBytes * 3) / 16)

/** What the cloud relay can do, as far as its wire carries it. */
export const capabilities: Provider.ProviderCapabilities = Provider.capabilities({
  name: Http.name,
  // The relay streams the model's calls and the app runs them (app-driven, the default); the model calls
  // tools by the names sent, with the relay's own schemas. Definitions are never sent (names only), so no
  // dialect; the relay states no tool limit, and no context window on the wire (`make` derives one from
  // `maxRequestBytes`); it is stateless per request, and every round trip leaves the process.
  /** A round may hold several calls; their answers go back by call id, so running them together is safe. */
  supportsParallelToolCalls: true,
  /** `toolChoice` is a field of every turns request. */
  supportsToolChoice: true,
  /** The turns request carries `sampling` (and `systemPrompt`) for the relay's model. */
  supportsSamplingConfig: true
})

/** The provider for `options`, over the `HttpClient` in context; options that cannot work fail as `InvalidOptions`. */
export const make = (options: Options): Effect.Effect<Provider.AgentProvider, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const settings = yield* decodeOptions(options)
    const { maxRequestBytes, timeout } = settings
    const baseUrl = settings.baseUrl.replace(/\/+$/, "")
    // No `filterStatusOk`: a failing status is read here, so its error carries the relay's own message.
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.prependUrl(baseUrl), HttpClientRequest.setHeader("accept", "text/event-stream"))
      )
    )
    /** Sends the request; succeeds with an event-stream response, or fails typed within `timeout`. */
    const open = (body: string): Effect.Effect<HttpClientResponse.HttpClientResponse, Errors.ProviderError> =>
      client.post(RelayWire.turnsPath, { body: HttpBody.text(body, "application/json") }).pipe(
        Effect.flatMap((response) => accept(response)),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => Http.noAnswer(timeout) }),
        Effect.catchTags({
          RequestError: (e) => Effect.fail(Http.transportFailure(e)),
          ResponseError: (e) => Effect.fail(Http.bodyFailure(e))
        })
      )
    const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> =>
      Stream.unwrap(Effect.gen(function*() {
        const body = Http.requestBody(request, maxRequestBytes)
        if (Either.isLeft(body)) return Stream.fail(body.left)
        const response = yield* open(body.right)
        const bytes = response.stream.pipe(Stream.catchTag("ResponseError", (e) => Stream.fail(Http.bodyFailure(e))))
        return RelayWire.decodeBlocks(Bounded.events(bytes, settings, Http.failure)).pipe(Bounded.timed(settings, Http.failure))
      })).pipe(Telemetry.streamSpan("CloudRelay.stream", Telemetry.endpoint(Http.name, { url: `${baseUrl}${RelayWire.turnsPath}` })))
    return Provider.Provider.of({
      capabilities: { ...capabilities, contextWindow: contextWindowFor(maxRequestBytes), ...settings.capabilities },
      stream,
      // The relay owns the schemas and receives names only: there is nothing here to warn about or refuse.
      validateTools: () => Effect.succeed([])
    })
  })

/** A 2xx event stream passes; any other status or content type is the `ProviderError` it stands for. */
const accept = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<HttpClientResponse.HttpClientResponse, Errors.ProviderError> => {
  if (response.status < 200 || response.status >= 300) return Http.statusFailure(response)
  const contentType = response.headers["content-type"]
  return Http.isEventStream(contentType) ? Effect.succeed(response) : Http.notEventStream(response)
}

/** The probe's own options (its base URL is the provider's). */
export type ProfileOptions = Omit<RelayProfileClient.Options, "baseUrl">

/** The provider and the relay's profile probe (`RelayProfileClient`, same base URL), so `DriftGate.layer` can sit on top. */
export const layerWith = (
  options: Options,
  profile: ProfileOptions = {}
): Layer.Layer<Provider.Provider | RelayProfile.RelayProfile, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.merge(Layer.effect(Provider.Provider, make(options)), RelayProfileClient.layerWith({ ...profile, baseUrl: options.baseUrl }))

/**
 * `layerWith` with its options read from config while the layer is built, under the keys the app names:
 * `layerConfig({ baseUrl: Config.string("RELAY_URL"), timeout: Config.duration("RELAY_TIMEOUT") })`; the probe's
 * timeout and time to live under `profile`'s keys. A value the options' Schema refuses is `InvalidOptions`
 * naming its key.
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>,
  profile: Config.Config.Wrap<ProfileOptions> = {}
): Layer.Layer<Provider.Provider | RelayProfile.RelayProfile, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const options = yield* Decode.fromConfig("CloudRelay", OptionsSchema, config)
    return layerWith(options, yield* RelayProfileClient.readConfig(profile))
  }))

const env = EnvConfig.names.CloudRelay

/**
 * `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.CloudRelay` and, for the probe,
 * `EnvConfig.names.RelayProfileClient`): `TOOLGATE_RELAY_URL`, `TOOLGATE_RELAY_TIMEOUT`,
 * `TOOLGATE_RELAY_IDLE_TIMEOUT`, `TOOLGATE_RELAY_ROUND_TIMEOUT`, `TOOLGATE_RELAY_PROFILE_TIMEOUT`, `TOOLGATE_RELAY_PROFILE_TTL`.
 */
export const layerEnv: Layer.Layer<
  Provider.Provider | RelayProfile.RelayProfile,
  ConfigError.ConfigError | Errors.InvalidOptions,
  HttpClient.HttpClient
> = layerConfig({
  baseUrl: Config.string(env.baseUrl),
  timeout: Config.duration(env.timeout),
  idleTimeout: Config.duration(env.idleTimeout),
  roundTimeout: Config.duration(env.roundTimeout)
}, RelayProfileClient.envTuning)

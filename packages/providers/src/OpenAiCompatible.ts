/**
 * A provider for any OpenAI-compatible Chat Completions endpoint (OpenAI, llama.cpp's server, vLLM,
 * Ollama): one streamed `POST {baseUrl}/chat/completions` per round trip, its server-sent chunks read into
 * `StreamEvent`s (tool-call deltas assembled by index). The round ends with `Done` at `data: [DONE]`, or
 * at the end of a body whose choice finished; a body cut off before `finish_reason` ends without `Done`,
 * so the session's event-contract stage reports `missing_done`. Failures are `ProviderError`s: a transport error,
 * a timeout, 408, 429 and 5xx may pass when tried again; any other status (with the server's message) and
 * a malformed chunk will not. The API key travels as a bearer header from a `Redacted` and is scrubbed
 * from every server text that reaches an error.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Decode, EnvConfig, Errors, Provider, Telemetry } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Bounded from "./internal/boundedStream.js"
import { bodyMessage, scrubber } from "./internal/chatCompletionsErrors.js"
import { events } from "./internal/chatCompletionsEvents.js"
import { body, modelOf } from "./internal/chatCompletionsRequest.js"
import * as Round from "./internal/streamedRound.js"

/**
 * Where the endpoint is, which model answers, the key, how long to wait, and capability overrides. The round's
 * bounds (`Bounded.Options`): `idleTimeout` 2 minutes, `roundTimeout` 10 minutes, 8 Mi characters per event,
 * 32 MiB per round.
 */
export interface Options extends Bounded.Options {
  /** The API root that `/chat/completions` hangs off, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  readonly model: string
  readonly apiKey?: Redacted.Redacted
  /** The wait for the response's status and headers (default 2 minutes). */
  readonly timeout?: Duration.DurationInput
  /** What this backend does differently (a loopback server: `requiresNetworking: false`; a model's `contextWindow`). */
  readonly capabilities?: Provider.CapabilityOverrides
  /** Told when each request of a session starts and ends (default: none). */
  readonly inFlightTracker?: Provider.InFlightTracker
}

/** The options as a Schema (defaults filled in). */
const OptionsSchema = Schema.Struct({
  baseUrl: Decode.HttpUrl,
  model: Schema.NonEmptyTrimmedString,
  apiKey: Schema.optional(Schema.RedactedFromSelf(Schema.String)),
  timeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.minutes(2) }),
  ...Bounded.fields({ idleTimeout: "2 minutes", roundTimeout: "10 minutes" }),
  capabilities: Schema.optional(Provider.CapabilityFlags),
  inFlightTracker: Schema.optional(Provider.InFlightTrackerSchema)
})

const decodeOptions = Decode.options("OpenAiCompatible", OptionsSchema)

/**
 * What the Chat Completions API offers; override per backend through `Options.capabilities`:
 * - `appDriven`: the API returns `tool_calls` for the client to run and takes their results as `tool` messages.
 * - tool calling, parallel calls (several `tool_calls` in one answer), `tool_choice` (`auto`/`required`/`none`)
 *   and structured output (`response_format` `json_schema`) are all part of the published API.
 * - `openai-strict`: tool schemas may carry `strict: true` once normalized for strict mode.
 * - `maxTools` 128: OpenAI's documented limit of tools per request (local servers accept more).
 * - `contextWindow` unknown: it depends on the model; set it when you know it.
 * - not `managedConversation`: the API is stateless, every request carries the whole history.
 * - `requiresNetworking`: the conversation leaves the process (a remote API unless told otherwise).
 * - `supportsSamplingConfig`: `temperature`, `top_p` and `max_tokens` are part of the API.
 * - `supportsVision` false: images (`image_url` parts) reach only models that see; declare it for one that does.
 * - `modelSelection` `perRequest`: a send's `model` replaces `Options.model` in that request's body.
 */
export const capabilities: Provider.ProviderCapabilities = Provider.capabilities({
  name: "openai-compatible",
  supportsParallelToolCalls: true,
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  schemaDialect: "openai-strict",
  maxTools: 128,
  supportsSamplingConfig: true,
  supportsVision: false,
  modelSelection: "perRequest"
})

/** The path of the endpoint under the base URL. */
export const path = "/chat/completions"

/** The tool names OpenAI accepts; other servers may be laxer, so a name outside it is a warning. */
const toolName = /^[A-Za-z0-9_-]{1,64}$/

/** Builds the provider over the `HttpClient` in context; options that cannot work fail as `InvalidOptions`. */
export const make = (options: Options): Effect.Effect<Provider.AgentProvider, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const o = yield* decodeOptions(options)
    const timeout = o.timeout
    const caps: Provider.ProviderCapabilities = { ...capabilities, model: o.model, ...o.capabilities }
    const provider = caps.name
    const baseUrl = o.baseUrl.replace(/\/+$/, "")
    const scrub = scrubber(o.apiKey === undefined ? undefined : Redacted.value(o.apiKey))
    const apiKey = o.apiKey
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(baseUrl),
          HttpClientRequest.accept("text/event-stream, application/json"),
          apiKey === undefined ? identity : HttpClientRequest.bearerToken(apiKey)
        )
      )
    )
    const failure = Round.failureOf(provider, scrub)
    const server: Round.Server = { client, timeout, bounds: o, failure, bodyMessage: (text) => bodyMessage(text, scrub), jsonAnswer: "the server answered JSON instead of an event stream" }
    const settings = { model: o.model, parallelToolCalls: caps.supportsParallelToolCalls, modelPerRequest: caps.modelSelection === "perRequest" }

    const respond = (request: Provider.CompletionRequest) => {
      const text = body(settings, request)
      return Either.isLeft(text) ? Effect.fail(failure(text.left, false)) : Round.post(server, path, text.right, events({ provider, scrub }))
    }

    const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> =>
      Stream.unwrap(respond(request)).pipe(
        Telemetry.streamSpan("OpenAiCompatible.stream", Telemetry.endpoint(provider, { model: modelOf(settings, request), url: `${baseUrl}${path}` }))
      )

    const validateTools = (tools: ReadonlyArray<Provider.ToolDefinition>) =>
      Effect.succeed(
        tools.filter((t) => !toolName.test(t.name)).map((t) => ({
          tool: t.name,
          message: "OpenAI accepts tool names of 1 to 64 letters, digits, `_` and `-`; this server may refuse the name"
        }))
      )

    return { capabilities: caps, stream, validateTools, ...(o.inFlightTracker === undefined ? {} : { inFlightTracker: o.inFlightTracker }) }
  })

/** The provider for `options` as the application's `Provider`. */
export const layerWith = (options: Options): Layer.Layer<Provider.Provider, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, make(options))

/**
 * The provider with its options read from config while the layer is built, under the keys the app names:
 * `layerConfig({ baseUrl: Config.string("LLM_URL"), model: Config.string("LLM_MODEL"), apiKey: Config.redacted("LLM_KEY") })`.
 * A value the options' Schema refuses is `InvalidOptions` naming its key.
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Provider.Provider, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, Effect.flatMap(Decode.fromConfig("OpenAiCompatible", OptionsSchema, config), make))

const env = EnvConfig.names.OpenAiCompatible

/** `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.OpenAiCompatible`): `TOOLGATE_OPENAI_BASE_URL`, `TOOLGATE_OPENAI_MODEL`, `TOOLGATE_OPENAI_API_KEY` (optional, redacted). */
export const layerEnv: Layer.Layer<Provider.Provider, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> = layerConfig({
  baseUrl: Config.string(env.baseUrl),
  model: Config.string(env.model),
  apiKey: Config.redacted(env.apiKey)
})



/**
 * A provider for Google's Gemini models on their own wire: one `streamGenerateContent?alt=sse` request
 * per round trip, its server-sent `GenerateContentResponse`s read into `StreamEvent`s. Two endpoints:
 * - `gemini` (default): the Gemini API, `POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`,
 *   the key in `x-goog-api-key`; tool parameters `Normalize.google`d on `parametersJsonSchema`.
 * - `cloudCodeAssist`: Cloud Code Assist (the Gemini CLI's backend), `POST {baseUrl}/v1internal:streamGenerateContent?alt=sse`,
 *   a bearer token, the body wrapped as `{ model, project, request }`. For Claude models there (ids
 *   starting with `claude-`) the parameters go through the full `Normalize.cca` pipeline onto the legacy
 *   `parameters` field (see `Normalize.cca`); a tool CCA cannot take is sent without parameters and
 *   `validateTools` warns about it.
 *
 * The provider normalises the schemas itself (the dialect depends on the model and the endpoint), so it
 * declares `schemaDialect: "none"`: the session hands it the schemas as declared. Failures are
 * `ProviderError`s: a transport error, a timeout, a body cut off, 408, 429 and 5xx (and their canonical
 * statuses mid-stream) may pass when tried again; other statuses, a malformed event, a blocked prompt or
 * a safety stop will not. Credentials travel in headers from a `Redacted` and are scrubbed from every
 * server text that reaches an error.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Decode, EnvConfig, Errors, Provider, Telemetry } from "@toolgate/runtime"
import type { Message, StreamEvent } from "@toolgate/runtime"
import type { JsonValue } from "@toolgate/json-schema"
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
import { bodyMessage, scrubber } from "./internal/geminiErrors.js"
import { events } from "./internal/geminiEvents.js"
import { signatures } from "./internal/geminiSignatures.js"
import { argumentsObject as internalArgumentsObject, body, type Dialect, parameters, requiresSignatures } from "./internal/geminiRequest.js"
import * as Bounded from "./internal/boundedStream.js"
import * as Round from "./internal/streamedRound.js"

/** Which backend serves the model. */
export const Endpoint = Schema.Literal("gemini", "cloudCodeAssist")
export type Endpoint = typeof Endpoint.Type

/** Sampling and thinking settings sent as `generationConfig` on every request (Gemini's own field names). */
export const GenerationConfig = Schema.Struct({
  temperature: Schema.optional(Schema.Number),
  topP: Schema.optional(Schema.Number),
  topK: Schema.optional(Schema.Int),
  maxOutputTokens: Schema.optional(Schema.Int.pipe(Schema.positive())),
  stopSequences: Schema.optional(Schema.Array(Schema.String)),
  thinkingConfig: Schema.optional(Schema.Struct({
    thinkingBudget: Schema.optional(Schema.Int),
    thinkingLevel: Schema.optional(Schema.String),
    includeThoughts: Schema.optional(Schema.Boolean)
  }))
})
export type GenerationConfig = typeof GenerationConfig.Type

/** The options, as a Schema: decoded once when the provider is built (what fails is `Errors.InvalidOptions`). */
export const OptionsSchema = Schema.Struct({
  model: Schema.NonEmptyTrimmedString,
  endpoint: Schema.optionalWith(Endpoint, { default: () => "gemini" as const }),
  baseUrl: Schema.optional(Decode.HttpUrl),
  apiKey: Schema.optional(Schema.RedactedFromSelf(Schema.String)),
  accessToken: Schema.optional(Schema.RedactedFromSelf(Schema.String)),
  project: Schema.optional(Schema.NonEmptyTrimmedString),
  timeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.minutes(2) }),
  systemInstruction: Schema.optional(Schema.String),
  generationConfig: Schema.optional(GenerationConfig),
  ...Bounded.fields({ idleTimeout: "2 minutes", roundTimeout: "10 minutes" }),
  capabilities: Schema.optional(Provider.CapabilityFlags),
  inFlightTracker: Schema.optional(Provider.InFlightTrackerSchema)
})

/**
 * The model, where it is served, credentials, waits and capability overrides. The round's bounds
 * (`Bounded.Options`): `idleTimeout` 2 minutes, `roundTimeout` 10 minutes, 8 Mi characters per event, 32 MiB
 * per round (past either size: not retryable).
 */
export interface Options extends Bounded.Options {
  /** The model id: `gemini-2.5-flash`; on Cloud Code Assist also `claude-sonnet-4-5` and the like. */
  readonly model: string
  /** Which backend serves the model (default `gemini`). */
  readonly endpoint?: Endpoint
  /** The API root (default `https://generativelanguage.googleapis.com/v1beta`, or `https://cloudcode-pa.googleapis.com`). */
  readonly baseUrl?: string
  /** Gemini API key, sent as `x-goog-api-key`. */
  readonly apiKey?: Redacted.Redacted<string>
  /** OAuth access token, sent as a bearer token (Cloud Code Assist, Vertex). */
  readonly accessToken?: Redacted.Redacted<string>
  /** The Google Cloud project Cloud Code Assist bills (sent in the body). */
  readonly project?: string
  /** The wait for the response's status and headers (default 2 minutes). */
  readonly timeout?: Duration.DurationInput
  /** A system instruction sent with every request (the conversation itself has no system message). */
  readonly systemInstruction?: string
  readonly generationConfig?: GenerationConfig
  /** What this model does differently (`contextWindow`, `requiresNetworking: false` for a loopback double). */
  readonly capabilities?: Provider.CapabilityOverrides
  /** Told when each request of a session starts and ends (default: none). */
  readonly inFlightTracker?: Provider.InFlightTracker
}

/**
 * What Gemini offers; override per model through `Options.capabilities`:
 * - app-driven: the model returns `functionCall`s and takes `functionResponse`s; several calls may come in
 *   one answer; `functionCallingConfig` modes `AUTO` / `ANY` / `NONE` are the three tool choices.
 * - structured output: `responseJsonSchema` (not claimed for Claude through Cloud Code Assist).
 * - `schemaDialect: "none"`: the provider normalises itself, per model (see the module comment).
 * - no stated tool limit or context window (they depend on the model); stateless, every request carries
 *   the whole history; the conversation leaves the process.
 * - sampling: `temperature`, `topP` and `maxOutputTokens` in `generationConfig` (over the options' own).
 * - vision: a user's images go as `inlineData` / `fileData` parts (not claimed for Claude through Cloud Code Assist).
 * - `modelSelection` `perRequest` on the Gemini API (a send's `model` goes in that request's path); `fixed` on
 *   Cloud Code Assist, where the model decides the schema dialect.
 */
export const capabilities: Provider.ProviderCapabilities = Provider.capabilities({
  name: "gemini",
  supportsParallelToolCalls: true,
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  supportsSamplingConfig: true,
  supportsVision: true,
  modelSelection: "perRequest"
})

/** A call's arguments as the object Gemini's `args` must be: an object as is, JSON text of an object parsed, else `{}`. */
export const argumentsObject: (args: Message.ToolCall["arguments"]) => JsonValue.JsonObject = internalArgumentsObject

/** The default API roots of the two endpoints. */
export const defaultBaseUrl: Readonly<Record<Endpoint, string>> = {
  gemini: "https://generativelanguage.googleapis.com/v1beta",
  cloudCodeAssist: "https://cloudcode-pa.googleapis.com"
}

/** The request path of a model on an endpoint (under the base URL). */
export const path = (endpoint: Endpoint, model: string): string =>
  endpoint === "cloudCodeAssist" ?
    "/v1internal:streamGenerateContent?alt=sse" :
    `/models/${encodeURIComponent(model.replace(/^models\//, ""))}:streamGenerateContent?alt=sse`

/** The dialect a model's tool parameters get: `cca` for Claude on Cloud Code Assist, else `google`. */
export const dialect = (endpoint: Endpoint, model: string): Dialect =>
  endpoint === "cloudCodeAssist" && model.startsWith("claude-") ? "cca" : "google"

const decodeOptions = Decode.options("Gemini", OptionsSchema)

/** Builds the provider over the `HttpClient` in context; options that fail `OptionsSchema` fail as `InvalidOptions`. */
export const make = (options: Options): Effect.Effect<Provider.AgentProvider, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const o = yield* decodeOptions(options)
    const { endpoint, timeout } = o
    const model = o.model.replace(/^models\//, "")
    const target = dialect(endpoint, model)
    const caps: Provider.ProviderCapabilities = {
      ...capabilities,
      model,
      supportsStructuredOutput: target === "google",
      supportsVision: target === "google",
      modelSelection: endpoint === "cloudCodeAssist" ? "fixed" : "perRequest",
      ...o.capabilities
    }
    const provider = caps.name
    const root = (o.baseUrl ?? defaultBaseUrl[endpoint]).replace(/\/+$/, "")
    const url = `${root}${path(endpoint, model)}`
    const scrub = scrubber([o.apiKey, o.accessToken].flatMap((r) => r === undefined ? [] : [Redacted.value(r)]))
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.accept("text/event-stream, application/json"),
          o.apiKey === undefined ? identity : HttpClientRequest.setHeader("x-goog-api-key", Redacted.value(o.apiKey)),
          o.accessToken === undefined ? identity : HttpClientRequest.bearerToken(o.accessToken)
        )
      )
    )
    const failure = Round.failureOf(provider, scrub)
    const server: Round.Server = {
      client,
      timeout,
      bounds: o,
      failure,
      bodyMessage: (text) => bodyMessage(text, scrub),
      jsonAnswer: "the server answered JSON instead of an event stream (is `alt=sse` lost on the way?)"
    }

    const tools = parameters(target)
    const thoughts = signatures(4096)
    let ids = 0
    const settings = {
      model,
      dialect: target,
      wrapped: endpoint === "cloudCodeAssist",
      project: o.project,
      parameters: tools.of,
      signature: thoughts.get,
      requiresSignatures: requiresSignatures(model),
      systemInstruction: o.systemInstruction,
      generationConfig: o.generationConfig
    }
    const reading = { provider, wrapped: settings.wrapped, remember: thoughts.remember, scrub, freshId: () => `gemini_${Date.now().toString(36)}_${ids++}` }

    /** The settings and URL of a request: the provider's model, or the one the request chose (`perRequest` only). */
    const chosenFor = (request: Provider.CompletionRequest) => {
      const chosen = typeof request.model !== "string" || request.model.trim() === "" || caps.modelSelection !== "perRequest"
        ? undefined
        : request.model.replace(/^models\//, "")
      return chosen === undefined || chosen === model ? { settings, url } : {
        settings: { ...settings, model: chosen, requiresSignatures: requiresSignatures(chosen) },
        url: `${root}${path(endpoint, chosen)}`
      }
    }

    const respond = (request: Provider.CompletionRequest, at: ReturnType<typeof chosenFor>) => {
      const text = body(at.settings, request)
      return Either.isLeft(text) ? Effect.fail(failure(text.left, false)) : Round.post(server, at.url, text.right, events(reading))
    }

    const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> =>
      Stream.suspend(() => {
        const at = chosenFor(request)
        return Stream.unwrap(respond(request, at)).pipe(
          Telemetry.streamSpan("Gemini.stream", Telemetry.endpoint(provider, { model: at.settings.model, url: at.url }))
        )
      })

    const validateTools = (definitions: ReadonlyArray<Provider.ToolDefinition>) => Effect.succeed(definitions.flatMap(tools.warnings))

    return { capabilities: caps, stream, validateTools, ...(o.inFlightTracker === undefined ? {} : { inFlightTracker: o.inFlightTracker }) }
  })

/** The provider for `options` as the application's `Provider`. */
export const layerWith = (options: Options): Layer.Layer<Provider.Provider, Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, make(options))

/**
 * The provider with its options read from config while the layer is built, under the keys the app names:
 * `layerConfig({ model: Config.string("GEMINI_MODEL"), apiKey: Config.redacted("GEMINI_KEY") })`. A value the
 * options' Schema refuses is `InvalidOptions` naming its key.
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Provider.Provider, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, Effect.flatMap(Decode.fromConfig("Gemini", OptionsSchema, config), make))

const env = EnvConfig.names.Gemini

/**
 * `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.Gemini`): `TOOLGATE_GEMINI_MODEL`,
 * `TOOLGATE_GEMINI_ENDPOINT` (`gemini` | `cloudCodeAssist`), `TOOLGATE_GEMINI_BASE_URL`, `TOOLGATE_GEMINI_API_KEY` /
 * `TOOLGATE_GEMINI_ACCESS_TOKEN` (redacted), `TOOLGATE_GEMINI_PROJECT`; all but the model optional.
 */
export const layerEnv: Layer.Layer<Provider.Provider, ConfigError.ConfigError | Errors.InvalidOptions, HttpClient.HttpClient> = layerConfig({
  model: Config.string(env.model),
  endpoint: Config.literal("gemini", "cloudCodeAssist")(env.endpoint),
  baseUrl: Config.string(env.baseUrl),
  apiKey: Config.redacted(env.apiKey),
  accessToken: Config.redacted(env.accessToken),
  project: Config.string(env.project)
})

/**
 * What the integration tests share: a relay whose request log is kept (so a test counts the requests the
 * relay really served), a toolkit whose executor counts its runs, sessions over the real providers
 * (`CloudRelay` with `DriftGate` on top, `OpenAiCompatible`, `Gemini`) on the undici HTTP client, and one bounded
 * turn with everything it left behind (result, events, warnings, history, tool runs).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { CloudRelay, Gemini, OpenAiCompatible, RelayProfileClient, type Script } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, DriftGate, type Errors, type Message, Provider, type SessionEvent, Tool, Toolkit } from "@toolgate/runtime"
import type { JsonSchema } from "@toolgate/json-schema"
import type * as HttpClient from "@effect/platform/HttpClient"
import { type Cause, type Duration, Effect, Either, HashMap, Layer, Logger, LogLevel, Option, Queue } from "effect"
import { Relay } from "../../src/index.js"

/** The weather tool's parameters, locally and in the relay's profile (so the gate proves it). */
export const weatherSchema: JsonSchema.JsonSchema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"]
}

/** A relay profile exporting `get_weather` with the local schema. */
export const profile = { capabilities_version: "1.0", tool_schemas: { get_weather: weatherSchema } }

/** The answer of the turn's second round. */
export const answerText = "It is sunny in Paris."

/** One turn: the model calls `get_weather` for Paris, then answers with `answerText`. */
export const script: Script.Script = {
  turns: [[
    [
      { _tag: "TextDelta", text: "Checking. " },
      { _tag: "ToolCallComplete", id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
      { _tag: "Usage", inputTokens: 10, outputTokens: 4 },
      { _tag: "Done" }
    ],
    [
      { _tag: "TextDelta", text: answerText },
      { _tag: "Usage", inputTokens: 20, outputTokens: 6 },
      { _tag: "Done" }
    ]
  ]]
}

/** The user's text of every turn the tests send. */
export const prompt = "What is the weather in Paris?"

/** A relay started for the surrounding scope, with its one-line-per-request log kept. */
export interface CountedRelay {
  readonly url: string
  /** The request log lines so far (`METHOD /path STATUS 12ms`). */
  readonly lines: ReadonlyArray<string>
  /** How many requests with `method` the relay served on a path ending in `suffix`. */
  readonly count: (method: string, suffix: string) => number
}

/** The capabilities path every count of probes looks for. */
export const capabilitiesPath = RelayProfileClient.path

/** The turns path every count of cloud round trips looks for. */
export const turnsPath = "/v1/agent/turns"

/** The Chat Completions path every count of OpenAI-compatible round trips looks for. */
export const chatPath = "/v1/chat/completions"

/** Starts the relay on a loopback port and keeps its request log (the relay's own count of what it served). */
export const startRelay = (config: Relay.Config) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const capture = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ message }) => {
        lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
      })
    )
    const { url } = yield* Relay.start(config).pipe(Effect.provide(capture))
    const count = (method: string, suffix: string) =>
      lines.filter((line) => {
        const [m, path] = line.split(" ")
        return m === method && path !== undefined && path.endsWith(suffix)
      }).length
    const relay: CountedRelay = { url, lines, count }
    return relay
  })

/** Waits (bounded: 2 seconds) until the relay logged at least `n` lines; a log line can trail the answer. */
export const settle = (relay: CountedRelay, n: number) =>
  Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => relay.lines.length >= n, times: 200 }))

/** A toolkit with `get_weather`, whose executor counts its runs. */
export const countingToolkit = () => {
  const runs = { count: 0 }
  const toolkit = Either.getOrThrow(Toolkit.make(
    Tool.make("get_weather", {
      description: "The weather in a city",
      parameters: weatherSchema,
      execute: (args) =>
        Effect.sync(() => {
          runs.count++
          const city = typeof args === "object" && args !== null ? (args as { readonly city?: unknown }).city : undefined
          return { city: typeof city === "string" ? city : null, sky: "sunny" }
        })
    })
  ))
  return { toolkit, runs }
}

/** Client timeouts: the cloud relay's (to first byte, between events), the probe's and the OpenAI client's. */
export interface Timeouts {
  readonly timeout?: Duration.DurationInput
  readonly idleTimeout?: Duration.DurationInput
  /** Set: the probe is built with this timeout next to `CloudRelay.make`; unset: `CloudRelay.layerWith` (probe default 5 s). */
  readonly probeTimeout?: Duration.DurationInput
}

/** What else a client is built with: the validator's options (tool chaining) and the cloud relay's capability overrides. */
export interface ClientOptions {
  readonly validator?: ArgumentValidator.Options
  readonly capabilities?: Provider.CapabilityOverrides
}

/**
 * What a cloud-profile session needs: the `CloudRelay` provider and probe, `DriftGate.layer` on top, the
 * argument validator, all over one undici client. Built once, it is one client process: one probe cache, one gate.
 */
export const cloudLayer = (baseUrl: string, timeouts: Timeouts = {}, client: ClientOptions = {}) => {
  const options = {
    baseUrl,
    timeout: timeouts.timeout ?? "5 seconds",
    idleTimeout: timeouts.idleTimeout ?? "5 seconds",
    ...(client.capabilities === undefined ? {} : { capabilities: client.capabilities })
  }
  const relay = timeouts.probeTimeout === undefined
    ? CloudRelay.layerWith(options)
    : Layer.merge(
      Layer.effect(Provider.Provider, CloudRelay.make(options)),
      RelayProfileClient.layerWith({ baseUrl, timeout: timeouts.probeTimeout })
    )
  return Layer.mergeAll(ArgumentValidator.layerWith(client.validator ?? {}), DriftGate.layer.pipe(Layer.provideMerge(relay))).pipe(
    Layer.provide(NodeHttpClient.layerUndici)
  )
}

/** What a local-mode session over one provider needs: the provider and the argument validator, over undici (the tests' options are valid). */
export const localLayer = (provider: Layer.Layer<Provider.Provider, Errors.InvalidOptions, HttpClient.HttpClient>, validator: ArgumentValidator.Options = {}) =>
  Layer.mergeAll(ArgumentValidator.layerWith(validator), Layer.orDie(provider)).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** `OpenAiCompatible` against the relay's Chat Completions (`baseUrl` is the relay root or a scenario's base). */
export const openAiLayer = (baseUrl: string, timeout: Duration.DurationInput = "5 seconds", validator: ArgumentValidator.Options = {}) =>
  localLayer(OpenAiCompatible.layerWith({ baseUrl: `${baseUrl}/v1`, model: "scripted", timeout }), validator)

/** The path of a Gemini model's `streamGenerateContent` (the relay's log shows it without the `?alt=sse` query). */
export const geminiPath = (model: string) => `/v1beta/models/${model}:streamGenerateContent`

/** `Gemini` against the relay's `streamGenerateContent` (`baseUrl` is the relay root or a scenario's base). */
export const geminiLayer = (baseUrl: string, model: string, validator: ArgumentValidator.Options = {}) =>
  localLayer(Gemini.layerWith({ baseUrl: `${baseUrl}/v1beta`, model, timeout: "5 seconds", idleTimeout: "5 seconds" }), validator)

/** `CloudRelay` as a plain provider (no probe, no gate): a local-mode session sees only its streams. */
export const cloudStreamLayer = (baseUrl: string, timeouts: Timeouts = {}, client: ClientOptions = {}) =>
  localLayer(
    Layer.effect(Provider.Provider, CloudRelay.make({
      baseUrl,
      timeout: timeouts.timeout ?? "5 seconds",
      idleTimeout: timeouts.idleTimeout ?? "5 seconds",
      ...(client.capabilities === undefined ? {} : { capabilities: client.capabilities })
    })),
    client.validator
  )

/** Everything one bounded turn left behind. */
export interface Outcome {
  /** The turn, or its typed error, or `TimeoutException` when the bound ran out (a hang). */
  readonly result: Either.Either<AgentSession.Turn, AgentSession.SendError | Cause.TimeoutException>
  readonly events: ReadonlyArray<SessionEvent.SessionEvent>
  /** The session's warning log lines (`drift_gate.reason` annotation appended as `[reason]`). */
  readonly warnings: ReadonlyArray<string>
  readonly history: ReadonlyArray<Message.Message>
  /** Tool runs during this turn. */
  readonly runs: number
}

/** The tag of a result's error, or "committed". */
export const tagOf = (outcome: Outcome): string =>
  Either.isRight(outcome.result) ? "committed" : outcome.result.left._tag

/** A session's bounded `turn` (see `cloudSession` / `localSession`); `runs` is its toolkit's run counter. */
export const withTurn = (agent: AgentSession.AgentSession, runs: { readonly count: number }, bound: Duration.DurationInput) => {
  const turn = (text: string = prompt) =>
    Effect.gen(function*() {
      const before = runs.count
      const events = yield* agent.subscribe
      const warnings: Array<string> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ annotations, logLevel, message }) => {
          if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) return
          const reason = Option.getOrUndefined(HashMap.get(annotations, "drift_gate.reason"))
          const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
          warnings.push(reason === undefined ? text : `${text} [${String(reason)}]`)
        })
      )
      const result = yield* agent.send(text).pipe(Effect.timeout(bound), Effect.either, Effect.provide(capture))
      const outcome: Outcome = {
        result,
        events: yield* Queue.takeAll(events).pipe(Effect.map((chunk) => Array.from(chunk))),
        warnings,
        history: yield* agent.history,
        runs: runs.count - before
      }
      return outcome
    }).pipe(Effect.scoped)
  return { agent, runs, turn }
}

/** The bound of one send unless a test gives its own: well inside every test's own timeout. */
export const sendBound: Duration.DurationInput = "15 seconds"

/** A cloud-profile session over the provider, gate and validator in context, with a counting toolkit. */
export const cloudSession = (bound: Duration.DurationInput = sendBound) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { runs, toolkit } = countingToolkit()
    return withTurn(yield* AgentSession.make({ provider, toolkit, mode: "cloudProfile" }), runs, bound)
  })

/** A local-mode session (no gate) over the provider and validator in context, with a counting toolkit. */
export const localSession = (bound: Duration.DurationInput = sendBound) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { runs, toolkit } = countingToolkit()
    return withTurn(yield* AgentSession.make({ provider, toolkit, mode: "local" }), runs, bound)
  })

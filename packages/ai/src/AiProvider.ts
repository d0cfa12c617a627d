/**
 * Any @effect/ai `LanguageModel` as a toolgate `AgentProvider`, app-driven: each round trip is one
 * `streamText` with the session's tools in a toolkit and `disableToolCallResolution`, so @effect/ai hands
 * the model's calls back untouched and the session's layers 2–3 (argument validation, bounded repair)
 * decide what runs. History goes out as a `Prompt` (tool results as envelopes), the stream comes back as
 * `StreamEvent`s, usage and failures included. A request with `structuredOutput` is one `generateObject`.
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import type { JsonSchema } from "@toolgate/json-schema"
import { Errors, Provider, Telemetry } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { brokeOff, type Failure, failureFor, fromAiError } from "./internal/errors.js"
import { events, tokens } from "./internal/events.js"
import * as Prompts from "./internal/prompt.js"
import * as RawParameters from "./internal/rawParameters.js"

/** What the model behind the bridge does; start from `openAi` or `anthropic` when one of them is behind it. */
export interface Options {
  /** Overrides of the declared capabilities (a `contextWindow` you know, a `name` for errors and spans). */
  readonly capabilities?: Provider.CapabilityOverrides
  /**
   * The model sends every tool with `strict: true`, whatever toolgate normalized: `OpenAiLanguageModel`
   * does unless its config says `strict: false`. A tool that could not be made strict is then refused
   * before the send (OpenAI would answer 400), instead of failing the turn at the first request.
   */
  readonly strictTools?: boolean
  /** Told when each request of a session starts and ends (default: none). */
  readonly inFlightTracker?: Provider.InFlightTracker
}

/**
 * What any `LanguageModel` offers through @effect/ai's interface:
 * - `appDriven`: calls come back unresolved (`disableToolCallResolution`) for the session to run.
 * - tool calling and tool choice (`auto` / `required` / `none` are part of @effect/ai's options, mapped by
 *   every provider); structured output through `generateObject`.
 * - parallel calls off: nothing is known about the model, so a round's calls run one after another.
 * - dialect `none`: tool schemas go out as declared.
 * - stateless, and the conversation leaves the process.
 * - no vision unless declared (`openAi` and `anthropic` declare it: their models take images as file parts).
 * - `modelSelection` `fixed`: the `LanguageModel` is one model.
 */
export const capabilities: Provider.ProviderCapabilities = Provider.capabilities({
  name: "effect-ai",
  supportsToolChoice: true,
  supportsStructuredOutput: true,
  supportsVision: false,
  modelSelection: "fixed"
})

/**
 * `@effect/ai-openai`'s `OpenAiLanguageModel` (the Responses API): parallel calls, at most 128 tools, and
 * every tool sent `strict: true` (its default), so tool schemas get the `openai-strict` dialect and calls
 * are prepared knowing the provider saw the strict form (a `null` for an optional property is dropped).
 * With `OpenAiLanguageModel` configured `strict: false`, use `{ capabilities: { ...openAi.capabilities, schemaDialect: "none" } }`.
 */
export const openAi: Options = {
  capabilities: { name: "openai", supportsParallelToolCalls: true, schemaDialect: "openai-strict", maxTools: 128, supportsVision: true },
  strictTools: true
}

/**
 * `@effect/ai-anthropic`'s `AnthropicLanguageModel` (the Messages API): parallel calls; `input_schema`
 * takes JSON Schema as declared (dialect `none`); `tool_choice` `none` is sent as a request without tools.
 */
export const anthropic: Options = {
  capabilities: { name: "anthropic", supportsParallelToolCalls: true, schemaDialect: "none", supportsVision: true }
}

/** The provider over `model`. */
export const fromLanguageModel = (model: LanguageModel.Service, options?: Options): Provider.AgentProvider => {
  const caps: Provider.ProviderCapabilities = { ...capabilities, ...options?.capabilities }
  const failure = failureFor(caps.name)
  const strictTools = options?.strictTools === true

  const stream = (request: Provider.CompletionRequest): Stream.Stream<StreamEvent.StreamEvent, Errors.ProviderError> => {
    const bad = Prompts.badImage(request.messages)
    if (bad !== undefined) return Stream.fail(failure(bad, false))
    return (request.structuredOutput === undefined ? streamed(model, request, failure) : structured(model, request, request.structuredOutput, failure)).pipe(
      Stream.catchAllCause((cause) => Stream.failCause(brokeOff(failure, cause))),
      Telemetry.streamSpan("AiProvider.stream", Telemetry.endpoint(caps.name))
    )
  }

  const validateTools = (tools: ReadonlyArray<Provider.ToolDefinition>) => {
    const loose = strictTools ? tools.find((t) => !t.strict) : undefined
    return loose === undefined ? Effect.succeed([]) : Effect.fail(
      new Errors.ToolsRejected({
        provider: caps.name,
        tool: loose.name,
        reason: "the model sends every tool with `strict: true`, and this schema could not be made strict; " +
          "configure the model with `strict: false` and declare `strictTools: false` with the `none` dialect"
      })
    )
  }

  const tracker = options?.inFlightTracker
  return { capabilities: caps, stream, validateTools, ...(tracker === undefined ? {} : { inFlightTracker: tracker }) }
}

/** The provider over the `LanguageModel` in context. */
export const make = (options?: Options): Effect.Effect<Provider.AgentProvider, never, LanguageModel.LanguageModel> =>
  Effect.map(LanguageModel.LanguageModel, (model) => fromLanguageModel(model, options))

/** The `LanguageModel` in context as the application's `Provider`, with the generic capabilities. */
export const layer: Layer.Layer<Provider.Provider, never, LanguageModel.LanguageModel> = Layer.effect(Provider.Provider, make())

/** The `LanguageModel` in context as the application's `Provider`, declared by `options` (e.g. `openAi`). */
export const layerWith = (options: Options): Layer.Layer<Provider.Provider, never, LanguageModel.LanguageModel> =>
  Layer.effect(Provider.Provider, make(options))

/** A tool as @effect/ai sees it: the session's JSON Schema out, the model's arguments back undecoded. */
type BridgeTool = AiTool.Tool<string, {
  readonly parameters: RawParameters.RawParameters
  readonly success: typeof Schema.Unknown
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

/** The session's tools as a toolkit whose handler never runs: tool call resolution is off. */
const toolkitOf = (tools: ReadonlyArray<Provider.ToolDefinition>): AiToolkit.WithHandler<Record<string, BridgeTool>> => {
  // no prototype: a tool named `__proto__` is a key like any other
  const record: Record<string, BridgeTool> = Object.create(null)
  for (const t of tools) {
    record[t.name] = AiTool.make(t.name, { description: t.description, success: Schema.Unknown }).setParameters(RawParameters.make(t.parameters))
  }
  return { tools: record, handle: () => Effect.dieMessage("AiProvider: @effect/ai tried to run a tool with tool call resolution off") }
}

/** One round trip as `streamText`. */
const streamed = (model: LanguageModel.Service, request: Provider.CompletionRequest, failure: Failure) => {
  const prompt = Prompts.fromMessages(request.messages, request.systemPrompt)
  const parts = request.tools.length === 0
    ? model.streamText({ prompt })
    : model.streamText({ prompt, toolkit: toolkitOf(request.tools), toolChoice: request.toolChoice, disableToolCallResolution: true })
  return parts.pipe(
    Stream.mapError((e) => fromAiError(failure, e)),
    events(failure)
  )
}

/**
 * One round trip as `generateObject` (`streamText` cannot ask for JSON): the answer's text, usage, `Done`.
 * The session checks the text against its schema; here the schema is only sent. No tools go with it:
 * `generateObject` fails a round that answers with tool calls and no text.
 */
const structured = (model: LanguageModel.Service, request: Provider.CompletionRequest, schema: JsonSchema.JsonSchema, failure: Failure) =>
  Stream.unwrap(
    model.generateObject({ prompt: Prompts.fromMessages(request.messages, request.systemPrompt), schema: answerSchema(schema), objectName: "structured_output" }).pipe(
      Effect.mapError((e) => fromAiError(failure, e)),
      Effect.map((response) => {
        const out: Array<StreamEvent.StreamEvent> = []
        if (response.text !== "") out.push({ _tag: "TextDelta", text: response.text })
        const usage = response.usage
        if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
          out.push({ _tag: "Usage", inputTokens: tokens(usage.inputTokens), outputTokens: tokens(usage.outputTokens) })
        }
        out.push({ _tag: "Done" })
        return Stream.fromIterable(out)
      })
    )
  )

/** Any JSON, sent to the provider as `schema`: the session, not @effect/ai, decides whether the answer fits. */
const answerSchema = (schema: JsonSchema.JsonSchema) =>
  RawParameters.make(schema) as unknown as Schema.Schema<unknown, Record<string, unknown>>

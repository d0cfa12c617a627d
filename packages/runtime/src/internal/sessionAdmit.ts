/**
 * What a send must pass before its user's message is recorded (tool choice, images, model selection, the
 * provider's `validateTools`), and the session's tool definitions as its requests carry them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { ModelSelectionUnsupported, ToolChoiceUnsupported, VisionUnsupported } from "../Errors.js"
import * as Provider from "../Provider.js"
import { safeString } from "./json.js"
import * as SessionRequest from "./sessionRequest.js"
import type { TurnOptions } from "./sessionCurrent.js"
import type { Env } from "./sessionState.js"

const isToolChoice = Schema.is(Provider.ToolChoice)

/** The checks before the user's message is recorded: tool choice, definitions, the provider's `validateTools`. */
export const admit = Effect.fnUntraced(function*<A, X>(env: Env, toolChoice: Provider.ToolChoice, options?: TurnOptions<A, X>) {
  const capabilities = env.provider.capabilities
  if (!isToolChoice(toolChoice) || (toolChoice !== "auto" && !capabilities.supportsToolChoice)) {
    return yield* new ToolChoiceUnsupported({ choice: safeString(toolChoice), provider: capabilities.name })
  }
  if (options?.images !== undefined && !Provider.supportsVision(capabilities)) {
    return yield* new VisionUnsupported({ provider: capabilities.name, images: options.images.length })
  }
  if (options?.model !== undefined && Provider.modelSelection(capabilities) !== "perRequest") {
    return yield* new ModelSelectionUnsupported({ provider: capabilities.name, model: options.model, modelSelection: Provider.modelSelection(capabilities) })
  }
  const definitions = env.definitions
  const warnings = env.provider.validateTools === undefined ? [] : yield* env.provider.validateTools(definitions.tools)
  yield* Ref.set(env.lastSchemaWarnings, warnings)
  const { leftOut } = (yield* Ref.get(env.discovery)).request
  const requestWarnings = leftOut === 0
    ? []
    : [`${capabilities.name} takes at most ${capabilities.maxTools} tools: ${leftOut} of the toolkit's tools were left out of the requests`]
  return { definitions, warnings, requestWarnings }
})

/**
 * The session's tool definitions in the provider's dialect, built once when the session is made (the
 * toolkit, the provider and the validator are the session's for good); tools routed through text are never
 * sent strict.
 */
export const definitionsFor = (
  toolkit: Env["toolkit"],
  capabilities: Provider.ProviderCapabilities,
  options: { readonly toolChaining: boolean; readonly strictTools: boolean }
): SessionRequest.Definitions =>
  SessionRequest.definitions(toolkit, capabilities, {
    toolChaining: options.toolChaining,
    strictDisabled: !options.strictTools || textRouted(capabilities)
  })

/** Whether the session routes tools through text: an app-driven provider without native tool calling. */
export const textRouted = (capabilities: Provider.ProviderCapabilities): boolean =>
  capabilities.supportsToolCalling !== true && capabilities.executionModel === "appDriven"

/**
 * The session's scoped tools as a provider-driven provider is given them (`Provider.registryAware`): each
 * call goes through layer 2 before its executor, and every outcome is an envelope.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Service as ValidatorService } from "../ArgumentValidator.js"
import type * as Provider from "../Provider.js"
import * as Tool from "../Tool.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import type * as Toolkit from "../Toolkit.js"

/** The session's tools for a provider that runs them itself: each call goes through layer 2, every outcome an envelope. */
export const registry = (toolkit: Toolkit.Toolkit<never>, validator: ValidatorService): Provider.Registry => {
  const tools = Array.from(toolkit.tools.values(), (tool): Provider.RegistryTool => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
    execute: (args, callId) =>
      validator.prepare(tool, args, { callId }).pipe(
        Effect.flatMap((prepared) =>
          prepared._tag === "Referencing"
            ? Effect.succeed(ToolEnvelope.failure("invalid_args", "Refs to earlier calls are not resolved for calls the provider runs.", { tool: tool.name }))
            : Tool.run(tool, prepared)
        ),
        Effect.catchTags({
          InvalidToolArguments: (e) => Effect.succeed<ToolEnvelope.Envelope>(e.envelope),
          InvalidToolSchema: (e) => Effect.succeed(ToolEnvelope.failure("unavailable", e.message, { tool: tool.name, retryable: false }))
        })
      )
  }))
  const byName = new Map(tools.map((t) => [t.name, t] as const))
  return { tools, get: (name) => byName.get(name) }
}


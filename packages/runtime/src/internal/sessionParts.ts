/**
 * The options of `AgentSession.make` that are not data (the toolkit, the provider, the pre-transmit filter),
 * read once and checked for their kind: a value of another kind, or options that throw when read, is
 * `InvalidOptions`, never a defect later.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { InvalidOptions } from "../Errors.js"
import type * as Provider from "../Provider.js"
import * as Toolkit from "../Toolkit.js"
import { safeString } from "./json.js"
import type { PreTransmit } from "./sessionState.js"

/** The options that are not data: the toolkit, the provider when given, the pre-transmit filter. */
export interface Parts {
  readonly toolkit: Toolkit.Toolkit<unknown>
  readonly provider: Provider.AgentProvider | Provider.RegistryAware | undefined
  readonly preTransmit: PreTransmit | undefined
}

/** The parts as given, before their kind is checked. */
interface Given {
  readonly toolkit: unknown
  readonly provider?: unknown
  readonly preTransmit?: unknown
}

/** What is wrong with the parts, if anything (a value of another kind than the option takes). */
const partsProblem = (parts: Given): string | undefined => {
  if (!Toolkit.isToolkit(parts.toolkit)) return "toolkit: not a Toolkit (make one with Toolkit.make)"
  if (parts.preTransmit !== undefined && typeof parts.preTransmit !== "function") return "preTransmit: not a function"
  const provider: unknown = parts.provider
  if (provider === undefined) return undefined
  if (typeof provider !== "object" || provider === null) return "provider: not an AgentProvider"
  if ("_tag" in provider) {
    return provider._tag === "RegistryAware" && typeof (provider as Provider.RegistryAware).make === "function" ? undefined : "provider: not an AgentProvider"
  }
  const { capabilities, complete, stream } = provider as Provider.AgentProvider
  if (complete !== undefined && typeof complete !== "function") return "provider: `complete` is not a function"
  return typeof capabilities === "object" && capabilities !== null && typeof stream === "function"
    ? undefined
    : "provider: an AgentProvider has `capabilities` and `stream`"
}

/** The parts of `options`, checked: a wrong kind of value, or options that cannot be read, is `InvalidOptions`. */
export const partsOf = (options: Given): Effect.Effect<Parts, InvalidOptions> =>
  Effect.suspend(() => {
    let problem: string | undefined
    let parts: Given = { toolkit: undefined }
    try {
      parts = { toolkit: options.toolkit, provider: options.provider, preTransmit: options.preTransmit }
      problem = partsProblem(parts)
    } catch (e) {
      problem = `the options could not be read: ${safeString(e instanceof Error ? e.message : e)}`
    }
    return problem === undefined ? Effect.succeed(parts as Parts) : Effect.fail(new InvalidOptions({ of: "AgentSession", detail: problem }))
  })

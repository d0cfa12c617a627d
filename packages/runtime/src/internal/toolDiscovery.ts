/**
 * Tool discovery: which of the toolkit's domains a request carries, within the provider's `maxTools`, and
 * the discovery tools (`toolgate_list_domains`, `toolgate_activate_domain`) the model activates domains
 * with. The discovery tools are ordinary tools to layers 2 and 3; activation lasts for the session.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import type { JsonSchema } from "@toolgate/json-schema"
import * as Errors from "../Errors.js"
import type * as Provider from "../Provider.js"
import * as Tool from "../Tool.js"
import type * as Toolkit from "../Toolkit.js"

/** The discovery tool that lists the domains. */
export const listDomains = "toolgate_list_domains"

/** The discovery tool that activates a domain. */
export const activateDomain = "toolgate_activate_domain"

/** What discovery holds for a session. */
export interface State {
  /** The active domains, least recently used first. */
  readonly active: ReadonlyArray<string>
  /** Activations that re-primed the tool list (`SessionRebuild`). */
  readonly rebuilds: number
  /** The tools a request carries in this state (see `requestTools`), worked out once when the state is made. */
  readonly request: RequestTools
}

/** The tools one request carries, and how many eager discovery left out past `maxTools`. */
export interface RequestTools {
  readonly names: ReadonlySet<string>
  readonly leftOut: number
}

const modeOf = (capabilities: Provider.ProviderCapabilities): Provider.ToolDiscovery =>
  capabilities.toolDiscovery ?? { _tag: "EagerSessionTools" }

/** How many tools a request may carry: `maxTools` (a fraction rounds down, below zero none), or no limit. */
const capOf = (capabilities: Provider.ProviderCapabilities): number => {
  const max = capabilities.maxTools
  return max === undefined ? Number.POSITIVE_INFINITY : max >= 0 ? Math.floor(max) : 0
}

/** The discovery tools' names for a mode (none when every domain is active from the start). */
const discoveryTools = (mode: Provider.ToolDiscovery): ReadonlyArray<string> =>
  mode._tag === "EagerSessionTools" ? [] : [listDomains, activateDomain]

const sizeOf = (toolkit: Toolkit.Toolkit<any>, domains: ReadonlyArray<string>): number =>
  domains.reduce((n, d) => n + (toolkit.domains.get(d)?.length ?? 0), 0)

/** A session's first state: every domain (eager), none (dynamic), or the domains that fit, in order (rebuild). */
export const initial = (toolkit: Toolkit.Toolkit<any>, capabilities: Provider.ProviderCapabilities): State => {
  const mode = modeOf(capabilities)
  const domains = [...toolkit.domains.keys()]
  if (mode._tag !== "SessionRebuild") return stateOf(toolkit, capabilities, mode._tag === "EagerSessionTools" ? domains : [], 0)
  const room = capOf(capabilities) - discoveryTools(mode).length
  const active: Array<string> = []
  for (const d of domains) {
    if (sizeOf(toolkit, [...active, d]) > room) break
    active.push(d)
  }
  return stateOf(toolkit, capabilities, active, 0)
}

/** The tools one request carries with `active` domains (the discovery tools first), and how many eager discovery left out past `maxTools`. */
const requestTools = (toolkit: Toolkit.Toolkit<any>, capabilities: Provider.ProviderCapabilities, active: ReadonlyArray<string>): RequestTools => {
  const all = [...discoveryTools(modeOf(capabilities)), ...active.flatMap((d) => toolkit.domains.get(d) ?? [])]
  const cap = capOf(capabilities)
  return { names: new Set(all.slice(0, cap)), leftOut: Math.max(0, all.length - cap) }
}

/** A state with `active` domains: the toolkit's domains and the provider's capabilities are the session's for good, so its request's tools are too. */
const stateOf = (toolkit: Toolkit.Toolkit<any>, capabilities: Provider.ProviderCapabilities, active: ReadonlyArray<string>, rebuilds: number): State => ({
  active,
  rebuilds,
  request: requestTools(toolkit, capabilities, active)
})

/** The domain `tool` belongs to, for a message. */
export const domainOf = (toolkit: Toolkit.Toolkit<any>, tool: string): string | undefined => {
  for (const [domain, tools] of toolkit.domains) if (tools.includes(tool)) return domain
  return undefined
}

/** What an activation answers. */
interface Activated {
  readonly activated: string
  readonly tools: ReadonlyArray<string>
  /** Domains deactivated to make room under `maxTools`, least recently used first. */
  readonly deactivated: ReadonlyArray<string>
}

/** One activation of `domain`: the answer and the next state, or why not. */
const activation = (
  toolkit: Toolkit.Toolkit<any>,
  capabilities: Provider.ProviderCapabilities,
  state: State,
  domain: string
): Either.Either<readonly [Activated, State], Errors.ToolFailure> => {
  const mode = modeOf(capabilities)
  const tools = toolkit.domains.get(domain)
  if (tools === undefined) {
    const names = [...toolkit.domains.keys()].join(", ")
    return Either.left(new Errors.ToolFailure({ kind: "not_found", message: `There is no domain \`${domain}\`. The domains are: ${names}.`, field: "domain" }))
  }
  const others = state.active.filter((d) => d !== domain)
  if (others.length < state.active.length) return Either.right([{ activated: domain, tools, deactivated: [] }, stateOf(toolkit, capabilities, [...others, domain], state.rebuilds)])
  const room = capOf(capabilities) - discoveryTools(mode).length
  if (tools.length > room) {
    return Either.left(new Errors.ToolFailure({
      kind: "rejected",
      message: `Domain \`${domain}\` has ${tools.length} tools; this model takes at most ${room} besides the discovery tools, so it cannot be activated.`,
      retryable: false
    }))
  }
  if (mode._tag === "SessionRebuild" && state.rebuilds >= mode.maxRebuilds) {
    return Either.left(new Errors.ToolFailure({
      kind: "rejected",
      message: `The session has rebuilt its tool list ${state.rebuilds} times, its limit: no more domains can be activated.`,
      retryable: false
    }))
  }
  const active = [...state.active]
  const deactivated: Array<string> = []
  while (sizeOf(toolkit, active) + tools.length > room) deactivated.push(active.shift()!)
  return Either.right([
    { activated: domain, tools, deactivated },
    stateOf(toolkit, capabilities, [...active, domain], state.rebuilds + (mode._tag === "SessionRebuild" ? 1 : 0))
  ])
}

/**
 * The discovery tools' parameters, declared as plain JSON Schema objects that every dialect takes as they are
 * (OpenAI strict included: every property required, no others allowed).
 */
const listParameters: JsonSchema.JsonSchema = { type: "object", properties: {}, additionalProperties: false }
const activateParameters: JsonSchema.JsonSchema = {
  type: "object",
  properties: { domain: { type: "string", description: "The domain's name, as toolgate_list_domains gives it." } },
  required: ["domain"],
  additionalProperties: false
}

/** The discovery tools over the session's `state` (none for eager discovery). */
export const tools = (
  toolkit: Toolkit.Toolkit<any>,
  capabilities: Provider.ProviderCapabilities,
  state: Ref.Ref<State>
): ReadonlyArray<Tool.Tool<any, never>> => {
  if (discoveryTools(modeOf(capabilities)).length === 0) return []
  const domains = [...toolkit.domains.keys()]
  const list = Tool.make(listDomains, {
    description: "Lists the tool domains: each one's name, its tools and whether it is active.",
    parameters: listParameters,
    execute: () =>
      Effect.map(Ref.get(state), (s) => ({
        domains: [...toolkit.domains].map(([domain, tools]) => ({ domain, tools, active: s.active.includes(domain) }))
      }))
  })
  const activate = Tool.make(activateDomain, {
    description: `Activates a tool domain: its tools can be called from your next request on, for the rest of the session. The domains: ${domains.join(", ")}.`,
    parameters: activateParameters,
    execute: (args) =>
      Effect.flatten(Ref.modify(state, (s): readonly [Effect.Effect<Activated, Errors.ToolFailure>, State] => {
        // layer 2 checked the arguments against `activateParameters`: `domain` is a string
        const next = activation(toolkit, capabilities, s, (args as { readonly domain: string }).domain)
        return Either.isLeft(next) ? [Effect.fail(next.left), s] : [Effect.succeed(next.right[0]), next.right[1]]
      }))
  })
  return [list, activate]
}

/**
 * Why discovery could never activate a domain under the provider's `maxTools`, or `undefined`: with discovery
 * tools, a request must have room for both of them and for the smallest domain's tools.
 */
const tooFewSlots = (toolkit: Toolkit.Toolkit<any>, capabilities: Provider.ProviderCapabilities): string | undefined => {
  const meta = discoveryTools(modeOf(capabilities)).length
  if (meta === 0) return undefined
  const smallest = Math.min(...Array.from(toolkit.domains.values(), (tools) => tools.length))
  const needed = meta + (Number.isFinite(smallest) ? smallest : 0)
  const cap = capOf(capabilities)
  return cap >= needed ? undefined :
    `${capabilities.name} takes at most ${cap} tools, but tool discovery needs ${needed} (the ${meta} discovery tools and the smallest domain's ${needed - meta}): no domain could ever be activated`
}

/**
 * The toolkit with the discovery tools of the provider's `toolDiscovery` (none for eager discovery); an
 * `InvalidOptions` when a toolkit tool has a discovery tool's name or `maxTools` leaves no room to activate a domain.
 */
export const withTools = (
  toolkit: Toolkit.Toolkit<never>,
  capabilities: Provider.ProviderCapabilities,
  discovery: Ref.Ref<State>
): Effect.Effect<Toolkit.Toolkit<never>, Errors.InvalidOptions> => {
  const slots = tooFewSlots(toolkit, capabilities)
  if (slots !== undefined) return new Errors.InvalidOptions({ of: "AgentSession", detail: slots })
  const meta = tools(toolkit, capabilities, discovery)
  const taken = meta.find((t) => toolkit.tools.has(t.name))
  if (taken !== undefined) {
    return new Errors.InvalidOptions({ of: "AgentSession", detail: `the toolkit has a tool named \`${taken.name}\`, the name of a discovery tool` })
  }
  return Effect.succeed(meta.length === 0 ? toolkit : { ...toolkit, tools: new Map([...meta.map((t) => [t.name, t] as const), ...toolkit.tools]) })
}

/**
 * The toolkit restricted to the domains of an agent's scope (all of it when there is no scope): only their
 * tools are offered, run, listed and activated. A domain the toolkit does not have is an `InvalidOptions`.
 */
export const scope = <R>(toolkit: Toolkit.Toolkit<R>, domains: ReadonlyArray<string> | undefined): Either.Either<Toolkit.Toolkit<R>, Errors.InvalidOptions> => {
  if (domains === undefined) return Either.right(toolkit)
  const unknown = domains.filter((d) => !toolkit.domains.has(d))
  if (unknown.length > 0) {
    const known = [...toolkit.domains.keys()].join(", ")
    return Either.left(new Errors.InvalidOptions({ of: "AgentSession", detail: `scope: the toolkit has no domain ${unknown.map((d) => `\`${d}\``).join(", ")} (its domains: ${known})` }))
  }
  const kept = new Set(domains)
  const inScope = new Map([...toolkit.domains].filter(([d]) => kept.has(d)))
  const names = new Set([...inScope.values()].flat())
  return Either.right({
    ...toolkit,
    tools: new Map([...toolkit.tools].filter(([name]) => names.has(name))),
    domains: inScope,
    warnings: toolkit.warnings.filter((w) => names.has(w.tool))
  })
}

/**
 * The demo scenarios as integration sessions: the demo's local tools (`Demo.localTools`) with executors
 * that record every run, and sessions over the provider in context that send a scenario's prompt once,
 * bounded (see `withTurn`).
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import { AgentSession, Provider, Tool, Toolkit } from "@toolgate/runtime"
import { type Duration, Effect, Either } from "effect"
import * as Demo from "../../src/Demo.js"
import { sendBound, withTurn } from "./integration.js"

/** One executor run: the tool, the call id and the arguments the executor received. */
export interface Ran {
  readonly tool: string
  readonly callId: string
  readonly args: J.JsonValue
}

/** Where the user is: `locate_user`'s answer (the chaining scenario reads `result.city`). */
export const here = { city: "Lisbon" }

const cityOf = (args: J.JsonValue): J.JsonValue =>
  typeof args === "object" && args !== null && !Array.isArray(args) && Object.hasOwn(args, "city")
    ? (args as J.JsonObject)["city"] ?? null
    : null

/** How a scenario's session differs from a plain one: the larger toolkit by domain, other tools, the session's sampling. */
export interface DemoOptions {
  readonly domains?: boolean
  readonly tools?: ReadonlyArray<Demo.LocalTool>
  readonly sampling?: Provider.Sampling
}

/** The options a scenario's `client` asks for. */
export const demoOptions = (scenario: Demo.Scenario): DemoOptions => ({
  domains: scenario.client?.maxTools !== undefined,
  ...(scenario.client?.tools === undefined ? {} : { tools: scenario.client.tools }),
  ...(scenario.client?.sampling === undefined ? {} : { sampling: scenario.client.sampling })
})

/** The demo's tools (with `domains`, the larger toolkit; else `tools` or the local ones) with recording executors: the weather ones answer for any city, `locate_user` with `here`. */
export const demoToolkit = (domains = false, tools: ReadonlyArray<Demo.LocalTool> = Demo.localTools) => {
  const ran: Array<Ran> = []
  const tool = (local: Demo.LocalTool) =>
    Tool.make(local.name, {
      description: local.description,
      parameters: local.parameters,
      execute: (args, ctx) =>
        Effect.sync(() => {
          ran.push({ tool: local.name, callId: ctx.callId, args })
          return local.name === "locate_user" ? { ...here } : { city: cityOf(args), sky: "sunny" }
        })
    })
  const toolkit = Either.getOrThrow(
    domains
      ? Toolkit.domains(Object.fromEntries(Object.entries(Demo.domainTools).map(([domain, tools]) => [domain, tools.map(tool)])))
      : Toolkit.make(...tools.map(tool))
  )
  return { toolkit, ran, runs: { get count() { return ran.length } } }
}

/** A cloud-profile session over the provider, gate and validator in context, with the demo's tools. */
export const demoCloudSession = (bound: Duration.DurationInput = sendBound, options: DemoOptions = {}) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { ran, runs, toolkit } = demoToolkit(options.domains, options.tools)
    const sampling = options.sampling === undefined ? {} : { sampling: options.sampling }
    return { ...withTurn(yield* AgentSession.make({ provider, toolkit, mode: "cloudProfile", ...sampling }), runs, bound), ran }
  })

/** A local-mode session (no gate) over the provider and validator in context, with the demo's tools. */
export const demoLocalSession = (bound: Duration.DurationInput = sendBound, options: DemoOptions = {}) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { ran, runs, toolkit } = demoToolkit(options.domains, options.tools)
    const sampling = options.sampling === undefined ? {} : { sampling: options.sampling }
    return { ...withTurn(yield* AgentSession.make({ provider, toolkit, mode: "local", ...sampling }), runs, bound), ran }
  })

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

/** The demo's tools with recording executors: `get_weather` answers for any city, `locate_user` with `here`. */
export const demoToolkit = () => {
  const ran: Array<Ran> = []
  const tools = Demo.localTools.map((local) =>
    Tool.make(local.name, {
      description: local.description,
      parameters: local.parameters,
      execute: (args, ctx) =>
        Effect.sync(() => {
          ran.push({ tool: local.name, callId: ctx.callId, args })
          return local.name === "locate_user" ? { ...here } : { city: cityOf(args), sky: "sunny" }
        })
    })
  )
  const toolkit = Either.getOrThrow(Toolkit.make(...tools))
  return { toolkit, ran, runs: { get count() { return ran.length } } }
}

/** A cloud-profile session over the provider, gate and validator in context, with the demo's tools. */
export const demoCloudSession = (bound: Duration.DurationInput = sendBound) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { ran, runs, toolkit } = demoToolkit()
    return { ...withTurn(yield* AgentSession.make({ provider, toolkit, mode: "cloudProfile" }), runs, bound), ran }
  })

/** A local-mode session (no gate) over the provider and validator in context, with the demo's tools. */
export const demoLocalSession = (bound: Duration.DurationInput = sendBound) =>
  Effect.gen(function*() {
    const provider = yield* Provider.Provider
    const { ran, runs, toolkit } = demoToolkit()
    return { ...withTurn(yield* AgentSession.make({ provider, toolkit, mode: "local" }), runs, bound), ran }
  })

/**
 * The sessions behind the relay's `/chat`: one per chat id, on the relay's own scripted model (the served
 * script, each of its turns played again in order so a chat can go on), with the demo's local tools
 * (`Demo.localTools` and the forecast tool, answered from a small table) in cloud-profile mode, the drift gate
 * proving them against the served profile in-process. So `/scenarios/drift/chat` ends with the drift error,
 * `/scenarios/repair/chat` shows a rejected call and its repair. At most `capacity` chats are held; past it
 * the least recently used is dropped (a later request for it starts over).
 *
 * @internal
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import { RelayProfileClient, type Script, Scripted } from "@toolgate/providers"
import { type AgentSession as Session, AgentSession, ArgumentValidator, DriftGate, type Errors, RelayProfile, Tool, Toolkit } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as DemoTools from "./demoTools.js"

/** The most chats one served profile keeps. */
export const capacity = 256

/** How many turns a chat can have: the script's turns played again in order until then. */
const maxTurns = 64

/** The script with its turns repeated, so every send of a chat finds a round. */
const repeated = (script: Script.Script): Script.Script =>
  script.turns.length === 0 ? script : { turns: Array.from({ length: maxTurns }, (_, i) => script.turns[i % script.turns.length]!) }

const weather: Readonly<Record<string, { readonly celsius: number; readonly sky: string }>> = {
  Paris: { celsius: 18, sky: "sunny" },
  Rome: { celsius: 24, sky: "clear" },
  Berlin: { celsius: 12, sky: "light rain" },
  Madrid: { celsius: 27, sky: "sunny" },
  Lisbon: { celsius: 21, sky: "breezy" }
}

const field = (args: J.JsonValue, key: string): J.JsonValue | undefined =>
  typeof args === "object" && args !== null && !Array.isArray(args) && Object.hasOwn(args, key) ? (args as J.JsonObject)[key] : undefined

const forecast = (args: J.JsonValue) => {
  const city = field(args, "city")
  const known = typeof city === "string" && Object.hasOwn(weather, city) ? weather[city] : undefined
  if (typeof city !== "string" || known === undefined) return Tool.fail("not_found", `no weather for ${JSON.stringify(city)}`)
  const imperial = field(args, "units") === "imperial"
  return Effect.succeed({ city, temperature: imperial ? Math.round(known.celsius * 9 / 5 + 32) : known.celsius, sky: known.sky })
}

const executors: Readonly<Record<string, (args: J.JsonValue) => Effect.Effect<J.JsonValue, Errors.ToolFailure>>> = {
  get_weather: forecast,
  get_forecast: forecast,
  locate_user: () => Effect.succeed({ city: "Lisbon", country: "Portugal" })
}

/** The chat's toolkit: the demo's local tools and the forecast tool. */
const toolkit = Toolkit.make(...[DemoTools.getWeather, DemoTools.locateUser, DemoTools.getForecast].map((local) =>
  Tool.make(local.name, { description: local.description, parameters: local.parameters, execute: (args) => executors[local.name]!(args) })
))

/** The drift gate over the served profile, read in-process. */
const gate = (profile: unknown) =>
  DriftGate.layer.pipe(Layer.provide(Layer.succeed(RelayProfile.RelayProfile, {
    probe: () => Either.match(RelayProfileClient.fromBody(profile), { onLeft: Effect.fail, onRight: Effect.succeed })
  })))

/** A new session of chat `id` over `script`, gated by `profile`. */
const make = (id: string, profile: unknown, script: Script.Script) =>
  Effect.gen(function*() {
    const tools = yield* Either.match(toolkit, { onLeft: Effect.fail, onRight: Effect.succeed })
    const provider = yield* Scripted.make(repeated(script))
    return yield* AgentSession.make({ id, provider, toolkit: tools, mode: "cloudProfile" })
  }).pipe(Effect.provide(Layer.merge(gate(profile), ArgumentValidator.layer)))

/** The session of a chat id for one served profile and script: made on first use, kept (least recently used dropped past `capacity`). */
export const sessions = (profile: unknown, script: Script.Script) => {
  const held = new Map<string, Session.AgentSession>()
  const lock = Effect.unsafeMakeSemaphore(1)
  return (id: string) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const known = held.get(id)
      if (known !== undefined) {
        held.delete(id)
        held.set(id, known)
        return known
      }
      const made = yield* make(id, profile, script)
      held.set(id, made)
      if (held.size > capacity) held.delete(held.keys().next().value!)
      return made
    }))
}

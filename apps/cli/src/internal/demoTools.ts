/**
 * The demo app's executors over `Demo.localTools` (or, for the tool discovery scenario, the eight tools of
 * `Demo.domainTools`, grouped by domain; or the tools a scenario's client names): `get_weather` and
 * `get_forecast` answer from a small in-memory table, `locate_user` says where the user is, and the others
 * are never meant to run. Each run is recorded (call id, the arguments the executor got,
 * the raw arguments, the preflight's coercions), so a trace can show what ran and a scenario that must
 * run nothing can prove it.
 *
 * @internal
 */
import type { Coercion, JsonValue as J } from "@toolgate/json-schema"
import { type Errors, Tool, Toolkit } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Demo from "@toolgate/relay/Demo"

/** One executor run: which call, what the executor received, what the model sent, what the preflight repaired. */
export interface Ran {
  readonly tool: string
  readonly callId: string
  readonly args: J.JsonValue
  readonly raw: unknown
  readonly coercions: ReadonlyArray<Coercion.Coercion>
  readonly result: J.JsonValue
}

interface Weather {
  readonly celsius: number
  readonly sky: string
}

/** The weather the demo knows, by city. */
const weather: ReadonlyMap<string, Weather> = new Map([
  ["Paris", { celsius: 18, sky: "sunny" }],
  ["Rome", { celsius: 24, sky: "clear" }],
  ["Berlin", { celsius: 12, sky: "light rain" }],
  ["Madrid", { celsius: 27, sky: "sunny" }],
  ["Lisbon", { celsius: 21, sky: "breezy" }],
  ["Oslo", { celsius: 6, sky: "overcast" }],
  ["Vienna", { celsius: 15, sky: "cloudy" }],
  ["Lyon", { celsius: 16, sky: "clear" }]
])

/** Where the demo's user is. */
const here = { city: "Lisbon", country: "Portugal" } as const

const field = (args: J.JsonValue, key: string): J.JsonValue | undefined =>
  typeof args === "object" && args !== null && !Array.isArray(args) && Object.hasOwn(args, key) ? (args as J.JsonObject)[key] : undefined

const getWeather = (args: J.JsonValue) => {
  const city = field(args, "city")
  const known = typeof city === "string" ? weather.get(city) : undefined
  if (typeof city !== "string" || known === undefined) return Tool.fail("not_found", `no weather for ${JSON.stringify(city)}`)
  const units = field(args, "units") === "imperial" ? "imperial" : "metric"
  const days = field(args, "days")
  const temperature = units === "imperial" ? Math.round(known.celsius * 9 / 5 + 32) : known.celsius
  return Effect.succeed({ city, units, temperature, sky: known.sky, days: typeof days === "number" ? days : 1 } satisfies J.JsonValue)
}

const executors: Readonly<Record<string, (args: J.JsonValue) => Effect.Effect<J.JsonValue, Errors.ToolFailure>>> = {
  get_weather: getWeather,
  get_forecast: getWeather,
  locate_user: () => Effect.succeed({ ...here })
}

/**
 * The demo toolkit with a fresh run log (read it after the turn): the local tools, with `domains` the larger
 * toolkit by domain, with `tools` those.
 */
export const make = (options: { readonly domains?: boolean; readonly tools?: ReadonlyArray<Demo.LocalTool> } = {}): Either.Either<
  { readonly toolkit: Toolkit.Toolkit<never>; readonly ran: ReadonlyArray<Ran> },
  Errors.DuplicateToolName | Errors.NotATool | Errors.InvalidOptions
> => {
  const ran: Array<Ran> = []
  const tool = (local: Demo.LocalTool) =>
    Tool.make(local.name, {
      description: local.description,
      parameters: local.parameters,
      execute: (args, ctx) =>
        Effect.gen(function*() {
          const run = Object.hasOwn(executors, local.name) ? executors[local.name] : undefined
          if (run === undefined) return yield* Tool.fail("tool_not_found", `the demo has no executor for ${local.name}`)
          const result = yield* run(args)
          ran.push({ tool: local.name, callId: ctx.callId, args, raw: ctx.raw, coercions: ctx.coercions, result })
          return result
        })
    })
  const toolkit = options.domains === true
    ? Toolkit.domains(Object.fromEntries(Object.entries(Demo.domainTools).map(([domain, tools]) => [domain, tools.map(tool)])))
    : Toolkit.make(...(options.tools ?? Demo.localTools).map(tool))
  return toolkit.pipe(Either.map((toolkit) => ({ toolkit, ran })))
}

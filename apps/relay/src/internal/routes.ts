/**
 * The relay's routing: the three endpoints over one profile and script (at the root, or under
 * `/scenarios/<name>`), and the dispatch that hands a `/scenarios/<name>/…` request to that scenario's
 * routes with the prefix taken off its URL (an unknown name is a 404).
 *
 * @internal
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { JsonValue as J } from "@toolgate/json-schema"
import { RelayWire } from "@toolgate/providers"
import { Capabilities } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Faults from "../Faults.js"
import * as Profile from "../Profile.js"
import * as Chat from "./chat.js"
import { attempt, endpoint, type Resolved } from "./endpoint.js"
import * as Http from "./http.js"
import * as Turns from "./turns.js"

/** The Chat Completions path (under the served root, as `…/v1` base URLs expect). */
export const chatCompletionsPath = "/v1/chat/completions"

/** Where the named scenarios are served: `/scenarios/<name>/v1/agent/turns`, … */
export const scenariosPrefix = "/scenarios/"

const allowed: Readonly<Record<string, string>> = {
  [Capabilities.path]: "GET, HEAD",
  [RelayWire.turnsPath]: "POST",
  [chatCompletionsPath]: "POST"
}

/** 404 for an unknown path, 405 (with `allow`) for a known path and another method; `base` is where these routes are served. */
const fallback = (base: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = Http.pathOf(request.url)
    const allow = Object.hasOwn(allowed, path) ? allowed[path] : undefined
    return allow === undefined
      ? Http.errorResponse(404, `no route ${Http.clean(base + path)}`, "not_found")
      : Http.errorResponse(405, `${Http.clean(request.method)} is not allowed on ${base}${path} (allowed: ${allow})`, "method_not_allowed", { allow })
  })

/** The capabilities body for each combination of capability faults, encoded once. */
const capabilitiesBodies = (resolved: Resolved) => {
  const bodies = new Map<string, string | undefined>()
  return (faults: ReadonlySet<Faults.Fault>): string | undefined => {
    const on = Faults.capabilityFaults.filter((fault) => faults.has(fault))
    const key = on.join(",")
    if (!bodies.has(key)) bodies.set(key, J.stringify(Profile.capabilities(resolved.profile, on)))
    return bodies.get(key)
  }
}

/** The three endpoints over one profile and script, and the JSON 404/405 for anything else; `base` names them in errors. */
export const served = (relay: Resolved, base: string): HttpRouter.HttpRouter => {
  const capabilities = capabilitiesBodies(relay)
  let completions = 0
  const next = () => ++completions
  const profile = endpoint(relay, false, (plan) =>
    Effect.flatMap(attempt("encode the profile", () => capabilities(plan.faults)), (body) =>
      body === undefined
        ? Effect.fail(new Http.Rejection({ status: 500, message: "the profile is not JSON", type: "server_error" }))
        : Effect.succeed(Http.jsonAnswer(200, body))))
  return HttpRouter.empty.pipe(
    HttpRouter.get(Capabilities.path, profile),
    // the catch-all would take HEAD before the router's GET fallback does (Node sends no body for HEAD)
    HttpRouter.head(Capabilities.path, profile),
    HttpRouter.post(RelayWire.turnsPath, endpoint(relay, true, (_, body) => Turns.answer(relay, body))),
    HttpRouter.post(chatCompletionsPath, endpoint(relay, true, (_, body) => Chat.answer(relay, body, next))),
    HttpRouter.all("*", fallback(base))
  )
}

/** The routes of the named scenarios: `/scenarios/<name>/…` answered by that scenario's routes, an unknown name a 404. */
export const scenarios = (named: ReadonlyMap<string, Resolved>): HttpRouter.HttpRouter => {
  const routers = new Map(Array.from(named, ([name, relay]) => [name, served(relay, `${scenariosPrefix}${name}`)] as const))
  const known = Http.clip(Array.from(named.keys()).join(", "), 200)
  const dispatch: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const rest = Http.pathOf(request.url).slice(scenariosPrefix.length)
    const slash = rest.indexOf("/")
    const name = slash === -1 ? rest : rest.slice(0, slash)
    const router = routers.get(name)
    if (router === undefined) {
      return Http.errorResponse(404, `no scenario ${JSON.stringify(Http.clean(name))} (scenarios: ${known === "" ? "none" : known})`, "not_found")
    }
    const tail = request.url.slice(scenariosPrefix.length + name.length)
    const inner = request.modify({ url: tail.startsWith("/") ? tail : `/${tail}` })
    return yield* router.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, inner),
      // unreachable (every scenario's routes end in a catch-all), but typed
      Effect.catchTag("RouteNotFound", () => Effect.succeed(Http.errorResponse(404, "no route", "not_found")))
    )
  })
  return HttpRouter.empty.pipe(
    HttpRouter.all(`${scenariosPrefix}*`, dispatch),
    HttpRouter.all(scenariosPrefix.slice(0, -1) as HttpRouter.PathInput, dispatch)
  )
}

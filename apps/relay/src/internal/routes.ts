/**
 * The relay's routing: the endpoints (capabilities, turns, Chat Completions, Responses, the model list,
 * Gemini's model paths) over one profile and script, at the root or mounted under
 * `/scenarios/<name>` (an unknown name is a 404).
 *
 * @internal
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { JsonValue as J, Text } from "@toolgate/json-schema"
import { RelayProfileClient, RelayWire } from "@toolgate/providers"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Faults from "../Faults.js"
import * as Profile from "../Profile.js"
import * as Chat from "./chat.js"
import { chat, chatPath } from "./chatRoute.js"
import { attempt, endpoint, type Resolved } from "./endpoint.js"
import * as Gemini from "./gemini.js"
import * as Http from "./http.js"
import * as Responses from "./responses.js"
import * as Turns from "./turns.js"

/** The Chat Completions path (under the served root, as `…/v1` base URLs expect). */
export const chatCompletionsPath = "/v1/chat/completions"

/** The Responses API path (under the served root, as `…/v1` base URLs expect). */
export const responsesPath = "/v1/responses"

/** The OpenAI model list path: the relay's model (`GET`). */
export const modelsPath = "/v1/models"

/** The model the relay lists; every model name a request gives reaches the same script. */
export const modelId = "toolgate-scripted"

/** Where the named scenarios are served: `/scenarios/<name>/v1/agent/turns`, … */
export const scenariosPrefix = "/scenarios/"

const allowed: Readonly<Record<string, string>> = {
  [RelayProfileClient.path]: "GET, HEAD",
  [RelayWire.turnsPath]: "POST",
  [chatCompletionsPath]: "POST",
  [responsesPath]: "POST",
  [modelsPath]: "GET, HEAD",
  [chatPath]: "POST"
}

/** The error shape of a path: Google's on Gemini's model paths (at the root or under a scenario), else OpenAI's. */
export const errorStyleOf = (url: string): Http.ErrorStyle => {
  const path = Http.pathOf(url)
  const rest = path.startsWith(scenariosPrefix) ? path.slice(path.indexOf("/", scenariosPrefix.length)) : path
  return rest.startsWith(Gemini.modelsPrefix) ? "google" : "openai"
}

/** 404 for an unknown path, 405 (with `allow`) for a known path and another method; `base` is where these routes are served. */
const fallback = (base: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = Http.pathOf(request.url)
    const gemini = path.startsWith(Gemini.modelsPrefix)
    const allow = Object.hasOwn(allowed, path) ? allowed[path] : gemini ? "POST" : undefined
    return allow === undefined
      ? Http.errorResponse(404, `no route ${Http.clean(base + path)}`, "not_found")
      : Http.errorResponse(405, `${Http.clean(request.method)} is not allowed on ${base}${path} (allowed: ${allow})`, "method_not_allowed", { allow }, gemini ? "google" : "openai")
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

/** The endpoints over one profile and script, and the JSON 404/405 for anything else; `base` names them in errors. */
export const served = (relay: Resolved, base: string): HttpRouter.HttpRouter => {
  const capabilities = capabilitiesBodies(relay)
  let completions = 0
  const next = () => ++completions
  const profile = endpoint(relay, false, (plan) =>
    Effect.flatMap(attempt("encode the profile", () => capabilities(plan.faults)), (body) =>
      body === undefined
        ? Effect.fail(new Http.Rejection({ status: 500, message: "the profile is not JSON", type: "server_error" }))
        : Effect.succeed(Http.jsonAnswer(200, body))))
  const models = endpoint(relay, false, () => Effect.succeed(Http.jsonAnswer(200, modelsBody)))
  return HttpRouter.empty.pipe(
    HttpRouter.get(RelayProfileClient.path, profile),
    // the catch-all would take HEAD before the router's GET fallback does (Node sends no body for HEAD)
    HttpRouter.head(RelayProfileClient.path, profile),
    HttpRouter.post(RelayWire.turnsPath, endpoint(relay, true, (_, body) => Turns.answer(relay, body))),
    HttpRouter.post(chatCompletionsPath, endpoint(relay, true, (_, body) => Chat.answer(relay, body, next))),
    HttpRouter.post(responsesPath, endpoint(relay, true, (_, body) => Responses.answer(relay, body, next))),
    HttpRouter.post(chatPath, chat(relay)),
    HttpRouter.get(modelsPath, models),
    HttpRouter.head(modelsPath, models),
    HttpRouter.post(`${Gemini.modelsPrefix}*` as HttpRouter.PathInput, gemini(relay, next)),
    HttpRouter.all("*", fallback(base))
  )
}

/** Gemini's model paths: the method and model read from the path (an unknown method a 404), then the endpoint; errors in Google's shape. */
const gemini = (relay: Resolved, next: () => number) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Either.match(Gemini.targetOf(request), {
      onLeft: (rejection) => Effect.succeed(Http.reject(rejection, "google")),
      onRight: (to) => endpoint(relay, true, (_, body) => Gemini.answer(relay, body, to, next), "google")
    }))

/** `GET /v1/models`: an OpenAI model list naming the relay's one model. */
const modelsBody = JSON.stringify({ object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "toolgate" }] })

/**
 * The routes of the named scenarios: each scenario's routes mounted at `/scenarios/<name>` (matched on the
 * raw path, so `%61lpha` is not `alpha`; the prefix is taken off the URL), any other name a 404.
 */
export const scenarios = (named: ReadonlyMap<string, Resolved>): HttpRouter.HttpRouter => {
  const known = Text.clip(Array.from(named.keys()).join(", "), 200)
  const unknown = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const name = Http.pathOf(request.url).slice(scenariosPrefix.length).split("/")[0]!
    return Http.errorResponse(404, `no scenario ${JSON.stringify(Http.clean(name))} (scenarios: ${known === "" ? "none" : known})`, "not_found")
  })
  return Array.from(named).reduce(
    // every scenario's routes end in a catch-all: RouteNotFound cannot happen there
    (router, [name, relay]) => HttpRouter.mountApp(router, `${scenariosPrefix}${name}`, Effect.orDie(served(relay, `${scenariosPrefix}${name}`))),
    HttpRouter.empty.pipe(HttpRouter.all(`${scenariosPrefix}*`, unknown), HttpRouter.all(scenariosPrefix.slice(0, -1) as HttpRouter.PathInput, unknown))
  )
}

/**
 * The frame every endpoint runs in: the request's faults are read, the body (when the endpoint takes one)
 * is checked to be JSON by its content type, read within the size and time limits and parsed within the
 * depth limit (see `body.ts`), the endpoint builds its answer, and the faults are applied.
 * A refusal becomes its JSON error (in the endpoint's `ErrorStyle`); a defect becomes a 500, never a crashed server.
 *
 * @internal
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Script } from "@toolgate/providers"
import * as Effect from "effect/Effect"
import type * as Faults from "../Faults.js"
import * as Body from "./body.js"
import type { Limits } from "./config.js"
import * as Http from "./http.js"

/** A relay's configuration, checked once: one profile and script with the relay's request limits. */
export interface Resolved extends Limits {
  readonly profile: unknown
  readonly profileFaults: ReadonlyArray<Faults.Fault>
  readonly script: Script.Script
}

/** Runs one endpoint: `answer` gets the plan and the parsed JSON body (`undefined` for an endpoint without one). */
export const endpoint = (
  resolved: Resolved,
  takesBody: boolean,
  answer: (plan: Http.Plan, body: unknown) => Effect.Effect<Http.Answer, Http.Rejection>,
  style: Http.ErrorStyle = "openai"
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const plan = yield* Http.plan(request, resolved.profileFaults, resolved.faultHeaders)
    const body = takesBody ? yield* Body.json(request, resolved) : undefined
    const built = yield* answer(plan, body)
    return yield* Http.respond(request, plan, built, style)
  }).pipe(
    Effect.catchTag("Rejection", (rejection) => Effect.succeed(Http.reject(rejection, style))),
    Effect.catchAllDefect(() => Effect.succeed(Http.errorResponse(500, "the relay could not answer this request", "server_error", undefined, style)))
  )

/** Builds a value that may throw (an encoder given a hostile script) as a 500 refusal instead. */
export const attempt = <A>(what: string, build: () => A): Effect.Effect<A, Http.Rejection> =>
  Effect.try({
    try: build,
    catch: () => new Http.Rejection({ status: 500, message: `the relay could not ${what}`, type: "server_error" })
  })

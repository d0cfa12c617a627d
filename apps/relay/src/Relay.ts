/**
 * The reference relay: an HTTP server that serves a profile's capabilities, streams a scripted model's
 * turns as server-sent events, and speaks the OpenAI Chat Completions wire format over the same script.
 *
 * | route | answers |
 * |---|---|
 * | `GET /v1/agent/capabilities` | the profile (see `Profile`), after capability faults |
 * | `POST /v1/agent/turns` | a `RelayWire.TurnRequest` → the scripted round's events (`RelayWire.encodeEvent`), or `event: error` |
 * | `POST /v1/chat/completions` | Chat Completions, `stream: true` (chunks, `data: [DONE]`) or not (`chat.completion`) |
 *
 * Faults (see `Faults`) apply per request header or per profile. Bad requests get a 4xx JSON error
 * `{ error: { message, type } }`, bodies over `maxBodyBytes` a 413, unknown paths a 404, a known path with
 * the wrong method a 405; every request is logged on one line (method, path, status, milliseconds).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { JsonValue as J } from "@toolgate/json-schema"
import { RelayWire, Script } from "@toolgate/providers"
import { Capabilities } from "@toolgate/runtime"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import * as Faults from "./Faults.js"
import * as Chat from "./internal/chat.js"
import { attempt, endpoint, type Resolved } from "./internal/endpoint.js"
import * as Http from "./internal/http.js"
import * as Turns from "./internal/turns.js"
import * as Profile from "./Profile.js"

/** What a relay serves: a profile (raw JSON), a script, and the largest request body it reads. */
export interface Config {
  readonly profile: unknown
  readonly script: Script.Script
  /** Default 1 MiB. */
  readonly maxBodyBytes?: number
}

/** The request body limit when the config gives none. */
export const defaultMaxBodyBytes = 1024 * 1024

/** The Chat Completions path (under the server root, as `…/v1` base URLs expect). */
export const chatCompletionsPath = "/v1/chat/completions"

/** A profile or script file that cannot be read, is not JSON, or is not a profile or script. */
export class RelayFileError extends Schema.TaggedError<RelayFileError>()("RelayFileError", {
  path: Schema.String,
  reason: Schema.String
}) {
  /** The file and what is wrong with it. */
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/** The config checked: the profile's faults read, the body limit a positive whole number. */
const resolve = (config: Config): Either.Either<Resolved, string> => {
  const max = config.maxBodyBytes ?? defaultMaxBodyBytes
  if (!Number.isSafeInteger(max) || max <= 0) return Either.left(`maxBodyBytes must be a positive whole number, got ${String(max)}`)
  const faults = Profile.faults(config.profile)
  if (Either.isLeft(faults)) return Either.left(`the profile's ${faults.left}`)
  return Either.right({ profile: config.profile, profileFaults: faults.right, script: config.script, maxBodyBytes: max })
}

const allowed: Readonly<Record<string, string>> = {
  [Capabilities.path]: "GET, HEAD",
  [RelayWire.turnsPath]: "POST",
  [chatCompletionsPath]: "POST"
}

/** 404 for an unknown path, 405 (with `allow`) for a known path and another method. */
const fallback = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = pathOf(request.url)
  const allow = Object.hasOwn(allowed, path) ? allowed[path] : undefined
  return allow === undefined
    ? Http.errorResponse(404, `no route ${clean(path)}`, "not_found")
    : Http.errorResponse(405, `${clean(request.method)} is not allowed on ${path} (allowed: ${allow})`, "method_not_allowed", { allow })
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

/** The relay's routes for `config` (a config that is not valid answers every request with a 500 saying why). */
export const router = (config: Config): HttpRouter.HttpRouter => {
  const resolved = resolve(config)
  if (Either.isLeft(resolved)) {
    return HttpRouter.empty.pipe(HttpRouter.all("*", Effect.succeed(Http.errorResponse(500, `the relay is misconfigured: ${resolved.left}`, "server_error"))))
  }
  const relay = resolved.right
  const capabilities = capabilitiesBodies(relay)
  let completions = 0
  const next = () => ++completions
  return HttpRouter.empty.pipe(
    HttpRouter.get(Capabilities.path, endpoint(relay, false, (plan) =>
      Effect.flatMap(attempt("encode the profile", () => capabilities(plan.faults)), (body) =>
        body === undefined
          ? Effect.fail(new Http.Rejection({ status: 500, message: "the profile is not JSON", type: "server_error" }))
          : Effect.succeed(Http.jsonAnswer(200, body))))),
    HttpRouter.post(RelayWire.turnsPath, endpoint(relay, true, (_, body) => Turns.answer(relay, body))),
    HttpRouter.post(chatCompletionsPath, endpoint(relay, true, (_, body) => Chat.answer(relay, body, next))),
    HttpRouter.all("*", fallback)
  )
}

/** Logs one line per request: method, path, status (499: the client went away first), milliseconds until the answer was sent. */
export const logger = HttpMiddleware.make((app) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(app)
    const ms = (yield* Clock.currentTimeMillis) - started
    const status = Exit.isSuccess(exit)
      ? exit.value.status
      : Cause.isInterruptedOnly(exit.cause) ? 499 : HttpServerError.causeResponseStripped(exit.cause)[0].status
    yield* Effect.log(`${clean(request.method)} ${clean(pathOf(request.url))} ${status} ${ms}ms`)
    return yield* exit
  })
)

/** The served relay on a server's `HttpServer`, dying at build on a config that is not valid. */
const served = (config: Config) =>
  Layer.unwrapEffect(Effect.map(
    Effect.mapError(resolve(config), (reason) => new Error(`Relay: ${reason}`)).pipe(Effect.orDie),
    () => HttpServer.serve(router(config), logger)
  ))

/** The relay on `127.0.0.1:port` (port 0: any free port), for an app's layer graph. */
export const layer = (config: Config, options: { readonly port: number }): Layer.Layer<never, HttpServerError.ServeError> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    if (!Number.isSafeInteger(options.port) || options.port < 0 || options.port > 65_535) {
      return yield* Effect.dieMessage(`Relay: not a port: ${String(options.port)}`)
    }
    return served(config).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: "127.0.0.1" })))
  }))

/** Starts the relay on a free loopback port for the surrounding scope (tests, the demo) and gives its URL. */
export const start = (config: Config): Effect.Effect<{ readonly url: string }, HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const node = createServer()
    const context = yield* Layer.build(
      served(config).pipe(Layer.provideMerge(NodeHttpServer.layer(() => node, { port: 0, host: "127.0.0.1" })))
    )
    // Closing the server waits for open connections: first cut them (a client may hold one open).
    yield* Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections()))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("Relay: the server is not on a TCP port")
    return { url: `http://127.0.0.1:${address.port}` }
  })

/** Reads a file as JSON, or says why not. */
const readJson = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new RelayFileError({ path, reason: `cannot be read (${e.message})` }))
    )
    const json = Http.parseJson(text)
    if (Either.isLeft(json)) return yield* new RelayFileError({ path, reason: "is not JSON" })
    return json.right
  })

/** A profile file: any JSON (kept as is) whose `faults`, when present, lists known faults. */
export const loadProfile: (path: string) => Effect.Effect<Profile.Profile, RelayFileError, FileSystem.FileSystem> = Effect.fn(
  "Relay.loadProfile"
)(function*(path: string) {
  const profile = yield* readJson(path)
  const faults = Profile.faults(profile)
  if (Either.isLeft(faults)) return yield* new RelayFileError({ path, reason: faults.left })
  return profile
})

/** A scenario file: a `Script` as JSON (`{ "turns": [[round, …], …] }`). */
export const loadScript: (path: string) => Effect.Effect<Script.Script, RelayFileError, FileSystem.FileSystem> = Effect.fn(
  "Relay.loadScript"
)(function*(path: string) {
  const script = Script.decode(yield* readJson(path))
  if (Either.isLeft(script)) return yield* new RelayFileError({ path, reason: `is not a script: ${Http.issuesText(script.left)}` })
  return script.right
})

/** A URL's path, without its query. */
const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Text safe for one log line or message: control characters escaped, at most 200 characters. */
const clean = (text: string): string => Http.clip(text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`), 200)

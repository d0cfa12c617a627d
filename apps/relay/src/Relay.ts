/**
 * The reference relay: an HTTP server that serves a profile's capabilities, streams a scripted model's
 * turns as server-sent events, and speaks the OpenAI Chat Completions and Responses wire formats and the Gemini
 * API's `streamGenerateContent` over the same script.
 *
 * | route | answers |
 * |---|---|
 * | `GET /v1/agent/capabilities` | the profile (see `Profile`), after capability faults |
 * | `POST /v1/agent/turns` | a `RelayWire.TurnRequest` → the scripted round's events (`RelayWire.encodeEvent`), or `event: error` |
 * | `POST /v1/chat/completions` | Chat Completions, `stream: true` (chunks, `data: [DONE]`) or not (`chat.completion`; a round cut before `Done`: `finish_reason: "length"`) |
 * | `POST /v1/responses` | the Responses API (`@effect/ai-openai`'s `OpenAiLanguageModel`), `stream: true` (typed events up to `response.completed`) or not (`response`; a round cut before `Done`: `status: "incomplete"`) |
 * | `GET /v1/models` | an OpenAI model list naming the relay's model, `toolgate-scripted` (any model name a request gives reaches the same script) |
 * | `POST /v1beta/models/{model}:streamGenerateContent` | the Gemini API (`Gemini.make({ baseUrl: url + "/v1beta" })`, `@google/genai`): `GenerateContentResponse` chunks, as `data:` events with `?alt=sse`, else one JSON array |
 * | `POST /v1beta/models/{model}:generateContent` | the round as one `GenerateContentResponse` |
 * | `POST /v1beta/models/{model}:countTokens` | `{ totalTokens }`: an approximate count (characters / 4, rounded up), not a tokenizer's |
 * | `POST /chat` | the Vercel AI SDK's chat endpoint (`DefaultChatTransport`): a session over the script (one per chat id), its turn as the UI message stream |
 *
 * Named scenarios (`Config.scenarios`) are served the same way under `/scenarios/<name>` (so
 * `/scenarios/drift/v1/agent/turns`), each with its own profile, script and profile faults; a client picks
 * one by its base URL. An unknown name is a 404.
 *
 * Faults (see `Faults`) apply per profile, and per request header when the config turns `faultHeaders` on
 * (off, a fault header is a 400). Bad requests get a 4xx JSON error `{ error: { message, type } }` (on Gemini's
 * model paths Google's `{ error: { code, message, status } }`): a POST
 * that is not `application/json` a 415, a body over `maxBodyBytes` a 413, one slower than `bodyTimeoutMs` a
 * 408, one nested deeper than `maxBodyDepth` a 400; unknown paths a 404, a known path with the wrong method a
 * 405. At most `maxConnections` connections are open at once, at most `maxConnectionsPerClient` of them from
 * one remote address. Before any route, the `Host` header must name the relay (bound to loopback:
 * `localhost`, `127.0.0.1` or `[::1]` with its port, or one of `allowedHosts`) and an `Origin` header, when
 * sent, must be the relay's own origin or one of `allowedOrigins`; else a 403. Every request is logged on one
 * line (method, path, status, milliseconds).
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
import { Script } from "@toolgate/providers"
import { Telemetry } from "@toolgate/runtime"
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
import * as BoundedFile from "./BoundedFile.js"
import * as Checked from "./internal/config.js"
import * as Guard from "./internal/guard.js"
import * as Http from "./internal/http.js"
import * as Routes from "./internal/routes.js"
import * as Profile from "./Profile.js"

/** A named scenario: the profile and script served under `/scenarios/<name>`. */
export interface Scenario {
  readonly profile: unknown
  readonly script: Script.Script
}

/** What a relay serves: a profile (raw JSON) and a script at the root, named scenarios, its request limits, and whether fault headers are honoured. */
export interface Config {
  readonly profile: unknown
  readonly script: Script.Script
  /** Each served under `/scenarios/<name>` with the same endpoints; names are url-safe (see `isScenarioName`). */
  readonly scenarios?: ReadonlyMap<string, Scenario>
  /** Default 1 MiB, for every scenario. */
  readonly maxBodyBytes?: number
  /** The deepest nesting of arrays and objects a JSON body may have (default 256); deeper is a 400, found before parsing. */
  readonly maxBodyDepth?: number
  /** How long a request body may take to arrive once its headers have (default 10 000 ms); slower is a 408 and a closed connection. */
  readonly bodyTimeoutMs?: number
  /** The most connections open at once (default 512); past it a new connection is closed as it is accepted. */
  readonly maxConnections?: number
  /**
   * The most connections one client (remote address) may hold open at once (default half of `maxConnections`,
   * at least 1); past it that client's next connection is closed as it is accepted, so others still get through.
   */
  readonly maxConnectionsPerClient?: number
  /**
   * `Host` header names accepted besides the loopback names (`localhost`, `127.0.0.1`, `[::1]` with the relay's
   * port): `name` for any port, `name:port` for one (a relay behind a proxy that keeps the client's Host).
   * Any other Host is a 403: a page whose name was rebound to 127.0.0.1 cannot reach the relay.
   */
  readonly allowedHosts?: ReadonlyArray<string>
  /**
   * Web origins (`https://app.example:8443`) whose browser requests are accepted besides the relay's own
   * (`http://localhost:<port>`, …); a request with any other `Origin` header (`null` included) is a 403. The
   * relay sends no CORS headers: this only lifts the refusal.
   */
  readonly allowedOrigins?: ReadonlyArray<string>
  /**
   * Honour the `x-toolgate-fault` and `x-toolgate-delay-ms` request headers (default `false`: a request
   * carrying one is a 400, so nothing else on the machine can switch faults on). Profile `faults` apply either way.
   */
  readonly faultHeaders?: boolean
}

/** The request body limit when the config gives none. */
export const defaultMaxBodyBytes = Checked.defaultMaxBodyBytes

/** The body nesting limit when the config gives none. */
export const defaultMaxBodyDepth = Checked.defaultMaxBodyDepth

/** The body time limit when the config gives none. */
export const defaultBodyTimeoutMs = Checked.defaultBodyTimeoutMs

/** The connection cap when the config gives none. */
export const defaultMaxConnections = Checked.defaultMaxConnections

/** The Chat Completions path (under the served root, as `…/v1` base URLs expect). */
export const chatCompletionsPath = Routes.chatCompletionsPath

/** The Responses API path (under the served root, as `…/v1` base URLs expect). */
export const responsesPath = Routes.responsesPath

/** Whether a name can name a scenario: letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters. */
export const isScenarioName: (name: unknown) => name is string = Checked.isScenarioName

/** Where a named scenario is served, relative to the relay's URL: `/scenarios/<name>` (its base URL is `url + scenarioPath(name)`). */
export const scenarioPath = (name: string): string => `${Routes.scenariosPrefix}${name}`

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

/**
 * The relay's routes for `config` (a config that is not valid answers every request with a 500 saying why).
 * The Host and Origin checks and the connection limits are the server's (`layer`, `start`), not the routes'.
 */
export const router = (config: Config): HttpRouter.HttpRouter => {
  const checked = Checked.check(config)
  if (Either.isLeft(checked)) {
    return HttpRouter.empty.pipe(HttpRouter.all("*", Effect.succeed(Http.errorResponse(500, `the relay is misconfigured: ${checked.left}`, "server_error"))))
  }
  return HttpRouter.concat(Routes.scenarios(checked.right.scenarios), Routes.served(checked.right.root, ""))
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
    yield* Effect.log(`${Http.clean(request.method)} ${Http.clean(Http.pathOf(request.url))} ${status} ${ms}ms`)
    return yield* exit
  })
)

/**
 * The routes as the server's app. Every path reaches a catch-all route, except one the router cannot match
 * at all (not valid percent-encoding, `/%E0%A4%A`): that is a JSON 404 too, not the platform's empty one.
 */
const app = (config: Config) =>
  Effect.catchTag(router(config), "RouteNotFound", (e) =>
    Effect.succeed(Http.errorResponse(404, "no route: the path is not valid percent-encoding", "not_found", undefined, Routes.errorStyleOf(e.request.url))))

/** The served relay on a server's `HttpServer` behind the Host and Origin checks, dying at build on a config that is not valid. */
const served = (config: Config) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const checked = yield* Effect.mapError(Checked.check(config), (reason) => new Error(`Relay: ${reason}`)).pipe(Effect.orDie)
    const address = (yield* HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("Relay: the server is not on a TCP port")
    return HttpServer.serve(Guard.guard({ address: address.hostname, port: address.port }, checked)(app(config)), logger)
  }))

/**
 * The Node server under the relay: at most `maxConnections` open (Node closes the next as it is accepted),
 * at most `maxConnectionsPerClient` from one remote address, one that sends nothing closed after the body time limit,
 * headers within the body time limit, and the whole request within twice it (a backstop: a slow body is
 * answered 408 by the relay itself first). A config that is not valid gets the defaults: `served` dies on it.
 */
const server = (config: Config) => {
  const checked = Checked.check(config)
  const bodyTimeoutMs = Either.isRight(checked) ? checked.right.root.bodyTimeoutMs : Checked.defaultBodyTimeoutMs
  const node = createServer({
    headersTimeout: bodyTimeoutMs,
    requestTimeout: bodyTimeoutMs * 2,
    connectionsCheckingInterval: Math.min(1_000, bodyTimeoutMs)
  })
  node.maxConnections = Either.isRight(checked) ? checked.right.maxConnections : Checked.defaultMaxConnections
  if (Either.isRight(checked)) Guard.limitConnections(node, checked.right.maxConnectionsPerClient, bodyTimeoutMs)
  return node
}

/** Serves `config` on `127.0.0.1:port` for the scope; open connections are cut when it closes (so shutdown never waits on a client). */
const listen = (config: Config, port: number) =>
  Effect.gen(function*() {
    if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) return yield* Effect.dieMessage(`Relay: not a port: ${String(port)}`)
    const node = server(config)
    const context = yield* Layer.build(
      served(config).pipe(Layer.provideMerge(NodeHttpServer.layer(() => node, { port, host: "127.0.0.1" })))
    )
    // Closing the server waits for open connections: first cut them (a client may hold one open).
    yield* Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections()))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("Relay: the server is not on a TCP port")
    return { url: `http://127.0.0.1:${address.port}` }
  })

/** The relay on `127.0.0.1:port` (port 0: any free port), for an app's layer graph. */
export const layer = (config: Config, options: { readonly port: number }): Layer.Layer<never, HttpServerError.ServeError> =>
  Layer.scopedDiscard(listen(config, options.port))

/** Starts the relay on loopback for the surrounding scope (a free port unless `port` is given: tests, the demo, `toolgate serve`) and gives its URL. */
export const start = (config: Config, options?: { readonly port?: number }): Effect.Effect<{ readonly url: string }, HttpServerError.ServeError, Scope.Scope> =>
  listen(config, options?.port ?? 0)

/** Reads a profile or script file (`BoundedFile.read`: a regular file of at most 64 MiB) as JSON, or says why not. */
const readJson = (path: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.mapError(BoundedFile.read(path), (e) => new RelayFileError({ path, reason: e.reason }))
    const json = Http.parseJson(text)
    if (Either.isLeft(json)) return yield* new RelayFileError({ path, reason: "is not JSON" })
    return json.right
  })

/** A profile file: any JSON (kept as is) whose `faults`, when present, lists known faults. */
export const loadProfile: (path: string) => Effect.Effect<Profile.Profile, RelayFileError, FileSystem.FileSystem> = Effect.fnUntraced(function*(path: string) {
  const profile = yield* readJson(path)
  const faults = Profile.faults(profile)
  if (Either.isLeft(faults)) return yield* new RelayFileError({ path, reason: faults.left })
  return profile
}, Telemetry.span("Relay.loadProfile"))

/** A scenario file: a `Script` as JSON (`{ "turns": [[round, …], …] }`). */
export const loadScript: (path: string) => Effect.Effect<Script.Script, RelayFileError, FileSystem.FileSystem> = Effect.fnUntraced(function*(path: string) {
  const script = Script.decode(yield* readJson(path))
  if (Either.isLeft(script)) return yield* new RelayFileError({ path, reason: `is not a script: ${Http.issuesText(script.left)}` })
  return script.right
}, Telemetry.span("Relay.loadScript"))

/**
 * A connection to one MCP server as a scoped resource: the server spawned over stdio or reached over
 * Streamable HTTP with the SDK's client transports, closed (and its process ended) when the scope closes.
 * The client speaks MCP's stateless revision (2026-07-28) and the older ones, as `protocol` says.
 * `listTools` follows `nextCursor` within a page count, a byte count and a time limit; `callTool` answers
 * within a timeout; every message read is bounded in bytes; every failure is one of `McpErrors`.
 *
 * @since 0.1.0
 */
import * as Decode from "@toolgate/runtime/Decode"
import type * as Errors from "@toolgate/runtime/Errors"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as McpErrors from "./McpErrors.js"
import * as Client from "./internal/client.js"
import * as Listing from "./internal/listing.js"
import * as Thrown from "./internal/thrown.js"
import * as Transport from "./internal/transport.js"

/** A server spawned as a process speaking MCP on stdin/stdout: the executable and its argv (no shell). */
export const Stdio = Schema.TaggedStruct("Stdio", {
  command: Schema.NonEmptyString,
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Added to the few variables the SDK passes on (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`). */
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  /** The server's stderr: dropped (default) or passed to this process's stderr. */
  stderr: Schema.optionalWith(Schema.Literal("ignore", "inherit"), { default: () => "ignore" as const })
})

/** A server at a Streamable HTTP endpoint, with headers sent on every request (e.g. authorization). */
export const StreamableHttp = Schema.TaggedStruct("StreamableHttp", {
  url: Decode.HttpUrl,
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

/** Where the server is. */
export const Server = Schema.Union(Stdio, StreamableHttp)

/** Where the server is, decoded. */
export type Server = typeof Server.Type

const count = (n: number) => Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => n })
const millis = (d: Duration.DurationInput) =>
  Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.decode(d) })

/** What a connection reads at most and how long it waits; each has a default. */
export const Limits = Schema.Struct({
  /** Pages of `tools/list` followed before the listing fails (`McpLimitExceeded`, `pages`). */
  maxPages: count(64),
  /** Bytes of one message from the server (a message past it ends the connection). */
  maxMessageBytes: count(16 * 1024 * 1024),
  /** Bytes of all pages of one listing together. */
  maxListBytes: count(32 * 1024 * 1024),
  /** Tools of one listing. */
  maxTools: count(4096),
  /** Time to start or reach the server and initialize. */
  connectTimeout: millis("30 seconds"),
  /** Time for a whole listing, every page. */
  listTimeout: millis("30 seconds"),
  /** Time for a tool call unless the call says otherwise. */
  callTimeout: millis("60 seconds")
})

/** The limits, decoded. */
export type Limits = typeof Limits.Type

/**
 * Which revisions of MCP the client speaks: `auto` (default: it probes with `server/discover` and falls back to
 * `initialize`, on the one process or connection), `legacy` (`initialize` only, revisions up to 2025-11-25, no
 * probe), `modern` (the stateless revision 2026-07-28 only).
 */
export const Protocol = Client.Protocol

/** Which revisions of MCP the client speaks. */
export type Protocol = Client.Protocol

/** What `make` takes: the server and, optionally, limits and the protocol. */
export const Options = Schema.Struct({
  server: Server,
  limits: Schema.optionalWith(Limits, { default: () => Limits.make({}) }),
  protocol: Schema.optionalWith(Protocol, { default: () => "auto" as const }),
  /** The name and version the client introduces itself with. */
  clientInfo: Schema.optionalWith(Schema.Struct({ name: Schema.String, version: Schema.String }), {
    default: () => ({ name: "toolgate", version: "0.1.0" })
  })
})

/** The options as a caller writes them. */
export type OptionsInput = typeof Options.Encoded

/** One tool as the server listed it; its schemas are the JSON objects it sent. */
export type McpTool = Listing.McpTool

/** A listed entry that is not a tool (it did not decode), with its index and why. */
export type ListingProblem = Listing.Problem

/** Every tool of one complete listing, and the entries that were not tools. */
export interface ToolListing {
  readonly tools: ReadonlyArray<McpTool>
  readonly problems: ReadonlyArray<ListingProblem>
  /** How long the listing may be cached, in milliseconds (the shortest page `ttlMs`, a negative one `0`); `undefined`: no expiry. */
  readonly ttlMs: number | undefined
  /**
   * Who may reuse the listing: `"public"` when every page said so (the same for every caller), else
   * `"private"` (only within this authorization context; a missing or invalid `cacheScope` is `"private"`).
   */
  readonly cacheScope: CacheScope
}

/** Who may reuse a listing: `"public"` (any authorization context) or `"private"` (only the one it was read in). */
export const CacheScope = Listing.CacheScope

/** Who may reuse a listing. */
export type CacheScope = Listing.CacheScope

/** What a `tools/call` answered (decoded): content blocks kept as sent, structured content, the error flag. */
export type CallResult = Listing.CallResult

/** What one `callTool` may say besides the name and arguments. */
export interface CallOptions {
  /** The time the call has (default: the connection's `callTimeout`). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Sent as the request's `_meta`. */
  readonly meta?: Readonly<Record<string, unknown>> | undefined
}

/** A live connection to one MCP server. */
export interface Service {
  /** How the server is named in errors: its argv, or its URL without query. */
  readonly label: string
  /** The name and version the server gave (at initialize, or in its `server/discover` answer). */
  readonly serverInfo: { readonly name: string; readonly version: string }
  /** The server's `instructions`, if it gave any. */
  readonly instructions: string | undefined
  /** The revision the connection speaks (`2026-07-28` for the stateless one, else the one `initialize` agreed on). */
  readonly protocolVersion: string
  /** Whether the server said it sends `notifications/tools/list_changed` (on the stateless revision, on the `subscriptions/listen` stream opened for it). */
  readonly announcesListChanged: boolean
  /** The limits the connection holds to. */
  readonly limits: Limits
  /** Every tool, following `nextCursor`, bounded in pages, bytes, tools and time. */
  readonly listTools: Effect.Effect<ToolListing, McpErrors.McpError>
  /** Calls a tool, within the call's timeout. */
  readonly callTool: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<CallResult, McpErrors.McpError>
  /** A queue that gets a signal when the server says its tool list changed (signals coalesce: it holds one). */
  readonly listChanged: Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope>
  /** Completes when the connection has closed (the server went away or the scope closed). */
  readonly closed: Effect.Effect<void>
}

/** A connection to one MCP server, as a service. */
export class McpConnection extends Context.Tag("@toolgate/mcp/McpConnection")<McpConnection, Service>() {}

const decodeOptions = Decode.options("McpConnection", Options)

/**
 * `client` with its errors recorded in `lastError` (a message past the byte limit ends the connection, so a
 * request waiting on the stream it was cut from fails at once) and `onListChanged` called at every
 * `notifications/tools/list_changed`.
 */
const wired = (
  client: Client.EnvelopedClient,
  lastError: { message: string | undefined; pastLimit: boolean },
  onListChanged: () => void
): Client.EnvelopedClient => {
  client.onerror = (error) => {
    lastError.message = error.message
    lastError.pastLimit ||= Thrown.pastLimit(error.message)
    if (lastError.pastLimit) void client.close()
  }
  client.setNotificationHandler("notifications/tools/list_changed", onListChanged)
  return client
}

/** Connects to the server `options` name; the connection closes, and a spawned server ends, with the scope. */
export const make = Effect.fn("McpConnection.make")(function*(options: OptionsInput) {
  const { clientInfo, limits, protocol, server } = yield* decodeOptions(options)
  const label = Transport.label(server)
  const closedSignal = yield* Deferred.make<void>()
  // one queue of one signal per subscriber: a signal while one is pending changes nothing, and a subscriber
  // that does not read (a watcher waiting out its interval) does not hold back the others
  const subscribers = new Set<Queue.Queue<void>>()
  // a message past the byte limit is remembered for good: the rest of it arrives as garbage lines after it
  const lastError = { message: undefined as string | undefined, pastLimit: false }
  // the client the scope closes: the one connecting now (a second one if the first's server ended on the probe)
  const held = yield* Effect.acquireRelease(
    Effect.sync(() => ({ client: undefined as Client.EnvelopedClient | undefined })),
    (held) => Effect.promise(() => held.client?.close() ?? Promise.resolve()).pipe(Effect.timeout("5 seconds"), Effect.ignore)
  )
  const newClient = () => {
    const client = wired(Client.make(clientInfo, {}, protocol), lastError, () => {
      for (const queue of subscribers) queue.unsafeOffer(undefined)
    })
    client.onclose = () => {
      if (held.client === client) Deferred.unsafeDone(closedSignal, Effect.void)
    }
    return held.client = client
  }
  const ms = (d: Duration.Duration) => Duration.toMillis(d)
  const thrown = Thrown.mapper(label, limits.maxMessageBytes, () => lastError)
  const connectMs = ms(limits.connectTimeout)
  const client = yield* Effect.tryPromise({
    try: (signal) =>
      Client.connect(newClient, () => Transport.make(server, limits.maxMessageBytes), protocol, { timeout: connectMs, signal }),
    catch: thrown("connect", connectMs)
  }).pipe(Effect.timeoutFail({
    duration: limits.connectTimeout,
    onTimeout: () => new McpErrors.McpTimeout({ server: label, operation: "connect", millis: connectMs })
  }))
  // a stream of notifications that cannot be opened leaves the tools usable: their listing's TTL still holds
  const listening = yield* Effect.tryPromise((signal) => Client.listenForToolChanges(client, connectMs, signal)).pipe(
    Effect.timeout(limits.connectTimeout),
    Effect.tapError((e) => Effect.logWarning(`${label}: no stream of tool list changes (${thrown("subscriptions/listen", connectMs)(e.cause ?? e).message})`)),
    Effect.orElseSucceed(() => false)
  )
  const request = Listing.request(client, label, thrown)
  const version = client.getServerVersion()
  return McpConnection.of({
    label,
    serverInfo: { name: version?.name ?? "", version: version?.version ?? "" },
    instructions: client.getInstructions(),
    protocolVersion: client.getNegotiatedProtocolVersion() ?? "",
    announcesListChanged: listening,
    limits,
    listTools: Listing.listAll(client, label, limits, thrown),
    callTool: (name, args, callOptions) => {
      const timeout = callOptions?.timeout === undefined ? limits.callTimeout : Duration.decode(callOptions.timeout)
      const params = { name, arguments: args, ...(callOptions?.meta === undefined ? {} : { _meta: callOptions.meta }) }
      return request("tools/call", params, Listing.CallResult, Math.max(1, ms(timeout))).pipe(
        Effect.withSpan("McpConnection.callTool", { attributes: { "gen_ai.tool.name": name } })
      )
    },
    listChanged: Effect.acquireRelease(
      Effect.tap(Queue.dropping<void>(1), (queue) => Effect.sync(() => subscribers.add(queue))),
      (queue) => Effect.zipRight(Effect.sync(() => subscribers.delete(queue)), Queue.shutdown(queue))
    ),
    closed: Deferred.await(closedSignal)
  })
})

/** The connection as a layer (scoped: the server is closed when the layer's scope closes). */
export const layer = (options: OptionsInput): Layer.Layer<McpConnection, McpErrors.McpError | Errors.InvalidOptions> =>
  Layer.scoped(McpConnection, make(options))

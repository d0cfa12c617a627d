/**
 * A validating MCP proxy: an MCP server in front of another one. `tools/list` is forwarded (as published, or
 * normalized to a provider dialect); every `tools/call` is prepared against the tool's input schema first, so a
 * near-miss reaches the upstream coerced and an invalid call is answered `isError` with model-readable issues
 * without the upstream seeing it. A call repeated under the same `dev.toolgate/idempotency-key` in `_meta` is
 * answered from the proxy's journal. Served over stdio or Streamable HTTP, to clients of MCP's stateless revision
 * (2026-07-28) and of the older ones.
 *
 * @since 0.1.0
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as Decode from "@toolgate/runtime/Decode"
import type * as Errors from "@toolgate/runtime/Errors"
import type { InvalidOptions } from "@toolgate/runtime/Errors"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Readable, Writable } from "node:stream"
import * as McpConnection from "./McpConnection.js"
import type * as McpErrors from "./McpErrors.js"
import * as McpLock from "./McpLock.js"
import * as ProxyHttp from "./internal/proxyHttp.js"
import * as Listing from "./internal/listing.js"
import * as Journal from "./internal/proxyJournal.js"
import * as Modern from "./internal/proxyModern.js"
import * as Session from "./internal/proxySession.js"
import * as Upstream from "./internal/proxyUpstream.js"

/** The `_meta` key of a call's idempotency key: a repeat of an answered key is answered from the journal. */
export const idempotencyKey = "dev.toolgate/idempotency-key"

/** The `_meta` key set on a result the journal answered. */
export const replayedKey = "dev.toolgate/replayed"

/** The `_meta` key listing every issue of a refused call (`field`, `path`, `keyword`, `expected`, `message`). */
export const issuesKey = "dev.toolgate/issues"

const PositiveInt = Schema.Int.pipe(Schema.positive())

/**
 * The lock the upstream is proved against at start: the lock file, the server's key in it (default: the name the
 * server gives at initialize or in `server/discover`, as `toolgate mcp lock` keys it) and the auth scope.
 */
export const Lock = Schema.Struct({
  file: McpLock.LockFile,
  server: Schema.optional(Schema.String),
  scope: Schema.optionalWith(Schema.String, { default: () => McpLock.defaultScope })
})

/** The proxy's options. */
export const Options = Schema.Struct({
  /** The upstream server: a command spawned over stdio, or a Streamable HTTP URL. */
  server: McpConnection.Server,
  /** Which revisions of MCP the proxy speaks to the upstream (`auto` by default), as `McpConnection`'s `protocol`. */
  protocol: Schema.optionalWith(McpConnection.Protocol, { default: () => "auto" as const }),
  /** The dialect `tools/list` answers in: `none` (default) forwards schemas as published. */
  dialect: Schema.optionalWith(Schema.Literal("openai-strict", "google", "cca", "mcp", "none"), { default: () => "none" as const }),
  /** With a lock, an upstream whose listing drifted from it is refused at start. */
  lock: Schema.optional(Lock),
  /** How long the upstream may take to start and complete the handshake (default 30 seconds). */
  connectTimeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.seconds(30) }),
  /** How long one upstream request may take before a call is answered `timeout` (default 60 seconds). */
  callTimeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.seconds(60) }),
  /** Bytes of one message read from the upstream, or over stdio from the client (default 16 MiB); past it that connection ends. */
  maxMessageBytes: Schema.optionalWith(PositiveInt, { default: () => 16 * 1024 * 1024 }),
  /** A result larger than this (as JSON) is answered `isError` instead of forwarded (default 4 MiB). */
  maxResultBytes: Schema.optionalWith(PositiveInt, { default: () => 4 * 1024 * 1024 }),
  /**
   * Over HTTP, at most this many sessions at once, each with its own upstream connection (default 16); past it
   * the least recently used idle session is ended.
   */
  maxSessions: Schema.optionalWith(PositiveInt, { default: () => 16 }),
  /** At most this many tools are read from the upstream's listing (default 4096). */
  maxTools: Schema.optionalWith(PositiveInt, { default: () => 4096 }),
  /** The journal of answered idempotency keys: at most this many entries and bytes (least recently used out). */
  journalEntries: Schema.optionalWith(PositiveInt, { default: () => 1024 }),
  journalBytes: Schema.optionalWith(PositiveInt, { default: () => 16 * 1024 * 1024 })
})

/** The proxy's options as a caller writes them. */
export type Options = typeof Options.Encoded

/** The proxy could not listen on the port it was given. */
export class McpProxyListenError extends Schema.TaggedError<McpProxyListenError>()("McpProxyListenError", {
  host: Schema.String,
  port: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `The MCP proxy could not listen on ${this.host}:${this.port}: ${this.reason}`
  }
}

/** The lock has no entry for the server and scope the proxy was given. */
export class McpProxyNotLocked extends Schema.TaggedError<McpProxyNotLocked>()("McpProxyNotLocked", {
  server: Schema.String,
  scope: Schema.String
}) {
  override get message(): string {
    return `The lock has no entry for the MCP server "${this.server}" under the scope "${this.scope}"`
  }
}

/** What keeps the proxy from starting. */
export type StartError =
  | InvalidOptions
  | McpErrors.McpError
  | McpProxyNotLocked
  | Errors.SchemaDriftError
  | Errors.UnsupportedCloudToolSchema

const decode = Decode.options("McpProxy", Options)

/** A proxy made from decoded options: its journal is shared by every session it serves. */
interface Made {
  readonly options: typeof Options.Type
  readonly limits: Upstream.Limits
  readonly settings: Session.Settings
}

const made = (input: Options): Effect.Effect<Made, InvalidOptions> =>
  Effect.map(decode(input), (options) => ({
    options,
    limits: {
      connectTimeoutMillis: Duration.toMillis(options.connectTimeout),
      maxMessageBytes: options.maxMessageBytes,
      protocol: options.protocol
    },
    settings: {
      dialect: options.dialect,
      maxTools: options.maxTools,
      callTimeoutMillis: Duration.toMillis(options.callTimeout),
      maxResultBytes: options.maxResultBytes,
      fromStrictProvider: options.dialect === "openai-strict",
      journal: Journal.make({ maxEntries: options.journalEntries, maxBytes: options.journalBytes })
    }
  }))

/** With a lock, the upstream's listing (read through the handshake's client) proved against it. */
const prove = (proxy: Made, upstream: Upstream.Handshaken) =>
  Effect.gen(function*() {
    const lock = proxy.options.lock
    if (lock === undefined) return
    const limits = McpConnection.Limits.make({ maxTools: proxy.options.maxTools })
    const listing = yield* Listing.listAll(upstream.client, upstream.name, limits, upstream.typed)
    const key = lock.server ?? upstream.client.getServerVersion()?.name ?? ""
    const locked = McpLock.get(lock.file, key, lock.scope)
    if (Option.isNone(locked)) return yield* new McpProxyNotLocked({ server: key, scope: lock.scope })
    yield* McpLock.gate(McpLock.prove(locked.value, listing.tools))
  })

/** The upstream, connected (and with a lock proved) on one connection that closes with the scope. */
const connect = (proxy: Made): Effect.Effect<Upstream.Upstream, StartError, Scope.Scope> =>
  Effect.gen(function*() {
    const handshaken = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => Upstream.handshake(proxy.options.server, proxy.limits),
        catch: (e) => e as McpErrors.McpError
      }),
      (upstream) => Effect.promise(() => upstream.transport.close().catch(() => undefined))
    )
    yield* prove(proxy, handshaken)
    return Upstream.takeOver(handshaken)
  })

/** Where the stdio proxy reads requests and writes answers (default: the process's stdin and stdout). */
export interface Stdio {
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/**
 * Serves the proxy over stdio until its client closes the input; the upstream is connected first (a server
 * that cannot be reached fails with one of `McpErrors` before anything is served, and with a lock a drifted one
 * fails `SchemaDriftError`: its listing is proved on the connection that then serves) and closed at the end.
 */
export const serveStdio: (options: Options, stdio?: Stdio) => Effect.Effect<void, StartError> = Effect.fn("McpProxy.serveStdio")(function*(options: Options, stdio: Stdio = {}) {
  const proxy = yield* made(options)
  yield* Effect.scoped(Effect.gen(function*() {
    const upstream = yield* connect(proxy)
    const transport = new StdioServerTransport(stdio.stdin, stdio.stdout, { maxBufferSize: proxy.options.maxMessageBytes })
    yield* Effect.async<void>((resume) => {
      const input = stdio.stdin ?? process.stdin
      const session = Session.make(upstream, proxy.settings)
      transport.onclose = () => resume(Effect.void)
      input.once("end", () => resume(Effect.void))
      // the opening message decides the revision the connection is served in
      transport.onmessage = (first) => {
        if (Modern.opensModern(first)) return Modern.serveModernStdio(session, upstream.instructions, transport, first)
        session.attach(transport)
        transport.onmessage?.(first)
      }
      transport.start().catch(() => resume(Effect.void))
      return Effect.promise(() => transport.close().catch(() => undefined))
    })
  }))
})

/**
 * Requests of the stateless revision over HTTP: they carry no session, so they share one upstream connection,
 * opened at the first of them (again after it ended) and closed with the scope.
 */
const modernOverHttp = (proxy: Made): Effect.Effect<ProxyHttp.Modern, never, Scope.Scope> =>
  Effect.gen(function*() {
    type Shared = { readonly upstream: Upstream.Upstream; readonly session: Session.Session }
    let shared: Promise<Shared> | undefined
    let closed = false
    const connectShared = () =>
      Upstream.connect(proxy.options.server, proxy.limits).then((upstream): Shared => {
        const session = Session.make(upstream, proxy.settings)
        session.onToolsChanged(() => handler.notify.toolsChanged())
        return { upstream, session }
      })
    // one connection at a time: concurrent first requests wait on the same one; a failed one is tried again
    const open = async (): Promise<{ readonly session: Session.Session; readonly instructions: string | undefined }> => {
      if (closed) throw new Error("The proxy is closing")
      const attempt = shared ??= connectShared()
      const current = await attempt.catch((e: unknown) => {
        if (shared === attempt) shared = undefined
        throw e
      })
      if (current.upstream.ended() === undefined) return { session: current.session, instructions: current.upstream.instructions }
      if (shared === attempt) shared = undefined
      return open()
    }
    const handler = yield* Effect.acquireRelease(
      Effect.sync(() => Modern.httpHandler(open, ProxyHttp.maxBodyBytes)),
      (handler) =>
        Effect.promise(async () => {
          closed = true
          await handler.close().catch(() => undefined)
          await (await shared?.catch(() => undefined))?.upstream.close().catch(() => undefined)
        })
    )
    return (request, parsedBody) => handler.fetch(request, { parsedBody })
  })

/** A proxy listening on Streamable HTTP. */
export interface Listening {
  /** The MCP endpoint: `http://127.0.0.1:PORT/mcp`. */
  readonly url: string
  readonly port: number
  /** How many sessions are open now. */
  readonly sessions: () => number
}

/** Where the HTTP proxy listens: loopback by default; port 0 takes a free port. */
export interface Listen {
  readonly host?: string
  readonly port?: number
}

/**
 * Serves the proxy over Streamable HTTP for as long as the scope is open. Each session gets its own upstream
 * connection; the upstream is tried once before listening, so a server that cannot be reached fails
 * one of `McpErrors` at start (with a lock, its listing is proved against the lock first).
 */
export const serveHttp: (
  options: Options,
  listen?: Listen
) => Effect.Effect<Listening, StartError | McpProxyListenError, Scope.Scope> = Effect.fn("McpProxy.serveHttp")(function*(options: Options, listen: Listen = {}) {
  const proxy = yield* made(options)
  // each session connects at its initialize, so this connection only tries (and with a lock proves) the upstream
  yield* Effect.scoped(connect(proxy))
  const host = listen.host ?? "127.0.0.1"
  const port = listen.port ?? 0
  const open: ProxyHttp.Open = async (transport) => {
    const upstream = await Upstream.connect(proxy.options.server, proxy.limits)
    await Session.make(upstream, proxy.settings).connect(transport)
    let closing: Promise<void> | undefined
    // closing the transport calls its onclose, which closes the session again: once is enough
    return { close: () => closing ??= Promise.allSettled([transport.close(), upstream.close()]).then(() => undefined) }
  }
  const modern = yield* modernOverHttp(proxy)
  const listener = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => ProxyHttp.listen(host, port, proxy.options.maxSessions, open, modern),
      catch: (e) => new McpProxyListenError({ host, port, reason: e instanceof Error ? e.message : String(e) })
    }),
    (listener) => Effect.promise(() => listener.close())
  )
  return { url: listener.url, port: listener.port, sessions: listener.sessions } satisfies Listening
})

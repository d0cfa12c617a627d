/**
 * A validating MCP proxy: an MCP server in front of another one. `tools/list` is forwarded (as published, or
 * normalized to a provider dialect); every `tools/call` is prepared against the tool's input schema first, so a
 * near-miss reaches the upstream coerced and an invalid call is answered `isError` with model-readable issues
 * without the upstream seeing it. A call repeated under the same `dev.toolgate/idempotency-key` in `_meta` is
 * answered from the proxy's journal. Served over stdio or Streamable HTTP.
 *
 * @since 0.1.0
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as Decode from "@toolgate/runtime/Decode"
import type { InvalidOptions } from "@toolgate/runtime/Errors"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Readable, Writable } from "node:stream"
import * as ProxyHttp from "./internal/proxyHttp.js"
import * as Journal from "./internal/proxyJournal.js"
import * as Session from "./internal/proxySession.js"
import * as Upstream from "./internal/proxyUpstream.js"

/** The `_meta` key of a call's idempotency key: a repeat of an answered key is answered from the journal. */
export const idempotencyKey = "dev.toolgate/idempotency-key"

/** The `_meta` key set on a result the journal answered. */
export const replayedKey = "dev.toolgate/replayed"

/** The `_meta` key listing every issue of a refused call (`field`, `path`, `keyword`, `expected`, `message`). */
export const issuesKey = "dev.toolgate/issues"

const PositiveInt = Schema.Int.pipe(Schema.positive())

/** The upstream server: a command to spawn (stdio) or a Streamable HTTP URL. */
export const Server = Schema.Union(
  Schema.TaggedStruct("Stdio", {
    command: Schema.NonEmptyString,
    args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
    env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
    cwd: Schema.optional(Schema.String)
  }),
  Schema.TaggedStruct("Http", { url: Schema.String.pipe(Schema.filter(Decode.isHttpUrl, { message: () => "an absolute http: or https: URL" })) })
)

/** The proxy's options. */
export const Options = Schema.Struct({
  server: Server,
  /** The dialect `tools/list` answers in: `none` (default) forwards schemas as published. */
  dialect: Schema.optionalWith(Schema.Literal("openai-strict", "google", "cca", "mcp", "none"), { default: () => "none" as const }),
  /** How long the upstream may take to start and complete the handshake. */
  connectTimeoutMillis: Schema.optionalWith(PositiveInt, { default: () => 30_000 }),
  /** How long one upstream request may take before the call is answered `timeout`. */
  callTimeoutMillis: Schema.optionalWith(PositiveInt, { default: () => 60_000 }),
  /** A result larger than this (as JSON) is answered `isError` instead of forwarded. */
  maxResultBytes: Schema.optionalWith(PositiveInt, { default: () => 4 * 1024 * 1024 }),
  /** At most this many tools are read from the upstream's listing. */
  maxTools: Schema.optionalWith(PositiveInt, { default: () => 10_000 }),
  /** The journal of answered idempotency keys: at most this many entries and bytes (least recently used out). */
  journalEntries: Schema.optionalWith(PositiveInt, { default: () => 1024 }),
  journalBytes: Schema.optionalWith(PositiveInt, { default: () => 16 * 1024 * 1024 })
})

/** The proxy's options as a caller writes them. */
export type Options = typeof Options.Encoded

/** The upstream server could not be started or reached, or did not complete the MCP handshake. */
export class McpProxyUpstreamError extends Schema.TaggedError<McpProxyUpstreamError>()("McpProxyUpstreamError", {
  server: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The MCP server \`${this.server}\` could not be reached: ${this.reason}`
  }
}

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

const decode = Decode.options("McpProxy", Options)

const reason = (e: unknown): string => e instanceof Error ? e.message : String(e)

/** A proxy made from decoded options: its journal is shared by every session it serves. */
interface Made {
  readonly options: typeof Options.Type
  readonly target: Upstream.Target
  readonly settings: Session.Settings
}

const made = (options: unknown): Effect.Effect<Made, InvalidOptions> =>
  Effect.map(decode(options), (options) => ({
    options,
    target: options.server,
    settings: {
      dialect: options.dialect,
      maxTools: options.maxTools,
      callTimeoutMillis: options.callTimeoutMillis,
      maxResultBytes: options.maxResultBytes,
      fromStrictProvider: options.dialect === "openai-strict",
      journal: Journal.make({ maxEntries: options.journalEntries, maxBytes: options.journalBytes })
    }
  }))

const connect = (proxy: Made): Effect.Effect<Upstream.Upstream, McpProxyUpstreamError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => Upstream.connect(proxy.target, proxy.options.connectTimeoutMillis),
      catch: (e) => new McpProxyUpstreamError({ server: Upstream.describe(proxy.target), reason: reason(e) })
    }),
    (upstream) => Effect.promise(() => upstream.close().catch(() => undefined))
  )

/** Where the stdio proxy reads requests and writes answers (default: the process's stdin and stdout). */
export interface Stdio {
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/**
 * Serves the proxy over stdio until its client closes the input; the upstream is connected first (a server
 * that cannot be reached fails `McpProxyUpstreamError` before anything is served) and closed at the end.
 */
export const serveStdio = Effect.fn("McpProxy.serveStdio")(function*(options: Options, stdio: Stdio = {}) {
  const proxy = yield* made(options)
  yield* Effect.scoped(Effect.gen(function*() {
    const upstream = yield* connect(proxy)
    const server = Session.make(upstream, proxy.settings)
    const transport = new StdioServerTransport(stdio.stdin, stdio.stdout)
    yield* Effect.async<void>((resume) => {
      const input = stdio.stdin ?? process.stdin
      server.onclose = () => resume(Effect.void)
      input.once("end", () => resume(Effect.void))
      server.connect(transport).catch(() => resume(Effect.void))
      return Effect.promise(() => server.close().catch(() => undefined))
    })
  }))
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
 * `McpProxyUpstreamError` at start.
 */
export const serveHttp = Effect.fn("McpProxy.serveHttp")(function*(options: Options, listen: Listen = {}) {
  const proxy = yield* made(options)
  yield* Effect.scoped(connect(proxy))
  const host = listen.host ?? "127.0.0.1"
  const port = listen.port ?? 0
  const open: ProxyHttp.Open = async (transport) => {
    const upstream = await Upstream.connect(proxy.target, proxy.options.connectTimeoutMillis)
    const server = Session.make(upstream, proxy.settings)
    await server.connect(transport)
    return { close: () => Promise.allSettled([server.close(), upstream.close()]).then(() => undefined) }
  }
  const listener = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => ProxyHttp.listen(host, port, open),
      catch: (e) => new McpProxyListenError({ host, port, reason: reason(e) })
    }),
    (listener) => Effect.promise(() => listener.close())
  )
  return { url: listener.url, port: listener.port, sessions: listener.sessions } satisfies Listening
})

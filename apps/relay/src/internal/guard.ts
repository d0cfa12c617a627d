/**
 * Who may talk to the relay, checked before any route: the `Host` header must name the address it is bound
 * to (bound to loopback: `localhost`, `127.0.0.1` or `[::1]`, with its port) or a configured host, so a web
 * page whose name was rebound to 127.0.0.1 (DNS rebinding) is refused; and a request with an `Origin` (a
 * browser's cross-origin request) must come from the relay's own origin or a configured one. Both refusals
 * are a 403 that closes the connection. One client (remote address) holds at most its share of the
 * connections, so a client reconnecting in a loop cannot take every slot, and a connection that never sends
 * a byte is closed.
 *
 * @internal
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type * as http from "node:http"
import type * as net from "node:net"
import * as Http from "./http.js"
import { errorStyleOf } from "./routes.js"

/** Where the server listens. */
export interface Bound {
  readonly address: string
  readonly port: number
}

/** Who is allowed besides the bound address's own names (lower case). */
export interface Allowed {
  readonly allowedHosts: ReadonlyArray<string>
  readonly allowedOrigins: ReadonlyArray<string>
}

/** Whether an address is on the loopback interface. */
export const isLoopback = (address: string): boolean =>
  address === "::1" || address === "localhost" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(address)

/** The host names that reach `bound`: the loopback names when it is loopback, else its address. */
const ownNames = (bound: Bound): ReadonlyArray<string> =>
  isLoopback(bound.address) ? ["localhost", "127.0.0.1", "[::1]"] : [bound.address.includes(":") ? `[${bound.address}]` : bound.address]

/** A `Host` header as its name and port (80 when it names none), or `undefined` when it is not one. */
const parseHost = (host: string): { readonly name: string; readonly port: number } | undefined => {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase())
  if (match === null) return undefined
  return { name: match[1]!, port: match[2] === undefined ? 80 : Number(match[2]) }
}

/** Whether a `Host` header is one the relay answers to. */
export const hostAllowed = (host: string | undefined, bound: Bound, allowed: Allowed): boolean => {
  if (typeof host !== "string") return false
  const parsed = parseHost(host)
  if (parsed === undefined) return false
  if (allowed.allowedHosts.includes(parsed.name) || allowed.allowedHosts.includes(`${parsed.name}:${parsed.port}`)) return true
  return parsed.port === bound.port && ownNames(bound).includes(parsed.name)
}

/** Whether an `Origin` header (absent: not a cross-origin browser request) is the relay's own or an allowed one. */
export const originAllowed = (origin: string | undefined, bound: Bound, allowed: Allowed): boolean => {
  if (origin === undefined) return true
  const value = origin.trim().toLowerCase()
  return allowed.allowedOrigins.includes(value) || ownNames(bound).some((name) => value === `http://${name}:${bound.port}`)
}

/** `app` behind the Host and Origin checks (a refusal is a 403 in the path's error shape, and closes the connection). */
export const guard = (bound: Bound, allowed: Allowed) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const refuse = (message: string) =>
      Effect.succeed<HttpServerResponse.HttpServerResponse>(
        Http.errorResponse(403, message, "forbidden", { connection: "close" }, errorStyleOf(request.url))
      )
    const host = request.headers["host"]
    if (!hostAllowed(host, bound, allowed)) {
      return refuse(`the Host header ${Http.clean(JSON.stringify(host ?? ""))} does not name this relay (allowed: its loopback names with port ${bound.port}, or the configured allowedHosts)`)
    }
    const origin = request.headers["origin"]
    if (!originAllowed(origin, bound, allowed)) {
      return refuse(`requests from the web origin ${Http.clean(JSON.stringify(origin ?? ""))} are not allowed (allowed: the relay's own origin, or the configured allowedOrigins)`)
    }
    return app
  })

/**
 * Holds each client (remote address) to `perClient` open connections on `server`: past it, a new connection
 * from that client is closed as it is accepted, so one client cannot hold every slot of `maxConnections`.
 * A connection that sends nothing at all within `silentMs` is closed too (Node's header timer starts only
 * with the first byte, so a silent connection would hold its slot for good).
 */
export const limitConnections = (server: http.Server, perClient: number, silentMs: number): void => {
  const open = new Map<string, number>()
  server.on("connection", (socket: net.Socket) => {
    const client = socket.remoteAddress ?? ""
    const held = open.get(client) ?? 0
    if (held >= perClient) return void socket.destroy()
    open.set(client, held + 1)
    const silent = setTimeout(() => socket.destroy(), silentMs)
    socket.once("data", () => clearTimeout(silent))
    socket.once("close", () => {
      clearTimeout(silent)
      const left = (open.get(client) ?? 1) - 1
      if (left <= 0) open.delete(client)
      else open.set(client, left)
    })
  })
}

/**
 * A relay double for tests: a real `node:http` server on loopback (port 0) that counts requests and
 * answers with whatever handler the test gives it.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as RelayProfileClient from "../../src/RelayProfileClient.js"
import type { RelayProfile } from "@toolgate/runtime"

/** Answers the `n`-th request (1-based). */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void

/** A started relay. */
export interface Relay {
  readonly url: string
  /** Requests received so far. */
  readonly requests: () => number
  /** The paths requested, in order. */
  readonly paths: ReadonlyArray<string>
  /** Waits until at least `n` requests arrived. */
  readonly received: (n: number) => Effect.Effect<void>
}

/** Starts a relay for the test's scope; closed (connections included) when the scope closes. */
export const start = (handler: Handler): Effect.Effect<Relay, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly relay: Relay }>((resume) => {
      let count = 0
      const paths: Array<string> = []
      const waiters: Array<{ n: number; wake: () => void }> = []
      const server = http.createServer((req, res) => {
        count++
        paths.push(req.url ?? "")
        for (const w of waiters.filter((w) => count >= w.n)) w.wake()
        handler(req, res, count)
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        const relay: Relay = {
          url: `http://127.0.0.1:${port}`,
          requests: () => count,
          paths,
          received: (n) =>
            Effect.async<void>((wake) => {
              if (count >= n) return wake(Effect.void)
              waiters.push({ n, wake: () => wake(Effect.void) })
            })
        }
        resume(Effect.succeed({ server, relay }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ relay }) => relay))

/** A URL on loopback where nothing listens (a port just released). */
export const refusedUrl: Effect.Effect<string> = Effect.async<string>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})

/** A handler answering `body` (a value sent as JSON, or raw text) with `status`. */
export const answer = (body: unknown, status = 200, contentType = "application/json"): Handler => (_req, res) => {
  res.writeHead(status, { "content-type": contentType })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

/** The relay profile client for `url`, over `fetch` (loopback sockets), in the test's scope. */
export const profileClient = (
  url: string,
  options: Omit<RelayProfileClient.Options, "baseUrl"> = {}
): Effect.Effect<RelayProfile.Service, never, Scope.Scope> =>
  RelayProfileClient.make({ baseUrl: url, timeout: "2 seconds", ...options }).pipe(Effect.provide(FetchHttpClient.layer), Effect.orDie)

/** A well-formed envelope. */
export const envelope = (toolSchemas: Record<string, unknown>, version = "1.0"): Record<string, unknown> => ({
  capabilities_version: version,
  tool_schemas: toolSchemas
})

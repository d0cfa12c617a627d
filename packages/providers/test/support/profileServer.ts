/**
 * A relay profile endpoint on loopback (a real `node:http` server on port 0) for cloud-profile sessions,
 * and the drift gate over it: the session's gate makes real HTTP requests, counted here.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { DriftGate } from "@toolgate/runtime"
import * as RelayProfileClient from "../../src/RelayProfileClient.js"

/** A started endpoint. */
export interface Relay {
  readonly url: string
  /** Requests received so far. */
  readonly requests: () => number
}

/** Starts an endpoint answering every request with `status` and `body` (as JSON) for the scope's life. */
export const start = (status: number, body: unknown): Effect.Effect<Relay, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly relay: Relay }>((resume) => {
      let count = 0
      const server = http.createServer((_req, res) => {
        count++
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, relay: { url: `http://127.0.0.1:${port}`, requests: () => count } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ relay }) => relay))

/** The drift gate over the endpoint at `url` (fetch over loopback sockets, a 2 s probe timeout). */
export const gate = (url: string): Layer.Layer<DriftGate.DriftGate> =>
  DriftGate.layer.pipe(
    Layer.provide(RelayProfileClient.layerWith({ baseUrl: url, timeout: "2 seconds" })),
    Layer.provide(FetchHttpClient.layer),
    Layer.orDie
  )

/** A well-formed profile envelope exporting `toolSchemas`. */
export const envelope = (toolSchemas: Readonly<Record<string, unknown>>): unknown => ({ capabilities_version: "1.0", tool_schemas: toolSchemas })

/**
 * A minimal relay double for tests: a real `node:http` server on 127.0.0.1 (port 0) that reads each
 * request's body, keeps it, and answers with whatever handler the test gives it. Closed (open
 * connections included) when the test's scope closes, so a handler that never answers cannot leak.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A request as the server saw it. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** Answers the `n`-th request (1-based), its body already read. */
export type Handler = (received: Received, res: http.ServerResponse, n: number) => void

/** A started server. */
export interface Loopback {
  readonly url: string
  /** The requests received so far, in order. */
  readonly received: ReadonlyArray<Received>
}

/** Starts a server for the test's scope. */
export const start = (handler: Handler): Effect.Effect<Loopback, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly loopback: Loopback }>((resume) => {
      const received: Array<Received> = []
      const server = http.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          const one: Received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(parts).toString("utf8") }
          received.push(one)
          handler(one, res, received.length)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, loopback: { url: `http://127.0.0.1:${port}`, received } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ loopback }) => loopback))

/** A URL on loopback where nothing listens (a port just released). */
export const refusedUrl: Effect.Effect<string> = Effect.async<string>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})

/** Starts an event-stream answer (200, `text/event-stream`) and returns a writer for its pieces. */
export const events = (res: http.ServerResponse): (piece: string) => void => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.flushHeaders()
  return (piece) => void res.write(piece)
}

/** A handler answering every request with these SSE pieces, then ending the body. */
export const stream = (...pieces: ReadonlyArray<string>): Handler => (_received, res) => {
  const write = events(res)
  for (const piece of pieces) write(piece)
  res.end()
}

/** A handler answering `body` with `status` and a content type. */
export const answer = (body: string, status: number, contentType = "application/json"): Handler => (_received, res) => {
  res.writeHead(status, { "content-type": contentType })
  res.end(body)
}

/** The `HttpClient` the tests use: `fetch` over real loopback sockets. */
export const httpClient = FetchHttpClient.layer

/**
 * A Chat Completions double for the OpenAiCompatible tests: a real `node:http` server on loopback (port 0)
 * that records every request (method, path, headers, body) and answers with the test's reply: a recorded
 * stream replayed in pieces of random size (cut anywhere, UTF-8 sequences included), a status with a
 * body, or nothing at all.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect } from "effect"
import type { Scope } from "effect"
import type { Provider } from "@toolgate/runtime"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"

/** A request as the server received it. */
export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** Answers one request (the body already read). */
export type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** A started server: its API root (`…/v1`) and what it received. */
export interface Server {
  readonly baseUrl: string
  readonly requests: ReadonlyArray<Recorded>
}

/** Starts a server for the test's scope; closed (connections included) when the scope closes. */
export const start = (reply: Reply): Effect.Effect<Server, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly api: Server }>((resume) => {
      const requests: Array<Recorded> = []
      const server = http.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(parts).toString("utf8") })
          reply(req, res)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, api: { baseUrl: `http://127.0.0.1:${port}/v1`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ api }) => api))

/** A recorded stream from `test/fixtures`. */
export const fixture = (name: string): string =>
  fs.readFileSync(path.resolve(import.meta.dirname, "fixtures", name), "utf8")

/** A small deterministic generator (mulberry32), so a failing cut can be replayed from its seed. */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** `text` as UTF-8 bytes cut at random places into pieces of 1 to `max` bytes. */
export const cut = (text: string | Buffer, seed: number, max = 48): ReadonlyArray<Buffer> => {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text
  const next = random(seed)
  const pieces: Array<Buffer> = []
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(next() * max)
    pieces.push(bytes.subarray(at, at + size))
    at += size
  }
  return pieces
}

/** Replays `text` as an event stream in random pieces, yielding to the event loop between writes; `end: false` leaves the body open. */
export const replay = (text: string | Buffer, options: { readonly seed?: number; readonly max?: number; readonly end?: boolean } = {}): Reply =>
(_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  const pieces = cut(text, options.seed ?? 1, options.max)
  let i = 0
  const pump = (): void => {
    if (res.destroyed) return
    if (i === pieces.length) {
      if (options.end !== false) res.end()
      return
    }
    res.write(pieces[i++])
    setImmediate(pump)
  }
  pump()
}

/** Answers `status` with `body` (a value sent as JSON, or raw text). */
export const answer = (status: number, body: unknown, contentType = "application/json"): Reply => (_req, res) => {
  res.writeHead(status, { "content-type": contentType })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

/** Never answers (the connection stays open until the server closes). */
export const hang: Reply = () => {}

/** One SSE `data:` event carrying `payload` (JSON unless a string). */
export const data = (payload: unknown): string => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`

/** The provider for `server`, over `fetch` (real loopback sockets); the test's options are valid (else it dies). */
export const provider = (
  server: Server,
  options: Partial<OpenAiCompatible.Options> = {}
): Effect.Effect<Provider.AgentProvider> =>
  OpenAiCompatible.make({ baseUrl: server.baseUrl, model: "test-model", timeout: "5 seconds", ...options }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.orDie
  )

export { collect, request } from "./support/roundTrip.js"

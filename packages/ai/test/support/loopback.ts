/**
 * A scripted HTTP server on 127.0.0.1 for the provider wires: each request takes the next reply in order
 * (server-sent events, a JSON body, a status with a body, events and then a cut connection, or events and then
 * nothing more, the connection held open, optionally kept busy with comment lines) and its
 * JSON body is recorded, so a test can check what went out as well as what came back.
 */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** One server-sent event: its `event:` name and its data (a string is sent as written, anything else as JSON). */
export type Event = readonly [name: string | undefined, data: unknown]

/** What the server answers a request with. */
export type Reply =
  | { readonly _tag: "Sse"; readonly events: ReadonlyArray<Event> }
  | { readonly _tag: "Json"; readonly status?: number; readonly body: unknown }
  | { readonly _tag: "Cut"; readonly events: ReadonlyArray<Event> }
  | { readonly _tag: "Hang"; readonly events: ReadonlyArray<Event>; readonly trickleMs: number | undefined }

export const sse = (...events: ReadonlyArray<Event>): Reply => ({ _tag: "Sse", events })
export const json = (body: unknown, status = 200): Reply => ({ _tag: "Json", status, body })
/** The events, then the socket is destroyed mid-body (no terminating chunk). */
export const cut = (...events: ReadonlyArray<Event>): Reply => ({ _tag: "Cut", events })

/** The events, then the connection is held open without another event (a `: keep-alive` comment every `trickleMs`, when given). */
export const hang = (events: ReadonlyArray<Event>, trickleMs?: number): Reply => ({ _tag: "Hang", events, trickleMs })

export interface Server {
  readonly url: string
  /** The JSON bodies received, in order, with their paths. */
  readonly requests: ReadonlyArray<{ readonly path: string; readonly headers: http.IncomingHttpHeaders; readonly body: any }>
}

const frame = ([name, data]: Event): string =>
  `${name === undefined ? "" : `event: ${name}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

/** Serves `replies` in order for the surrounding scope; a request past the last reply gets a 500. */
export const serve = (replies: ReadonlyArray<Reply>): Effect.Effect<Server, never, import("effect/Scope").Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly state: Server }>((resume) => {
      const requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }> = []
      let next = 0
      const server = http.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8")
          requests.push({ path: req.url ?? "", headers: req.headers, body: text === "" ? undefined : JSON.parse(text) })
          const reply = replies[next++]
          if (reply === undefined) {
            res.writeHead(500, { "content-type": "application/json" })
            return void res.end(JSON.stringify({ error: { message: "no reply scripted" } }))
          }
          switch (reply._tag) {
            case "Json":
              res.writeHead(reply.status ?? 200, { "content-type": "application/json" })
              return void res.end(JSON.stringify(reply.body))
            case "Sse":
              res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
              return void res.end(reply.events.map(frame).join(""))
            case "Cut":
              res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
              res.flushHeaders()
              return void res.write(reply.events.map(frame).join(""), () => setTimeout(() => res.socket?.destroy(), 20))
            case "Hang": {
              res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
              res.write(reply.events.map(frame).join(""))
              const trickle = reply.trickleMs === undefined ? undefined : setInterval(() => res.write(": keep-alive\n\n"), reply.trickleMs)
              return void res.on("close", () => clearInterval(trickle))
            }
          }
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ server, state: { url: `http://127.0.0.1:${port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ state }) => state))

/**
 * The proxy over Streamable HTTP: one listener on loopback (or the host given), a session per `initialize`, each
 * with its own upstream connection. Requests whose `Host` or `Origin` is not the listener's are refused (DNS
 * rebinding), bodies are bounded, and a body that is not JSON is answered with a JSON-RPC parse error.
 */
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import type { ReadableStream } from "node:stream/web"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { isLegacyRequest } from "@modelcontextprotocol/server"

/** How the listener opens a session: a connected server for a fresh transport, or the reason it could not. */
export type Open = (transport: StreamableHTTPServerTransport) => Promise<{ readonly close: () => Promise<void> }>

/** How a request of the stateless revision (no session) is answered: a web request in, a web response out. */
export type Modern = (request: Request, parsedBody: unknown) => Promise<Response>

/** A running listener. */
export interface Listener {
  readonly url: string
  readonly port: number
  readonly sessions: () => number
  readonly close: () => Promise<void>
}

/** The largest request body read. */
export const maxBodyBytes = 4 * 1024 * 1024

const loopbacks = new Set(["127.0.0.1", "localhost", "[::1]"])

const answer = (res: Http.ServerResponse, status: number, code: number, message: string) => {
  if (res.headersSent) return res.end()
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

/** Past this many bytes of a body over the limit the connection is cut instead of drained. */
const maxDrainedBytes = 16 * maxBodyBytes

/** The body as text, or `undefined` when it is over `maxBodyBytes` (the rest is drained, so the client reads the 413). */
const readBody = (req: Http.IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBodyBytes) chunks.push(chunk)
      else if (size > maxDrainedBytes) req.destroy()
    })
    req.on("end", () => resolve(size > maxBodyBytes ? undefined : Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const hostAllowed = (req: Http.IncomingMessage, host: string, port: number): boolean => {
  const allowed = loopbacks.has(host) || host === "::1" ? [...loopbacks] : [host]
  const ok = (h: string | undefined) => h !== undefined && allowed.some((a) => h === `${a}:${port}`)
  if (!ok(req.headers.host)) return false
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return ok(new URL(origin).host)
  } catch {
    return false
  }
}

/** The request as a web `Request` with the body already read, aborted when the client goes before its answer. */
const webRequest = (req: Http.IncomingMessage, res: Http.ServerResponse, text: string): Request => {
  const gone = new AbortController()
  res.once("close", () => {
    if (!res.writableFinished) gone.abort()
  })
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(key, value)
    else if (Array.isArray(value)) for (const one of value) headers.append(key, one)
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: "POST", headers, body: text, signal: gone.signal })
}

/** Writes a web `Response` (a JSON body, or an event stream as it comes) to the node response. */
const respond = (res: Http.ServerResponse, response: Response) => {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) return void res.end()
  const body = Readable.fromWeb(response.body as ReadableStream)
  body.on("error", () => res.destroy())
  res.once("close", () => body.destroy())
  body.pipe(res)
}

/** A session: its transport and how many of its POSTs are being answered. */
interface Session {
  readonly transport: StreamableHTTPServerTransport
  busy: number
}

/**
 * Listens on `host:port` (0: any free port) and serves sessions opened by `open`, at most `maxSessions` at once
 * (each holds an upstream connection, a process for a stdio server). Clients often leave without ending their
 * session, so at the limit a new `initialize` ends the least recently used session that has no request running;
 * when every one has, it is a 503.
 */
export const listen = async (host: string, port: number, maxSessions: number, open: Open, modern: Modern): Promise<Listener> => {
  const sessions = new Map<string, Session>()
  let opening = 0
  /** Ends the least recently used idle session; false when every session is busy. */
  const evict = async (): Promise<boolean> => {
    for (const [sid, session] of sessions) {
      if (session.busy === 0) {
        sessions.delete(sid)
        await session.transport.close()
        return true
      }
    }
    return false
  }
  /** Answers a POST of a known session, marking it used and busy until the response ends. */
  const post = (sid: string, session: Session, req: Http.IncomingMessage, res: Http.ServerResponse, body: unknown) => {
    sessions.delete(sid)
    sessions.set(sid, session)
    session.busy += 1
    res.once("close", () => {
      session.busy -= 1
    })
    return session.transport.handleRequest(req, res, body)
  }
  let bound = port
  const handle = async (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    if (!hostAllowed(req, host, bound)) return answer(res, 403, -32000, "Forbidden: the Host or Origin is not this server's")
    const id = req.headers["mcp-session-id"]
    const known = typeof id === "string" ? sessions.get(id) : undefined
    if (req.method !== "POST") {
      if (known === undefined) return answer(res, 400, -32000, "Bad Request: no valid session ID")
      return known.transport.handleRequest(req, res)
    }
    const text = await readBody(req)
    if (text === undefined) return answer(res, 413, -32000, `Payload Too Large: over ${maxBodyBytes} bytes`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return answer(res, 400, -32700, "Parse error: the body is not JSON")
    }
    if (known !== undefined) return post(id as string, known, req, res, body)
    if (id !== undefined) return answer(res, 404, -32001, "Session not found")
    // a request of the stateless revision has no session: the SDK's handler classifies and serves it
    const request = webRequest(req, res, text)
    if (!(await isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes }))) return respond(res, await modern(request, body))
    if (!isInitializeRequest(body)) return answer(res, 400, -32000, "Bad Request: no valid session ID")
    while (sessions.size + opening >= maxSessions) {
      if (!(await evict())) {
        return answer(res, 503, -32000, `Service Unavailable: ${maxSessions} sessions are open and busy; end one (DELETE) first`)
      }
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, busy: 0 })
      }
    })
    let session: ReturnType<Open> | undefined
    transport.onclose = () => {
      const sid = transport.sessionId
      if (sid !== undefined) sessions.delete(sid)
      session?.then((s) => s.close()).catch(() => undefined)
    }
    session = open(transport)
    opening += 1
    try {
      await session
    } catch (e) {
      return answer(res, 502, -32603, `The upstream MCP server could not be reached: ${e instanceof Error ? e.message : String(e)}`)
    } finally {
      opening -= 1
    }
    return transport.handleRequest(req, res, body)
  }
  const server = Http.createServer((req, res) => {
    handle(req, res).catch((e) => answer(res, 500, -32603, `Internal error: ${e instanceof Error ? e.message : String(e)}`))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => resolve())
  })
  bound = (server.address() as AddressInfo).port
  const urlHost = host.includes(":") ? `[${host}]` : host
  return {
    url: `http://${urlHost}:${bound}/mcp`,
    port: bound,
    sessions: () => sessions.size,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()))
      sessions.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

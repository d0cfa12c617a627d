/**
 * The SDK transport for a server spec, every message bounded in bytes: stdio through the SDK's read buffer
 * limit, Streamable HTTP through a `fetch` whose response bodies fail at the first message past the limit (each
 * server-sent event counted on its own, so a long-lived event stream is never cut for its total).
 */
import { StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"

/** A spawned server: the executable and its argv, no shell. */
export interface StdioSpec {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  readonly stderr: "ignore" | "inherit"
}

/** A server at a Streamable HTTP endpoint. */
export interface HttpSpec {
  readonly _tag: "StreamableHttp"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The message a too-large read fails with, so the connection can tell a limit from a lost peer. */
export const tooLarge = "toolgate: message exceeded the byte limit"

const LF = 0x0a
const CR = 0x0d

/**
 * A counter of the bytes of one server-sent event: `add` takes a chunk of the stream and answers whether the
 * event being read has passed `max`; the count starts again after each event's blank line (LF, CR or CRLF line
 * ends), so a long-lived stream of small events is never cut.
 */
export const perEvent = (max: number) => {
  let seen = 0
  let lineStart = true
  let afterCr = false
  return (chunk: Uint8Array): boolean => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!
      if (byte === LF && afterCr) {
        afterCr = false
        continue
      }
      afterCr = byte === CR
      if (byte !== LF && byte !== CR) {
        lineStart = false
        if (++seen > max) return true
      } else if (lineStart) {
        seen = 0
      } else {
        lineStart = true
      }
    }
    return false
  }
}

/** A counter of a whole body's bytes (a JSON body is one message or one batch). */
const perBody = (max: number) => {
  let seen = 0
  return (chunk: Uint8Array): boolean => (seen += chunk.byteLength) > max
}

/**
 * A response whose body fails once one message passes `max` bytes: an event stream counts each event (its
 * field lines, line ends left out), any other body counts as one message.
 */
const bounded = (response: Response, max: number): Response => {
  if (response.body === null) return response
  const eventStream = response.headers.get("content-type")?.toLowerCase().includes("text/event-stream") === true
  const past = eventStream ? perEvent(max) : perBody(max)
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (past(chunk)) controller.error(new Error(tooLarge))
      else controller.enqueue(chunk)
    }
  })
  return new Response(response.body.pipeThrough(limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers
  })
}

/**
 * The SDK's stdio transport under a name of its own. The SDK's client, negotiating the protocol's era, runs its
 * `server/discover` probe on a second, short-lived process of the same command when the transport is its base
 * class exactly, and on the connection itself when it is a subclass: this one, so a server is started once per
 * connection (a server with side effects at start has them once).
 */
export class SpawnedOnce extends StdioClientTransport {}

/** The SDK transport for `spec`. */
export const make = (spec: StdioSpec | HttpSpec, maxMessageBytes: number): Transport => {
  if (spec._tag === "Stdio") {
    return new SpawnedOnce({
      command: spec.command,
      args: [...spec.args],
      ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stderr: spec.stderr,
      maxBufferSize: maxMessageBytes
    })
  }
  const fetchBounded = async (url: string | URL, init?: RequestInit) => bounded(await fetch(url, init), maxMessageBytes)
  return new StreamableHTTPClientTransport(new URL(spec.url), {
    fetch: fetchBounded,
    ...(spec.headers === undefined ? {} : { requestInit: { headers: { ...spec.headers } } })
  })
}

/** How a server is named in errors and reports: its argv, or its URL without query or credentials. */
export const label = (spec: StdioSpec | HttpSpec): string => {
  if (spec._tag === "Stdio") return [spec.command, ...spec.args].join(" ")
  const url = new URL(spec.url)
  return `${url.protocol}//${url.host}${url.pathname}`
}

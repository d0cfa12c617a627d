/**
 * The SDK transport for a server spec, every message bounded in bytes: stdio through the SDK's read buffer
 * limit, Streamable HTTP through a `fetch` whose response bodies stop at the limit.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"

/** A spawned server: the executable and its argv, no shell. */
export interface StdioSpec {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
}

/** A server at a Streamable HTTP endpoint. */
export interface HttpSpec {
  readonly _tag: "StreamableHttp"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The message a too-large read fails with, so the connection can tell a limit from a lost peer. */
export const tooLarge = "toolgate: message exceeded the byte limit"

/** A response whose body fails once more than `max` bytes have been read. */
const bounded = (response: Response, max: number): Response => {
  if (response.body === null) return response
  let seen = 0
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength
      if (seen > max) controller.error(new Error(tooLarge))
      else controller.enqueue(chunk)
    }
  })
  return new Response(response.body.pipeThrough(limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers
  })
}

/** The SDK transport for `spec`; stderr of a spawned server is piped and dropped unless read. */
export const make = (spec: StdioSpec | HttpSpec, maxMessageBytes: number): Transport => {
  if (spec._tag === "Stdio") {
    return new StdioClientTransport({
      command: spec.command,
      args: [...spec.args],
      ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stderr: "ignore",
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

/**
 * The proxy's upstream: one MCP client on the server it fronts, over the connection module's bounded
 * transports. It is the SDK's client itself, not `McpConnection`, because the proxy forwards every request,
 * notification and server-to-client request as it comes; the capabilities a downstream client may need
 * (sampling, elicitation, roots) are declared so their requests can be passed through.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type * as McpConnection from "../McpConnection.js"
import type * as McpErrors from "../McpErrors.js"
import * as Thrown from "./thrown.js"
import * as Transport from "./transport.js"

/** A connected upstream. */
export interface Upstream {
  readonly client: Client
  /** The server in words, for messages: its argv or its URL. */
  readonly name: string
  /** Why the connection ended, once it has; `undefined` while it is open. */
  readonly ended: () => string | undefined
  /** The SDK's error for `operation` as one of `McpErrors`. */
  readonly typed: (operation: string, millis: number) => (thrown: unknown) => McpErrors.McpError
  readonly close: () => Promise<void>
}

/** What the proxy's upstream client declares: whatever a downstream client may be asked is passed through. */
export const capabilities: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } }

/** How an upstream is reached. */
export interface Limits {
  readonly connectTimeoutMillis: number
  readonly maxMessageBytes: number
}

/** Connects (initialize handshake included) within the limit; rejects with one of `McpErrors`. */
export const connect = async (server: McpConnection.Server, limits: Limits): Promise<Upstream> => {
  const name = Transport.label(server)
  const client = new Client({ name: "toolgate-mcp-proxy", version: "0.1.0" }, { capabilities })
  const last = { message: undefined as string | undefined, pastLimit: false }
  let ended: string | undefined
  client.onerror = (error) => {
    last.message = error.message
    last.pastLimit ||= Thrown.pastLimit(error.message)
  }
  client.onclose = () => {
    ended = last.pastLimit
      ? `a message went past the limit of ${limits.maxMessageBytes} bytes`
      : last.message === undefined
      ? "the connection closed"
      : `the connection closed (${last.message})`
  }
  const typed = Thrown.mapper(name, limits.maxMessageBytes, () => last)
  try {
    await client.connect(Transport.make(server, limits.maxMessageBytes), { timeout: limits.connectTimeoutMillis })
  } catch (e) {
    await client.close().catch(() => undefined)
    throw typed("initialize", limits.connectTimeoutMillis)(e)
  }
  return { client, name, ended: () => ended, typed, close: () => client.close() }
}

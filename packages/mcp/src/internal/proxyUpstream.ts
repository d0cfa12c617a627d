/**
 * The proxy's upstream: the SDK transport to the server it fronts (the connection module's bounded transports),
 * after the initialize handshake. The SDK's client makes the handshake (version negotiation, the result checked);
 * then the proxy takes the transport over and relays messages on it itself, so a call is not decoded, validated
 * and encoded again by a client of its own. The capabilities a downstream client may need (sampling,
 * elicitation, roots) are declared, so their requests can be passed through.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { ClientCapabilities, JSONRPCMessage, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type * as McpConnection from "../McpConnection.js"
import type * as McpErrors from "../McpErrors.js"
import * as Thrown from "./thrown.js"
import * as Transports from "./transport.js"

/** A connected upstream: its transport is the proxy's to read (`onmessage`) and write (`send`). */
export interface Upstream {
  /** The server in words, for messages: its argv or its URL. */
  readonly name: string
  readonly capabilities: ServerCapabilities
  readonly instructions: string | undefined
  /** Sends a message to the server; a failed send is reported through `ended`. */
  readonly send: (message: JSONRPCMessage) => void
  /**
   * Where the server's messages go from now on (those that came since the handshake first, in order), and what
   * to do once the connection ends.
   */
  readonly listen: (onmessage: (message: JSONRPCMessage) => void, onclose: () => void) => void
  /** Why the connection ended, once it has; `undefined` while it is open. */
  readonly ended: () => string | undefined
  readonly close: () => Promise<void>
}

/** What the proxy's upstream client declares: whatever a downstream client may be asked is passed through. */
export const capabilities: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } }

/** How an upstream is reached. */
export interface Limits {
  readonly connectTimeoutMillis: number
  readonly maxMessageBytes: number
}

/** How many messages the server may send between the handshake and the proxy listening. */
const maxEarly = 1024

/**
 * An upstream after the handshake, its SDK client still owning the transport (so the proxy may list through it,
 * to prove a lock, before taking it over).
 */
export interface Handshaken {
  readonly name: string
  readonly client: Client
  readonly typed: Thrown.Mapper
  readonly limits: Limits
  readonly transport: Transport
  readonly last: { message: string | undefined; pastLimit: boolean }
}

/** The initialize handshake within the limit; rejects with one of `McpErrors`. */
export const handshake = async (server: McpConnection.Server, limits: Limits): Promise<Handshaken> => {
  const name = Transports.label(server)
  const client = new Client({ name: "toolgate-mcp-proxy", version: "0.1.0" }, { capabilities })
  const last = { message: undefined as string | undefined, pastLimit: false }
  client.onerror = (error) => {
    last.message = error.message
    last.pastLimit ||= Thrown.pastLimit(error.message)
  }
  const transport: Transport = Transports.make(server, limits.maxMessageBytes)
  const typed = Thrown.mapper(name, limits.maxMessageBytes, () => last)
  try {
    await client.connect(transport, { timeout: limits.connectTimeoutMillis })
  } catch (e) {
    const error: McpErrors.McpError = typed("initialize", limits.connectTimeoutMillis)(e)
    await client.close().catch(() => undefined)
    throw error
  }
  return { name, client, typed, limits, transport, last }
}

/** Connects (initialize handshake included) within the limit; rejects with one of `McpErrors`. */
export const connect = async (server: McpConnection.Server, limits: Limits): Promise<Upstream> =>
  takeOver(await handshake(server, limits))

/** The proxy takes the transport over from the SDK client: from here on its messages are the proxy's. */
export const takeOver = ({ client, last, limits, name, transport }: Handshaken): Upstream => {
  let ended: string | undefined
  // what the server sends before the proxy listens is kept for it (a server that floods meanwhile loses the rest)
  const early: Array<JSONRPCMessage> = []
  let onmessage = (message: JSONRPCMessage) => {
    if (early.length < maxEarly) early.push(message)
  }
  let onclose: () => void = () => undefined
  const upstream: Upstream = {
    name,
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    send: (message) => {
      if (ended !== undefined) return
      transport.send(message).catch((e: unknown) => {
        last.message = e instanceof Error ? e.message : String(e)
      })
    },
    listen: (handler, closed) => {
      onmessage = handler
      onclose = closed
      for (const message of early.splice(0)) handler(message)
    },
    ended: () => ended,
    close: () => transport.close()
  }
  transport.onmessage = (message) => onmessage(message)
  transport.onerror = (error) => {
    last.message = error.message
    last.pastLimit ||= Thrown.pastLimit(error.message)
  }
  transport.onclose = () => {
    if (ended !== undefined) return
    ended = last.pastLimit
      ? `a message went past the limit of ${limits.maxMessageBytes} bytes`
      : last.message === undefined
      ? "the connection closed"
      : `the connection closed (${last.message})`
    onclose()
  }
  return upstream
}

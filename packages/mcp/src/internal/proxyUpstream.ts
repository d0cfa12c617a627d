/**
 * The proxy's upstream: the SDK transport to the server it fronts (the connection module's bounded transports),
 * once connected. The SDK's client connects (the era probed or pinned, the `initialize` or `server/discover`
 * result checked); then the proxy takes the transport over and relays messages on it itself, so a call is not
 * decoded, validated and encoded again by a client of its own. On the stateless revision every request and
 * notification relayed gets the `_meta` envelope the client would put on it. The capabilities a downstream
 * client may need (sampling, elicitation, roots) are declared, so their requests can be passed through.
 */
import type { ClientCapabilities, JSONRPCMessage as WireMessage, Transport } from "@modelcontextprotocol/client"
import type { JSONRPCMessage, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type * as McpConnection from "../McpConnection.js"
import type * as McpErrors from "../McpErrors.js"
import * as Client from "./client.js"
import { identity } from "./proxyServed.js"
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
  readonly protocol: Client.Protocol
}

/** How many messages the server may send between the handshake and the proxy listening. */
const maxEarly = 1024

/**
 * An upstream after the handshake, its SDK client still owning the transport (so the proxy may list through it,
 * to prove a lock, before taking it over).
 */
export interface Handshaken {
  readonly name: string
  readonly client: Client.EnvelopedClient
  readonly typed: Thrown.Mapper
  readonly limits: Limits
  readonly transport: Transport
  readonly last: { message: string | undefined; pastLimit: boolean }
}

/** Connects within the limit (the era probed or pinned as `limits.protocol` says); rejects with one of `McpErrors`. */
export const handshake = async (server: McpConnection.Server, limits: Limits): Promise<Handshaken> => {
  const name = Transports.label(server)
  const last = { message: undefined as string | undefined, pastLimit: false }
  let current: Client.EnvelopedClient | undefined
  const newClient = () => {
    const client = Client.make(identity, capabilities, limits.protocol)
    client.onerror = (error) => {
      last.message = error.message
      last.pastLimit ||= Thrown.pastLimit(error.message)
    }
    return current = client
  }
  const typed = Thrown.mapper(name, limits.maxMessageBytes, () => last)
  try {
    const client = await Client.connect(newClient, () => Transports.make(server, limits.maxMessageBytes), limits.protocol, {
      timeout: limits.connectTimeoutMillis
    })
    return { name, client, typed, limits, transport: client.transport!, last }
  } catch (e) {
    const error: McpErrors.McpError = typed("connect", limits.connectTimeoutMillis)(e)
    await current?.close().catch(() => undefined)
    throw error
  }
}

/** Connects within the limit; rejects with one of `McpErrors`. */
export const connect = async (server: McpConnection.Server, limits: Limits): Promise<Upstream> =>
  takeOver(await handshake(server, limits))

/**
 * A request or notification with the stateless revision's `_meta` envelope added (its own `_meta` keys kept
 * over the envelope's, as the SDK's client does); answers, and every message on the older revisions, as they are.
 */
const enveloped = (message: JSONRPCMessage, envelope: Readonly<Record<string, unknown>> | undefined): JSONRPCMessage => {
  if (envelope === undefined || !("method" in message)) return message
  const params = (message.params ?? {}) as Record<string, unknown>
  const meta = (params._meta ?? {}) as Record<string, unknown>
  return { ...message, params: { ...params, _meta: { ...envelope, ...meta } } } as JSONRPCMessage
}

/** The proxy takes the transport over from the SDK client: from here on its messages are the proxy's. */
export const takeOver = ({ client, last, limits, name, transport }: Handshaken): Upstream => {
  let ended: string | undefined
  // what the server sends before the proxy listens is kept for it (a server that floods meanwhile loses the rest)
  const early: Array<JSONRPCMessage> = []
  let onmessage = (message: JSONRPCMessage) => {
    if (early.length < maxEarly) early.push(message)
  }
  let onclose: () => void = () => undefined
  const envelope = client.envelope()
  const upstream: Upstream = {
    name,
    capabilities: (client.getServerCapabilities() ?? {}) as ServerCapabilities,
    instructions: client.getInstructions(),
    send: (message) => {
      if (ended !== undefined) return
      transport.send(enveloped(message, envelope) as WireMessage).catch((e: unknown) => {
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
  transport.onmessage = (message) => onmessage(message as JSONRPCMessage)
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

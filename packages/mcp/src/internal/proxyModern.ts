/**
 * The proxy toward a client of MCP's stateless revision (2026-07-28), on `@modelcontextprotocol/server` 2.4: the
 * SDK's server reads each request's `_meta` envelope, answers `server/discover` with the proxy's versions,
 * capabilities and identity, refuses a version it does not serve (`-32022`, the supported ones listed) and stamps
 * `resultType` on results; every request it does not answer itself goes to the proxy's session (`ask`), which
 * checks `tools/call`, rewrites `tools/list` and relays the rest. Over stdio the connection's opening message
 * decides: one of the stateless revision is served here, any other by the session's relay of the older revisions.
 */
import type { Transport as WireTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { isJSONRPCRequest, type JSONRPCMessage as WireMessage } from "@modelcontextprotocol/sdk/types.js"
import type { JSONRPCMessage, JSONRPCRequest, ServerCapabilities, Transport } from "@modelcontextprotocol/server"
import {
  createMcpHandler,
  type McpHttpHandler,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  UnsupportedProtocolVersionError
} from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import * as Client from "./client.js"
import { identity } from "./proxyServed.js"
import type * as Session from "./proxySession.js"

/** The `_meta` keys of the revision's envelope: the SDK's server has read them; the upstream gets its own. */
const envelopePrefix = "io.modelcontextprotocol/"

const withoutEnvelope = (params: JSONRPCRequest["params"]): unknown => {
  const meta = params?._meta
  if (params === undefined || typeof meta !== "object" || meta === null) return params
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(envelopePrefix)))
  const { _meta: _, ...rest } = params
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept }
}

/**
 * What the proxy declares on the stateless revision: tools (their list changes are told on
 * `subscriptions/listen`), and the upstream's resources, prompts and completion, relayed request by request
 * (no resource subscriptions, no log messages).
 */
const capabilitiesOf = ({ completions, prompts, resources }: Session.Session["capabilities"]): ServerCapabilities => ({
  tools: { listChanged: true },
  ...(completions === undefined ? {} : { completions: {} }),
  ...(prompts === undefined ? {} : { prompts: {} }),
  ...(resources === undefined ? {} : { resources: {} })
})

/** A server instance of the stateless revision whose requests the session answers. */
export const server = (session: Session.Session, instructions: string | undefined): Server => {
  const instance = new Server(identity, { capabilities: capabilitiesOf(session.capabilities), ...(instructions === undefined ? {} : { instructions }) })
  instance.fallbackRequestHandler = async (request, ctx) => {
    const answer = await session.ask(request.method, withoutEnvelope(request.params), ctx.mcpReq.signal)
    if ("error" in answer) throw new ProtocolError(answer.error.code, answer.error.message, answer.error.data)
    return answer.result
  }
  return instance
}

/** Whether a connection's opening message is one of the stateless revision (its `_meta` claims a protocol version). */
export const opensModern = (message: WireMessage): boolean => {
  if (!("method" in message) || message.method === "initialize") return false
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta
}

/** The revisions of the stateless era the proxy serves. */
export const supported: ReadonlyArray<string> = [Client.modernRevision]

/**
 * Why a request on a stdio connection in the stateless revision is refused before the SDK's entry sees it: it
 * lacks the envelope (the entry drops such a request unanswered until the connection is pinned), or claims a
 * version not served (the entry checks only the opening messages' versions).
 */
const refusal = (params: unknown): { readonly code: number; readonly message: string; readonly data?: unknown } | undefined => {
  const meta = (params as { _meta?: unknown } | undefined)?._meta
  if (typeof meta !== "object" || meta === null || !(PROTOCOL_VERSION_META_KEY in meta)) {
    return { code: ProtocolErrorCode.InvalidParams, message: `Invalid _meta envelope: the per-request envelope (an object with "${PROTOCOL_VERSION_META_KEY}") is required on protocol revision ${Client.modernRevision}` }
  }
  const requested = (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY]
  if (typeof requested === "string" && supported.includes(requested)) return undefined
  const error = new UnsupportedProtocolVersionError({ supported: [...supported], requested: typeof requested === "string" ? requested : "unknown" })
  return { code: error.code, message: error.message, data: error.data }
}

/**
 * Serves the stateless revision on a started stdio transport whose opening message was `first`: the SDK's stdio
 * entry (modern only) reads it and every later message; `onclose` runs when the connection ends.
 */
export const serveModernStdio = (session: Session.Session, instructions: string | undefined, wire: WireTransport, first: WireMessage) => {
  const channel: Transport = {
    start: async () => undefined,
    send: (message) => wire.send(message as WireMessage),
    close: () => wire.close()
  }
  const onclose = wire.onclose
  wire.onclose = () => {
    channel.onclose?.()
    onclose?.()
  }
  let current: Server | undefined
  session.onToolsChanged(() => void current?.sendToolListChanged().catch(() => undefined))
  serveStdio(() => current = server(session, instructions), { legacy: "reject", transport: channel })
  wire.onmessage = (message) => {
    const request = isJSONRPCRequest(message) && message.method !== "initialize" ? message : undefined
    const refused = request === undefined ? undefined : refusal(request.params)
    if (request === undefined || refused === undefined) return channel.onmessage?.(message as JSONRPCMessage)
    wire.send({ jsonrpc: "2.0", id: request.id, error: refused } as WireMessage).catch(() => undefined)
  }
  channel.onmessage?.(first as JSONRPCMessage)
}

/** The HTTP handler of the stateless revision (modern only), its servers asking the session `open` gives. */
export const httpHandler = (open: () => Promise<{ readonly session: Session.Session; readonly instructions: string | undefined }>, maxRequestBodySize: number): McpHttpHandler => {
  const handler: McpHttpHandler = createMcpHandler(async () => {
    const { instructions, session } = await open()
    return server(session, instructions)
  }, { legacy: "reject", maxRequestBodySize })
  return handler
}

/**
 * One downstream session of the proxy: JSON-RPC messages relayed between a downstream transport and one upstream.
 * The proxy acts on few of them: it answers `initialize` and `ping` itself, rewrites `tools/list` answers per
 * dialect (and remembers the tools, `proxyTools`), and checks every `tools/call` (`proxyCall`). Every other request the
 * upstream declared is relayed as it came, under an id of the proxy's (the proxy sends requests of its own
 * upstream, so ids are mapped back on the answer); notifications and the upstream's requests to its client flow
 * back as they came. Each message was decoded as a JSON-RPC message by the SDK transport that read it. A session
 * also answers requests of the stateless revision one by one (`ask`), with no client session behind them.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  type RequestId,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ProxyCall from "./proxyCall.js"
import { capabilitiesOf, identity, needs, relayedMethods, sessionOnly } from "./proxyServed.js"
import * as ProxyTools from "./proxyTools.js"
import type { Upstream } from "./proxyUpstream.js"
import { JsonObject } from "./jsonObject.js"

/** What a session needs from the proxy. */
export interface Settings extends ProxyCall.Settings {
  readonly dialect: ProxyTools.Dialect
  /** At most this many tools are read from the upstream's listing (pages followed until then). */
  readonly maxTools: number
}

/** An `initialize` request's params, as the proxy reads them. */
const InitializeParams = Schema.Struct({ protocolVersion: Schema.String, capabilities: JsonObject, clientInfo: JsonObject })
const decodeInitialize = Schema.decodeUnknownEither(InitializeParams)

const progressTokenOf = (params: unknown): string | number | undefined => {
  const meta = (params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
  const token = typeof meta === "object" && meta !== null ? meta.progressToken : undefined
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

const rpcError = (id: RequestId, code: number, message: string, data?: unknown): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) }
})

/** A downstream request the proxy is answering: cancelled by the client, it is answered no more. */
interface Flight {
  silenced: boolean
  cancel: (() => void) | undefined
}

/** What a request is answered with: its result or a JSON-RPC error. */
export type Answer = { readonly result: Record<string, unknown> } | { readonly error: ProxyCall.RpcError }

/**
 * A session: `connect` it to a downstream transport (started here; its `onclose` is kept and called first), or
 * `attach` it to one already started; or `ask` it requests of the stateless revision, each answered on its own.
 */
export interface Session {
  readonly connect: (downstream: Transport) => Promise<void>
  readonly attach: (downstream: Transport) => void
  /** The capabilities served: the upstream's resources, prompts, completion and logging, and tools. */
  readonly capabilities: ServerCapabilities
  /**
   * Answers one request with no client session: the methods the session relays but those the stateless revision
   * dropped (`resources/subscribe`, `resources/unsubscribe`, `logging/setLevel`); `signal` cancels it.
   */
  readonly ask: (method: string, params: unknown, signal?: AbortSignal) => Promise<Answer>
  /** Called when the upstream says its tool list changed. */
  readonly onToolsChanged: (listener: () => void) => void
}

/** A response sent back to whoever asked. */
type Sink = (response: JSONRPCMessage) => void

/** A session for one downstream client over `upstream`. */
export const make = (upstream: Upstream, settings: Settings): Session => {
  const capabilities = capabilitiesOf(upstream.capabilities)
  const relayed = relayedMethods(capabilities)
  const timeout = settings.callTimeoutMillis
  const tools = ProxyTools.make(settings.dialect, settings.maxTools)
  const pending = new Map<number, { readonly reply: (reply: ProxyCall.Reply) => void; readonly timer: ReturnType<typeof setTimeout> }>()
  const flights = new Map<RequestId, Flight>()
  const routes = new Map<string | number, RequestId>()
  let clientCapabilities: Record<string, unknown> = {}
  let nextId = 0
  let nextAsk = 0
  let downstream: Transport | undefined
  let listening = false
  let toolsChanged: () => void = () => undefined

  const toClient = (message: JSONRPCMessage, relatedRequestId?: RequestId) => {
    downstream?.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(() => undefined)
  }

  /** Sends a request upstream under an id of the proxy's; `reply` is called once. Returns its cancel. */
  const request = (method: string, params: unknown, reply: (reply: ProxyCall.Reply) => void): () => void => {
    if (upstream.ended() !== undefined) {
      reply("closed")
      return () => undefined
    }
    const id = ++nextId
    const timer = setTimeout(() => {
      if (!pending.delete(id)) return
      upstream.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "timeout" } })
      reply("timeout")
    }, timeout)
    pending.set(id, { reply, timer })
    upstream.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params: params as Record<string, unknown> }) })
    return () => {
      if (!pending.delete(id)) return
      clearTimeout(timer)
      upstream.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the client cancelled the request" } })
    }
  }

  /** Answers the downstream request `message` once, unless the client cancelled it. */
  const flight = (message: JSONRPCRequest, sink: Sink) => {
    const state: Flight = { silenced: false, cancel: undefined }
    flights.set(message.id, state)
    const token = progressTokenOf(message.params)
    if (token !== undefined) routes.set(token, message.id)
    const answer = (response: JSONRPCMessage) => {
      if (flights.get(message.id) === state) flights.delete(message.id)
      if (token !== undefined && routes.get(token) === message.id) routes.delete(token)
      if (!state.silenced) sink(response)
    }
    return { state, answer }
  }

  /** The upstream's listing read page by page until `name` is found (or the pages or `maxTools` end). */
  const lookUp = async (name: string): Promise<ProxyCall.Listed | undefined> => {
    let cursor: string | undefined
    do {
      const page = await new Promise<ProxyCall.Reply>((resolve) => request("tools/list", cursor === undefined ? {} : { cursor }, resolve))
      if (typeof page === "string") throw new Error(page === "timeout" ? `tools/list timed out after ${timeout} ms` : "Connection closed")
      if ("error" in page) throw new Error(page.error.message)
      const read = tools.read(page.result)
      if (Either.isLeft(read)) throw new Error(read.left)
      cursor = read.right
    } while (cursor !== undefined && tools.size() < settings.maxTools && !tools.has(name))
    return tools.get(name)
  }

  const hop: ProxyCall.Hop = {
    settings,
    server: upstream.name,
    ended: upstream.ended,
    tool: (name) => tools.get(name) ?? lookUp(name),
    forward: () => undefined
  }

  /** A request relayed as it came; `rewrite` changes a result before it goes back. */
  const relay = (message: JSONRPCRequest, sink: Sink, rewrite?: (result: Record<string, unknown>) => Record<string, unknown> | string) => {
    const { answer, state } = flight(message, sink)
    state.cancel = request(message.method, message.params, (reply) => {
      if (reply === "timeout") return answer(rpcError(message.id, ErrorCode.RequestTimeout, "Request timed out", { timeout }))
      if (reply === "closed") return answer(rpcError(message.id, ErrorCode.ConnectionClosed, "Connection closed"))
      if ("error" in reply) return answer({ ...reply, id: message.id })
      const result = rewrite === undefined ? reply.result : rewrite(reply.result)
      if (typeof result === "string") return answer(rpcError(message.id, ErrorCode.InternalError, result))
      answer({ jsonrpc: "2.0", id: message.id, result })
    })
  }

  const toolsCall = (message: JSONRPCRequest, sink: Sink) => {
    const { answer, state } = flight(message, sink)
    const session: ProxyCall.Hop = {
      ...hop,
      forward: (params, reply, detached) => {
        const cancel = request("tools/call", params, reply)
        if (!detached) state.cancel = cancel
      }
    }
    ProxyCall.call(session, message.params, (outcome) =>
      answer("error" in outcome ? { jsonrpc: "2.0", id: message.id, error: outcome.error } : { jsonrpc: "2.0", id: message.id, result: outcome.result }))
  }

  const initialize = (message: JSONRPCRequest) => {
    const params = decodeInitialize(message.params)
    if (Either.isLeft(params)) return toClient(rpcError(message.id, ErrorCode.InvalidParams, "Invalid params of initialize"))
    clientCapabilities = params.right.capabilities
    const requested = params.right.protocolVersion
    toClient({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
        capabilities,
        serverInfo: identity,
        ...(upstream.instructions === undefined ? {} : { instructions: upstream.instructions })
      }
    })
  }

  /** Answers a request of a method the proxy serves with or without a client session. */
  const dispatch = (message: JSONRPCRequest, sink: Sink) => {
    switch (message.method) {
      case "tools/call":
        return toolsCall(message, sink)
      case "tools/list":
        return relay(message, sink, tools.answer)
      case "ping":
        return sink({ jsonrpc: "2.0", id: message.id, result: {} })
      default:
        if (relayed.has(message.method)) return relay(message, sink)
        sink(rpcError(message.id, ErrorCode.MethodNotFound, "Method not found"))
    }
  }

  const fromClient = (message: JSONRPCMessage) => {
    if (!("method" in message)) return upstream.send(message) // an answer to one of the upstream's requests
    if (!("id" in message)) return clientNotification(message)
    if (message.method === "initialize") return initialize(message)
    dispatch(message, toClient)
  }

  /** A client's request ended early: it is answered no more, and its upstream request is cancelled. */
  const cancel = (id: RequestId) => {
    const state = flights.get(id)
    if (state === undefined) return
    flights.delete(id)
    state.silenced = true
    state.cancel?.()
  }

  const clientNotification = (message: JSONRPCNotification) => {
    if (message.method === "notifications/initialized") return
    if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId
      return id === undefined ? undefined : cancel(id)
    }
    upstream.send(message)
  }

  const fromServer = (message: JSONRPCMessage) => {
    if (!("method" in message)) {
      const id = message.id
      const entry = typeof id === "number" ? pending.get(id) : undefined
      if (entry === undefined) return
      pending.delete(id as number)
      clearTimeout(entry.timer)
      return entry.reply(message)
    }
    if ("id" in message) return serverRequest(message)
    if (message.method === "notifications/progress") {
      const token = progressTokenOf({ _meta: message.params })
      return toClient(message, token === undefined ? undefined : routes.get(token))
    }
    if (message.method === "notifications/tools/list_changed") {
      tools.clear()
      toolsChanged()
    }
    toClient(message)
  }

  const serverRequest = (message: JSONRPCRequest) => {
    if (message.method === "ping") return upstream.send({ jsonrpc: "2.0", id: message.id, result: {} })
    // with no client session there is no one to ask
    if (downstream === undefined) return upstream.send(rpcError(message.id, ErrorCode.MethodNotFound, `No client can answer ${message.method}`))
    const capability = needs[message.method]
    if (capability !== undefined && clientCapabilities[capability] === undefined) {
      return upstream.send(rpcError(message.id, ErrorCode.InvalidRequest, `The client does not support ${capability} (required for ${message.method})`))
    }
    toClient(message)
  }

  const ended = () => {
    for (const [id, entry] of pending) {
      pending.delete(id)
      clearTimeout(entry.timer)
      entry.reply("closed")
    }
  }

  const listen = () => {
    if (listening) return
    listening = true
    upstream.listen(fromServer, ended)
  }

  const attach = (transport: Transport) => {
    downstream = transport
    const onclose = transport.onclose
    transport.onclose = () => {
      downstream = undefined
      onclose?.()
    }
    transport.onmessage = fromClient
    transport.onerror = () => undefined
    listen()
  }

  const ask = (method: string, params: unknown, signal?: AbortSignal) =>
    new Promise<Answer>((resolve) => {
      listen()
      const id = `toolgate-ask-${++nextAsk}`
      const sink: Sink = (response) => resolve("error" in response ? { error: response.error } : { result: (response as { result: Record<string, unknown> }).result })
      if (sessionOnly.has(method)) return sink(rpcError(id, ErrorCode.MethodNotFound, "Method not found"))
      signal?.addEventListener("abort", () => {
        cancel(id)
        sink(rpcError(id, ErrorCode.ConnectionClosed, "The request was cancelled"))
      }, { once: true })
      dispatch({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params: params as Record<string, unknown> }) }, sink)
    })

  return {
    connect: async (transport) => {
      attach(transport)
      await transport.start()
    },
    attach,
    capabilities,
    ask,
    onToolsChanged: (listener) => {
      toolsChanged = listener
    }
  }
}

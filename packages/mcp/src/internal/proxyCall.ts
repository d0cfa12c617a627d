/**
 * One `tools/call` through the proxy: the arguments prepared against the tool's schema (near-misses coerced,
 * invalid ones answered without calling upstream), a repeated idempotency key answered from the journal, the
 * upstream called under a timeout, and its answer bounded.
 */
import { Arguments, JsonSchema } from "@toolgate/json-schema"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  type CallToolRequest,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import * as Answer from "./proxyAnswer.js"
import type { Journal } from "./proxyJournal.js"
import type { Upstream } from "./proxyUpstream.js"

/** What a call needs from the proxy's settings. */
export interface Settings {
  readonly callTimeoutMillis: number
  readonly maxResultBytes: number
  readonly fromStrictProvider: boolean
  readonly journal: Journal
}

/** How long an idempotency key may be. */
export const maxKeyLength = 256

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

const keyOf = (params: CallToolRequest["params"]): string | undefined => {
  const key = params._meta?.[Answer.idempotencyKey]
  if (key === undefined) return undefined
  if (typeof key !== "string" || key.length === 0 || key.length > maxKeyLength) {
    throw new McpError(ErrorCode.InvalidParams, `_meta["${Answer.idempotencyKey}"] must be a string of 1 to ${maxKeyLength} characters`)
  }
  return key
}

/**
 * Where the upstream's progress notifications go, by progress token: the downstream request that gave the token.
 * The proxy reads them itself rather than through the SDK's `onprogress`, which drops a notification the server
 * sent just before its result (the result is handled first).
 */
export type ProgressRoutes = Map<string | number, (params: Record<string, unknown>) => void>

/** The upstream's result, or the proxy's `isError` answer for a call that timed out, died or grew too large. */
const callUpstream = async (
  upstream: Upstream,
  params: CallToolRequest["params"],
  extra: Extra,
  settings: Settings,
  keyed: boolean,
  routes: ProgressRoutes
): Promise<CallToolResult> => {
  const token = params._meta?.progressToken
  if (token !== undefined) {
    routes.set(token, (progress) => {
      extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } } as ServerNotification)
        .catch(() => undefined)
    })
  }
  try {
    const result = await upstream.client.request({ method: "tools/call", params }, CallToolResultSchema, {
      timeout: settings.callTimeoutMillis,
      // a keyed call runs to its end even if this client gives up on it: its answer is journaled for the repeat
      ...(keyed ? {} : { signal: extra.signal })
    })
    return bounded(params.name, result as CallToolResult, settings.maxResultBytes)
  } catch (error) {
    return failed(upstream, params.name, error, settings)
  } finally {
    if (token !== undefined) routes.delete(token)
  }
}

const bounded = (tool: string, result: CallToolResult, maxBytes: number): CallToolResult => {
  const bytes = Buffer.byteLength(JSON.stringify(result))
  if (bytes <= maxBytes) return result
  return Answer.of("execution_error", tool, `The result of \`${tool}\` is ${bytes} bytes, over the proxy's limit of ${maxBytes} bytes; it was not forwarded.`)
}

const failed = (upstream: Upstream, tool: string, error: unknown, settings: Settings): CallToolResult => {
  const ended = upstream.ended()
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return Answer.of("timeout", tool, `The MCP server \`${upstream.name}\` did not answer \`${tool}\` within ${settings.callTimeoutMillis} ms; it may still run.`)
  }
  if (ended !== undefined || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
    return Answer.of("unavailable", tool, `The MCP server \`${upstream.name}\` ended during \`${tool}\`: ${ended ?? "the connection closed"}. Whether the call ran is unknown.`)
  }
  // a JSON-RPC error the upstream answered (an unknown tool, bad params): the client sees it as the upstream sent it
  throw Answer.passThrough(error)
}

/** The answer to one `tools/call`, given the tool the upstream listed under that name. */
export const call = async (
  upstream: Upstream,
  tool: Tool,
  params: CallToolRequest["params"],
  extra: Extra,
  settings: Settings,
  routes: ProgressRoutes
): Promise<CallToolResult> => {
  const key = keyOf(params)
  const prepared = Arguments.prepare(tool.inputSchema as JsonSchema.JsonSchema, params.arguments, {
    fromStrictProvider: settings.fromStrictProvider
  })
  if (prepared._tag === "SchemaError") {
    return Answer.of("rejected", tool.name, `The input schema of \`${tool.name}\` cannot be used to check arguments (${prepared.message}); the call was not forwarded.`)
  }
  if (prepared._tag === "Invalid") return Answer.invalid(tool.name, prepared.issues)
  const forwarded = { ...params, arguments: prepared.value as Record<string, unknown> }
  if (key === undefined) return callUpstream(upstream, forwarded, extra, settings, false, routes)
  const args = JsonSchema.stableKey(prepared.value) ?? JSON.stringify(prepared.value)
  const claim = settings.journal.claim(key, tool.name, args)
  if (claim._tag === "Conflict") {
    return Answer.of("rejected", tool.name, `The idempotency key "${key}" was already used for another call (of \`${claim.tool}\`, or with other arguments).`)
  }
  if (claim._tag === "Repeat") {
    const answer = await claim.answer
    return { ...answer, _meta: { ...answer._meta, [Answer.replayedKey]: true } }
  }
  const answer = callUpstream(upstream, forwarded, extra, settings, true, routes)
  settings.journal.record(key, tool.name, args, answer)
  return answer
}

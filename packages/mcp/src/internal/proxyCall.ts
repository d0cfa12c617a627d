/**
 * One `tools/call` through the proxy: its params decoded once, the arguments prepared against the tool's schema
 * (near-misses coerced, invalid ones answered without calling upstream), a repeated idempotency key answered from
 * the journal, the upstream called under a timeout, and its answer bounded.
 */
import { Arguments, JsonSchema } from "@toolgate/json-schema"
import type { JSONRPCErrorResponse, JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js"
import { type CallToolResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Answer from "./proxyAnswer.js"
import type { Journal } from "./proxyJournal.js"
import { JsonObject } from "./jsonObject.js"

/** What a call needs from the proxy's settings. */
export interface Settings {
  readonly callTimeoutMillis: number
  readonly maxResultBytes: number
  readonly fromStrictProvider: boolean
  readonly journal: Journal
}

/** How long an idempotency key may be. */
export const maxKeyLength = 256

/** A `tools/call` request's params, as the proxy reads them (what it does not read is forwarded as sent). */
export const Params = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optional(JsonObject),
  _meta: Schema.optional(Schema.Struct({
    [Answer.idempotencyKey]: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxKeyLength)).annotations({
      message: () => `_meta["${Answer.idempotencyKey}"] must be a string of 1 to ${maxKeyLength} characters`
    }))
  }, JsonObject))
})

const decodeParams = Schema.decodeUnknownEither(Params, { errors: "all" })

/** A `tools/call` result as the proxy reads it from the upstream (what it does not read is forwarded as sent). */
export const Result = Schema.Struct({
  content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String }, JsonObject))),
  structuredContent: Schema.optional(JsonObject),
  isError: Schema.optional(Schema.Boolean),
  _meta: Schema.optional(JsonObject)
}, JsonObject)

const decodeResult = Schema.decodeUnknownEither(Result)

/** A JSON-RPC error as the proxy answers it. */
export interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** What a call is answered with: a result, or a JSON-RPC error (the upstream's, or the proxy's own). */
export type Outcome = { readonly result: CallToolResult } | { readonly error: RpcError }

/** What the upstream gave back for a request: its response, or nothing in time, or nothing at all (it ended). */
export type Reply = JSONRPCResultResponse | JSONRPCErrorResponse | "timeout" | "closed"

/** A listed tool as a call needs it. */
export interface Listed {
  readonly name: string
  readonly inputSchema: Record<string, unknown>
}

/** What a call needs from its session. */
export interface Hop {
  readonly settings: Settings
  /** The upstream in words, for messages. */
  readonly server: string
  /** Why the upstream ended, once it has. */
  readonly ended: () => string | undefined
  /** The tool listed under `name`, reading the upstream's listing when it is not known yet. */
  readonly tool: (name: string) => Listed | undefined | Promise<Listed | undefined>
  /**
   * Sends `tools/call` upstream with `params`; `reply` is called once. A `detached` call runs to its end even if
   * the client cancels it (its answer is journaled for the repeat).
   */
  readonly forward: (params: unknown, reply: (reply: Reply) => void, detached: boolean) => void
}

const bounded = (tool: string, result: CallToolResult, maxBytes: number): CallToolResult => {
  const bytes = Buffer.byteLength(JSON.stringify(result))
  if (bytes <= maxBytes) return result
  return Answer.of("execution_error", tool, `The result of \`${tool}\` is ${bytes} bytes, over the proxy's limit of ${maxBytes} bytes; it was not forwarded.`)
}

/** The upstream's reply as the call's outcome: its result bounded, its error as sent, a timeout or its end as `isError` results. */
const outcomeOf = (hop: Hop, tool: string, reply: Reply): Outcome => {
  if (reply === "timeout") {
    return { result: Answer.of("timeout", tool, `The MCP server \`${hop.server}\` did not answer \`${tool}\` within ${hop.settings.callTimeoutMillis} ms; it may still run.`) }
  }
  if (reply === "closed") {
    const ended = hop.ended() ?? "the connection closed"
    return { result: Answer.of("unavailable", tool, `The MCP server \`${hop.server}\` ended during \`${tool}\`: ${ended}. Whether the call ran is unknown.`) }
  }
  if ("error" in reply) return { error: reply.error }
  const result = decodeResult(reply.result)
  if (Either.isLeft(result)) {
    // where, not what: the value may be anything the upstream sent
    const where = ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => `\`${issue.path.join(".") || "result"}\``)
    return { result: Answer.of("execution_error", tool, `The MCP server \`${hop.server}\` answered \`${tool}\` with a result that is not a tool result (wrong at ${[...new Set(where)].join(", ")}); it was not forwarded.`) }
  }
  return { result: bounded(tool, result.right as CallToolResult, hop.settings.maxResultBytes) }
}

const upstreamCall = (hop: Hop, tool: string, params: unknown): Promise<Outcome> =>
  new Promise((resolve) => hop.forward(params, (reply) => resolve(outcomeOf(hop, tool, reply)), true))

const replayed = (answer: CallToolResult): CallToolResult => {
  const meta = answer._meta
  return { ...answer, _meta: { ...(typeof meta === "object" && meta !== null ? meta : {}), [Answer.replayedKey]: true } }
}

/** A call with an idempotency key: answered from the journal when it is a repeat, journaled when it is new. */
const journaled = (hop: Hop, tool: string, key: string, value: unknown, params: unknown, answer: (outcome: Outcome) => void) => {
  const args = JsonSchema.stableKey(value) ?? JSON.stringify(value)
  const claim = hop.settings.journal.claim(key, tool, args)
  if (claim._tag === "Conflict") {
    return answer({ result: Answer.of("rejected", tool, `The idempotency key "${key}" was already used for another call (of \`${claim.tool}\`, or with other arguments).`) })
  }
  const journal = claim._tag === "Repeat" ? claim.answer.then(replayed) : upstreamCall(hop, tool, params).then((outcome) => {
    // a JSON-RPC error is not journaled: the repeat is sent again
    if ("error" in outcome) throw outcome.error
    return outcome.result
  })
  if (claim._tag === "New") hop.settings.journal.record(key, tool, args, journal)
  journal.then((result) => answer({ result }), (error: RpcError) => answer({ error }))
}

/** Prepares the call's arguments against `tool`'s schema and forwards it, or answers it without the upstream. */
const prepared = (hop: Hop, tool: Listed, params: typeof Params.Type, raw: object, answer: (outcome: Outcome) => void) => {
  const name = tool.name
  const ready = Arguments.prepare(tool.inputSchema as JsonSchema.JsonSchema, params.arguments, { fromStrictProvider: hop.settings.fromStrictProvider })
  if (ready._tag === "SchemaError") {
    return answer({ result: Answer.of("rejected", name, `The input schema of \`${name}\` cannot be used to check arguments (${ready.message}); the call was not forwarded.`) })
  }
  if (ready._tag === "Invalid") return answer({ result: Answer.invalid(name, ready.issues) })
  const forwarded = { ...raw, arguments: ready.value }
  const key = params._meta?.[Answer.idempotencyKey]
  if (key !== undefined) return journaled(hop, name, key, ready.value, forwarded, answer)
  hop.forward(forwarded, (reply) => answer(outcomeOf(hop, name, reply)), false)
}

/** Answers one `tools/call` whose params are `raw` (as the client sent them); `answer` is called once. */
export const call = (hop: Hop, raw: unknown, answer: (outcome: Outcome) => void): void => {
  const decoded = decodeParams(raw)
  if (Either.isLeft(decoded)) {
    return answer({ error: { code: ErrorCode.InvalidParams, message: `Invalid params of tools/call: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}` } })
  }
  const params = decoded.right
  const found = hop.tool(params.name)
  const go = (tool: Listed | undefined) => {
    if (tool === undefined) return answer({ error: { code: ErrorCode.InvalidParams, message: `Unknown tool: ${params.name}` } })
    prepared(hop, tool, params, raw as object, answer)
  }
  if (found instanceof Promise) found.then(go, (e: unknown) => answer({ error: { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) } }))
  else go(found)
}

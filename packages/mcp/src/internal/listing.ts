/**
 * The MCP results a connection reads, as Schemas (a `tools/list` page, a tool, a `tools/call` result), and
 * the paging loop that follows `nextCursor` within the connection's limits.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as McpErrors from "../McpErrors.js"
import { asSent } from "./client.js"
import { JsonObject } from "./jsonObject.js"

/** One tool as listed: its schemas are the JSON objects the server sent; annotations are hints only. */
export const McpTool = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: JsonObject,
  outputSchema: Schema.optional(JsonObject),
  annotations: Schema.optional(JsonObject),
  _meta: Schema.optional(JsonObject)
})

/** One tool as listed. */
export type McpTool = typeof McpTool.Type

/** A `tools/list` page: its entries still undecoded (one bad entry is a problem, not a failed listing). */
export const Page = Schema.Struct({
  tools: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optional(Schema.String),
  /** How long the page may be cached, in milliseconds; read by `ttlOf`. */
  ttlMs: Schema.optional(Schema.Unknown),
  /** Who may reuse the page: read by `scopeOf`, anything but `"public"` or `"private"` is `"private"`. */
  cacheScope: Schema.optional(Schema.Unknown)
})

/**
 * Who may reuse a listing (MCP's caching hints): `"public"`, the same for every caller, so reusable across
 * authorization contexts; `"private"`, only within the one it was read in.
 */
export const CacheScope = Schema.Literal("public", "private")

/** Who may reuse a listing. */
export type CacheScope = typeof CacheScope.Type

const decodeScope = Schema.decodeUnknownOption(CacheScope)

/**
 * A page's `cacheScope`. The spec makes the field required and gives no default ("no safe default for older
 * servers"), so a page without a valid one is `"private"`: never reused across authorization contexts.
 */
export const scopeOf = (cacheScope: unknown): CacheScope => Option.getOrElse(decodeScope(cacheScope), () => "private" as const)

/**
 * A page's `ttlMs`: a finite number, a negative one read as `0` (stale at once) as the spec says; anything else
 * (absent, not a number) is no expiry, the listing then kept fresh by `list_changed` alone.
 */
export const ttlOf = (ttlMs: unknown): number | undefined =>
  typeof ttlMs === "number" && Number.isFinite(ttlMs) ? Math.max(0, ttlMs) : undefined

/** A listed entry that is not a tool. */
export interface Problem {
  readonly index: number
  readonly name: string | undefined
  readonly reason: string
}

/** A `tools/call` result: content blocks kept as sent. */
export const CallResult = Schema.Struct({
  content: Schema.optionalWith(Schema.Array(Schema.Unknown), { default: () => [] }),
  structuredContent: Schema.optional(JsonObject),
  isError: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  _meta: Schema.optional(JsonObject)
})

/** A `tools/call` result. */
export type CallResult = typeof CallResult.Type

/** Decodes an answer to `operation` with `schema`, or fails with `McpProtocolError`. */
export const decode = <A, I>(server: string, operation: string, schema: Schema.Schema<A, I>, answer: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all" })(answer).pipe(
    Effect.mapError((e) =>
      new McpErrors.McpProtocolError({ server, operation, reason: ParseResult.TreeFormatter.formatErrorSync(e) })
    )
  )

const decodeTool = Schema.decodeUnknownEither(McpTool, { errors: "all" })

const nameOf = (entry: unknown): string | undefined =>
  typeof entry === "object" && entry !== null && typeof (entry as { name?: unknown }).name === "string"
    ? (entry as { name: string }).name
    : undefined

/** The bytes of a page's tools as JSON; a value nested past what JSON.stringify can walk is a protocol error. */
const sizeOf = (server: string, tools: ReadonlyArray<unknown>) =>
  Effect.try({
    try: () => Buffer.byteLength(JSON.stringify(tools)),
    catch: () => new McpErrors.McpProtocolError({ server, operation: "tools/list", reason: "a tool is nested too deeply" })
  })

/** The limits the paging loop holds to. */
export interface PagingLimits {
  readonly maxPages: number
  readonly maxListBytes: number
  readonly maxTools: number
  readonly listTimeout: Duration.Duration
}

/** Every page of a listing, following `nextCursor`, bounded in pages, bytes, tools and time. */
export const all = <E>(
  server: string,
  limits: PagingLimits,
  page: (cursor: string | undefined, timeoutMs: number) => Effect.Effect<typeof Page.Type, E>
) => {
  const operation = "tools/list"
  const timeoutMs = Math.max(1, Math.round(Duration.toMillis(limits.listTimeout)))
  const loop = Effect.gen(function*() {
    const tools: Array<McpTool> = []
    const problems: Array<Problem> = []
    let cursor: string | undefined = undefined
    let bytes = 0
    let index = 0
    // the listing is as fresh as its stalest page: the shortest TTL of any page wins
    let ttlMs: number | undefined = undefined
    // every page must say public for the listing to be: one private (or unreadable) page makes it private
    let cacheScope: CacheScope = "public"
    for (let pages = 0;; pages++) {
      if (pages === limits.maxPages) {
        return yield* new McpErrors.McpLimitExceeded({ server, operation, limit: "pages", max: limits.maxPages })
      }
      const answer: typeof Page.Type = yield* page(cursor, timeoutMs)
      bytes += yield* sizeOf(server, answer.tools)
      if (bytes > limits.maxListBytes) {
        return yield* new McpErrors.McpLimitExceeded({ server, operation, limit: "bytes", max: limits.maxListBytes })
      }
      if (index + answer.tools.length > limits.maxTools) {
        return yield* new McpErrors.McpLimitExceeded({ server, operation, limit: "tools", max: limits.maxTools })
      }
      for (const entry of answer.tools) {
        Either.match(decodeTool(entry), {
          onLeft: (e) => problems.push({ index, name: nameOf(entry), reason: ParseResult.TreeFormatter.formatErrorSync(e) }),
          onRight: (tool) => tools.push(tool)
        })
        index++
      }
      const pageTtl = ttlOf(answer.ttlMs)
      if (pageTtl !== undefined) ttlMs = ttlMs === undefined ? pageTtl : Math.min(ttlMs, pageTtl)
      if (scopeOf(answer.cacheScope) === "private") cacheScope = "private"
      if (answer.nextCursor === undefined) return { tools, problems, ttlMs, cacheScope }
      cursor = answer.nextCursor
    }
  })
  return loop.pipe(
    Effect.timeoutFail({ duration: limits.listTimeout, onTimeout: () => new McpErrors.McpTimeout({ server, operation, millis: timeoutMs }) })
  )
}

/** How a connection turns what the SDK threw during `operation` (given `millis`) into one of `McpErrors`. */
type Thrown = (operation: string, millis: number) => (thrown: unknown) => McpErrors.McpError

/**
 * A request through the SDK client of `server` (its raw path: the SDK checks no tool output), its answer decoded
 * with `schema`, within `timeoutMs`.
 */
export const request = (client: Client, server: string, thrown: Thrown) =>
<A, I>(method: string, params: Record<string, unknown>, schema: Schema.Schema<A, I>, timeoutMs: number) =>
  Effect.tryPromise({
    try: (signal) => client.request({ method, params }, asSent, { timeout: timeoutMs, signal }),
    catch: thrown(method, timeoutMs)
  }).pipe(
    Effect.flatMap((answer) => decode(server, method, schema, answer)),
    Effect.timeoutFail({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => new McpErrors.McpTimeout({ server, operation: method, millis: timeoutMs })
    })
  )

/** Every tool the SDK client's server lists, following `nextCursor` within `limits`. */
export const listAll = (client: Client, server: string, limits: PagingLimits, thrown: Thrown) => {
  const send = request(client, server, thrown)
  return all(server, limits, (cursor, timeoutMs) => send("tools/list", cursor === undefined ? {} : { cursor }, Page, timeoutMs))
}

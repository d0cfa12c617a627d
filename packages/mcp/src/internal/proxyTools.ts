/**
 * The tools a proxy session knows: the upstream's `tools/list` results read (a listing is decoded with a Schema;
 * what the proxy does not read in it, `ttlMs` and `cacheScope` included, is kept as sent), remembered for checking
 * calls, and answered in the dialect asked.
 */
import { Normalize } from "@toolgate/json-schema"
import type { JsonSchema } from "@toolgate/json-schema"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ProxyCall from "./proxyCall.js"
import { JsonObject } from "./jsonObject.js"

/** The schema dialects `tools/list` may be answered in. */
export type Dialect = "openai-strict" | "google" | "cca" | "mcp" | "none"

const inDialect = (dialect: Dialect, schema: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  switch (dialect) {
    case "openai-strict":
      return Normalize.openAiStrict(schema).schema
    case "google":
      return Normalize.google(schema).schema
    case "cca":
      return Normalize.cca(schema).schema
    case "mcp":
      return Normalize.mcp(schema).schema
    case "none":
      return schema
  }
}

/** A listed tool, as the proxy remembers it for checking calls. */
const ListedTool = Schema.Struct({ name: Schema.String, inputSchema: JsonObject })
const decodeTool = Schema.decodeUnknownEither(ListedTool)

/** A `tools/list` result, as the proxy reads it. */
const ListResult = Schema.Struct({ tools: Schema.Array(Schema.Unknown), nextCursor: Schema.optional(Schema.String) })
const decodeList = Schema.decodeUnknownEither(ListResult)

/** Why a `tools/list` result cannot be used. */
export const notAListing = "The upstream's tools/list result is not a listing"

/** The tools of one session. */
export interface Tools {
  readonly get: (name: string) => ProxyCall.Listed | undefined
  readonly has: (name: string) => boolean
  readonly size: () => number
  /** Forgets every tool (the upstream said its list changed). */
  readonly clear: () => void
  /** Reads a page of the listing: its tools remembered, its cursor returned; or why it cannot be read. */
  readonly read: (result: unknown) => Either.Either<string | undefined, string>
  /** A page as the client gets it: read, then its input schemas in the dialect (the rest as sent); or why not. */
  readonly answer: (result: Record<string, unknown>) => Record<string, unknown> | string
}

/** An empty set of tools: at most `maxTools` remembered, answered in `dialect`. */
export const make = (dialect: Dialect, maxTools: number): Tools => {
  const tools = new Map<string, ProxyCall.Listed>()
  const remember = (listed: ReadonlyArray<unknown>) => {
    for (const entry of listed) {
      const tool = decodeTool(entry)
      if (Either.isLeft(tool)) continue
      if (tools.size < maxTools || tools.has(tool.right.name)) tools.set(tool.right.name, tool.right)
    }
  }
  return {
    get: (name) => tools.get(name),
    has: (name) => tools.has(name),
    size: () => tools.size,
    clear: () => tools.clear(),
    read: (result) => {
      const listed = decodeList(result)
      if (Either.isLeft(listed)) return Either.left(notAListing)
      remember(listed.right.tools)
      return Either.right(listed.right.nextCursor)
    },
    answer: (result) => {
      const decoded = decodeList(result)
      if (Either.isLeft(decoded)) return notAListing
      remember(decoded.right.tools)
      if (dialect === "none") return result
      return {
        ...result,
        tools: decoded.right.tools.map((entry) => {
          const tool = decodeTool(entry)
          if (Either.isLeft(tool)) return entry
          return { ...(entry as object), inputSchema: inDialect(dialect, tool.right.inputSchema as JsonSchema.JsonSchema) }
        })
      }
    }
  }
}

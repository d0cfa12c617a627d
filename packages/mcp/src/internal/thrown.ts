/**
 * What the SDK throws, as a typed connection error: its timeout and closed-connection errors, a JSON-RPC
 * error the server answered (also one in the body of a refused HTTP POST, which the SDK quotes as text), a
 * message past the byte limit, or a lost transport.
 */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as McpErrors from "../McpErrors.js"
import { tooLarge } from "./transport.js"

const messageOf = (u: unknown): string => (u instanceof Error ? u.message : String(u))

/** How the SDK's HTTP transport quotes the body of a POST the server refused. */
const refusedPost = "Streamable HTTP error: Error POSTing to endpoint: "

/** A JSON-RPC error response, as a refused POST's body may hold one (a server refusing the protocol version does). */
const RefusalBody = Schema.parseJson(Schema.Struct({
  error: Schema.Struct({ code: Schema.Int, message: Schema.String, data: Schema.optional(Schema.Unknown) })
}))
const decodeRefusal = Schema.decodeUnknownEither(RefusalBody)

/** At most this many characters of a refusal's `data` go into the error. */
const maxDataChars = 500

/** The JSON-RPC error in the body of a POST the server refused over HTTP, when it holds one. */
const refusalOf = (thrown: unknown): { readonly code: number; readonly reason: string } | undefined => {
  if (!(thrown instanceof StreamableHTTPError) || !thrown.message.startsWith(refusedPost)) return undefined
  const body = decodeRefusal(thrown.message.slice(refusedPost.length))
  if (Either.isLeft(body)) return undefined
  const { code, data, message } = body.right.error
  const detail = data === undefined ? "" : ` (${JSON.stringify(data).slice(0, maxDataChars)})`
  return { code, reason: `${message}${detail}` }
}

/** Whether a transport error says a message went past the byte limit (stdio's read buffer or our HTTP body cap). */
export const pastLimit = (message: string | undefined): boolean =>
  message !== undefined && (message.includes(tooLarge) || message.includes("exceeded maximum size"))

/** What a mapper makes of what the SDK threw during `operation` (given `millis`). */
export type Mapper = (operation: string, millis: number) => (thrown: unknown) => McpErrors.McpError

/** A mapper for `server` (whose messages are bounded by `maxMessageBytes`), reading the transport's last error (and whether a message went past the limit) for the cause of a closed connection. */
export const mapper = (server: string, maxMessageBytes: number, lastError: () => { readonly message: string | undefined; readonly pastLimit: boolean }): Mapper =>
(operation: string, millis: number) =>
(thrown: unknown): McpErrors.McpError => {
  const { message: last, pastLimit: overLimit } = lastError()
  if (overLimit || pastLimit(messageOf(thrown))) {
    return new McpErrors.McpLimitExceeded({ server, operation, limit: "bytes", max: maxMessageBytes })
  }
  if (thrown instanceof McpError) {
    if (thrown.code === ErrorCode.RequestTimeout) return new McpErrors.McpTimeout({ server, operation, millis })
    if (thrown.code === ErrorCode.ConnectionClosed) {
      return new McpErrors.McpUnavailable({ server, operation, reason: last === undefined ? "the connection closed" : `the connection closed (${last})` })
    }
    return new McpErrors.McpServerError({ server, operation, code: thrown.code, reason: thrown.message })
  }
  const refusal = refusalOf(thrown)
  if (refusal !== undefined) return new McpErrors.McpServerError({ server, operation, ...refusal })
  if (thrown instanceof Error && (thrown.name === "ZodError" || thrown.name === "$ZodError")) {
    return new McpErrors.McpProtocolError({ server, operation, reason: thrown.message })
  }
  return new McpErrors.McpUnavailable({ server, operation, reason: messageOf(thrown) })
}

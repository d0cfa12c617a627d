/**
 * What the SDK throws, as a typed connection error: its timeout and closed-connection errors, a JSON-RPC
 * error the server answered (also one in the body of a refused HTTP POST, which the SDK carries as text), a
 * message past the byte limit, or a lost transport.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as McpErrors from "../McpErrors.js"
import { tooLarge } from "./transport.js"

const messageOf = (u: unknown): string => (u instanceof Error ? u.message : String(u))

/** A JSON-RPC error response, as a refused POST's body may hold one (a server refusing the protocol version does). */
const RefusalBody = Schema.parseJson(Schema.Struct({
  error: Schema.Struct({ code: Schema.Int, message: Schema.String, data: Schema.optional(Schema.Unknown) })
}))
const decodeRefusal = Schema.decodeUnknownEither(RefusalBody)

/** At most this many characters of an error's `data` go into the error. */
const maxDataChars = 500

const reasonOf = (message: string, data: unknown) =>
  data === undefined ? message : `${message} (${JSON.stringify(data).slice(0, maxDataChars)})`

/** The JSON-RPC error in the body of a POST the server refused over HTTP, when it holds one. */
const refusalOf = (thrown: unknown): { readonly code: number; readonly reason: string } | undefined => {
  if (!(thrown instanceof SdkHttpError)) return undefined
  const body = decodeRefusal(thrown.data.text)
  if (Either.isLeft(body)) return undefined
  const { code, data, message } = body.right.error
  return { code, reason: reasonOf(message, data) }
}

/** What the SDK's errors of these codes mean: the server broke the protocol. */
const protocolBroken: ReadonlySet<string> = new Set([
  SdkErrorCode.InvalidResult,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
  SdkErrorCode.ClientHttpUnexpectedContent
])

/**
 * Whether a failed probe (`server/discover`) means the server could not be reached: the network failed, it
 * answered with an HTTP error status, or the connection closed. Otherwise it was reached and answered what no
 * revision of MCP allows (an unusable reply; no modern answer when only the modern revision was asked for).
 */
const probeUnreached = (thrown: SdkError): boolean => {
  const cause = thrown.cause
  return thrown instanceof SdkHttpError || (cause instanceof Error && cause.name === "TypeError") ||
    /\bclosed\b/i.test(thrown.message)
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
  if (thrown instanceof ProtocolError) {
    return new McpErrors.McpServerError({ server, operation, code: thrown.code, reason: reasonOf(thrown.message, thrown.data) })
  }
  const refusal = refusalOf(thrown)
  if (refusal !== undefined) return new McpErrors.McpServerError({ server, operation, ...refusal })
  if (thrown instanceof SdkError) {
    if (thrown.code === SdkErrorCode.RequestTimeout) return new McpErrors.McpTimeout({ server, operation, millis })
    if (thrown.code === SdkErrorCode.ConnectionClosed) {
      return new McpErrors.McpUnavailable({ server, operation, reason: last === undefined ? "the connection closed" : `the connection closed (${last})` })
    }
    if (protocolBroken.has(thrown.code) || (thrown.code === SdkErrorCode.EraNegotiationFailed && !probeUnreached(thrown))) {
      return new McpErrors.McpProtocolError({ server, operation, reason: thrown.message })
    }
  }
  if (thrown instanceof Error && (thrown.name === "ZodError" || thrown.name === "$ZodError")) {
    return new McpErrors.McpProtocolError({ server, operation, reason: thrown.message })
  }
  return new McpErrors.McpUnavailable({ server, operation, reason: messageOf(thrown) })
}

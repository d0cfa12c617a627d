/**
 * What the SDK throws, as a typed connection error: its timeout and closed-connection errors, a JSON-RPC
 * error the server answered, a message past the byte limit, or a lost transport.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as McpErrors from "../McpErrors.js"
import { tooLarge } from "./transport.js"

const messageOf = (u: unknown): string => (u instanceof Error ? u.message : String(u))

/** Whether a transport error says a message went past the byte limit (stdio's read buffer or our HTTP body cap). */
export const pastLimit = (message: string | undefined): boolean =>
  message !== undefined && (message.includes(tooLarge) || message.includes("exceeded maximum size"))

/** A mapper for `server` (whose messages are bounded by `maxMessageBytes`), reading the transport's last error (and whether a message went past the limit) for the cause of a closed connection. */
export const mapper = (server: string, maxMessageBytes: number, lastError: () => { readonly message: string | undefined; readonly pastLimit: boolean }) =>
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
  if (thrown instanceof Error && (thrown.name === "ZodError" || thrown.name === "$ZodError")) {
    return new McpErrors.McpProtocolError({ server, operation, reason: thrown.message })
  }
  return new McpErrors.McpUnavailable({ server, operation, reason: messageOf(thrown) })
}

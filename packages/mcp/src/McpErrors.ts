/**
 * The typed errors of talking to an MCP server: it could not be reached or went away, it did not answer in
 * time, it answered with a JSON-RPC error, it answered with something that is not MCP, or what it sent went
 * past a limit. Each is a `Schema.TaggedError` naming the server (its command or URL) and the operation.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The server could not be started or reached, or the connection closed under a request. */
export class McpUnavailable extends Schema.TaggedError<McpUnavailable>()("McpUnavailable", {
  server: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  /** The server, the operation and why. */
  override get message(): string {
    return `MCP server ${this.server} is unavailable (${this.operation}): ${this.reason}`
  }
}

/** The server did not answer `operation` within `millis`. */
export class McpTimeout extends Schema.TaggedError<McpTimeout>()("McpTimeout", {
  server: Schema.String,
  operation: Schema.String,
  millis: Schema.Number
}) {
  /** The server, the operation and the time it had. */
  override get message(): string {
    return `MCP server ${this.server} did not answer ${this.operation} within ${this.millis} ms`
  }
}

/** The server answered `operation` with a JSON-RPC error. */
export class McpServerError extends Schema.TaggedError<McpServerError>()("McpServerError", {
  server: Schema.String,
  operation: Schema.String,
  code: Schema.Number,
  reason: Schema.String
}) {
  /** The server, the operation, the JSON-RPC code and its message. */
  override get message(): string {
    return `MCP server ${this.server} answered ${this.operation} with error ${this.code}: ${this.reason}`
  }
}

/** The server answered `operation` with something that is not the MCP result it should be. */
export class McpProtocolError extends Schema.TaggedError<McpProtocolError>()("McpProtocolError", {
  server: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  /** The server, the operation and what is wrong with the answer. */
  override get message(): string {
    return `MCP server ${this.server} broke the protocol in ${this.operation}: ${this.reason}`
  }
}

/** What the server sent for `operation` went past a limit: `pages`, `bytes` or `tools`, `max` of them. */
export class McpLimitExceeded extends Schema.TaggedError<McpLimitExceeded>()("McpLimitExceeded", {
  server: Schema.String,
  operation: Schema.String,
  limit: Schema.Literal("pages", "bytes", "tools"),
  max: Schema.Number
}) {
  /** The server, the operation and the limit it went past. */
  override get message(): string {
    return `MCP server ${this.server} went past the limit of ${this.max} ${this.limit} in ${this.operation}`
  }
}

/** Every error of a connection to an MCP server. */
export type McpError = McpUnavailable | McpTimeout | McpServerError | McpProtocolError | McpLimitExceeded

/** Every error of a connection to an MCP server, as one Schema union (for JSON output). */
export const McpError = Schema.Union(McpUnavailable, McpTimeout, McpServerError, McpProtocolError, McpLimitExceeded)

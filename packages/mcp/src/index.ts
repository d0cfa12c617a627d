/**
 * @toolgate/mcp: MCP servers for toolgate.
 *
 * @since 0.1.0
 */

/** The typed errors of talking to an MCP server (unavailable, timeout, server error, protocol, limit). */
export * as McpErrors from "./McpErrors.js"

/** A connection to one MCP server (stdio or Streamable HTTP) as a scoped resource: bounded listing and calls. */
export * as McpConnection from "./McpConnection.js"

/** The lockfile of MCP tool schemas (per server and auth scope) and its gate: a live server proved against it. */
export * as McpLock from "./McpLock.js"

/** An MCP server's tools as toolgate tools: gated against a lock, `tools/call` as the executor, re-proved on list_changed. */
export * as McpTools from "./McpTools.js"

/** The validating proxy: an MCP server in front of another, checking every call's arguments first. */
export * as McpProxy from "./McpProxy.js"

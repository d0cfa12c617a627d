/**
 * @toolgate/mcp: MCP servers for toolgate.
 *
 * @since 0.1.0
 */
/** The validating proxy: an MCP server in front of another, checking every call's arguments first. */
export * as McpProxy from "./McpProxy.js"

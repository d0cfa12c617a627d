/**
 * @toolgate/mcp: MCP servers for toolgate.
 *
 * @since 0.1.0
 */
export {}

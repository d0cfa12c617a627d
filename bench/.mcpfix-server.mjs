
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
const extra = Number(process.argv.at(-1) ?? 0) || 0
const tools = [{ name: "add", inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"], additionalProperties: false } }]
for (let i = 0; i < extra; i++) tools.push({ name: "tool_" + i, description: "Tool " + i, inputSchema: {
  type: "object",
  properties: { id: { type: "string", pattern: "^[a-z]+-[0-9]+$" }, limit: { type: "integer", minimum: 1, maximum: 100 + i },
    mode: { enum: ["fast", "safe", "m" + i] }, tags: { type: "array", items: { type: "string", maxLength: 32 } },
    filter: { type: "object", properties: { field: { type: "string" }, op: { enum: ["eq", "lt", "gt"] }, value: { type: ["string", "number"] } }, required: ["field", "op"] } },
  required: ["id"], additionalProperties: false } })
const server = new Server({ name: "bench-server", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (r) => ({ content: [{ type: "text", text: String(r.params.arguments.a + r.params.arguments.b) }] }))
await server.connect(new StdioServerTransport())
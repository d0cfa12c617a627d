/**
 * The local tools of `toolgate check`: a JSON map of tool name → parameter schema, or an MCP `tools/list`
 * result (`{ "tools": [{ "name", "inputSchema" }] }`, bare or inside a JSON-RPC response's `result`).
 * Names are read as own keys, so a tool called `__proto__` stays a tool.
 *
 * @internal
 */
import { JsonSchema } from "@toolgate/json-schema"
import * as Either from "effect/Either"

const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const own = (o: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined

/** The `tools` array of an MCP `tools/list` result (bare or JSON-RPC), if `u` is one. */
const mcpTools = (u: Readonly<Record<string, unknown>>): ReadonlyArray<unknown> | undefined => {
  const result = own(u, "result")
  const holder = isPlainObject(result) && own(u, "jsonrpc") !== undefined ? result : u
  const tools = own(holder, "tools")
  return Array.isArray(tools) ? tools : undefined
}

/** The tools by name with their upgraded local schemas, or why the file cannot be used. */
export const read = (u: unknown): Either.Either<ReadonlyMap<string, JsonSchema.JsonSchema>, string> => {
  if (!isPlainObject(u)) return Either.left("the tools file must be a JSON object: tool name → parameter schema, or an MCP tools/list result")
  const tools = new Map<string, JsonSchema.JsonSchema>()
  const list = mcpTools(u)
  if (list !== undefined) {
    for (const [index, entry] of list.entries()) {
      const name = isPlainObject(entry) ? own(entry, "name") : undefined
      const schema = isPlainObject(entry) ? own(entry, "inputSchema") : undefined
      if (typeof name !== "string" || name === "") return Either.left(`tools[${index}] has no "name" string`)
      if (!JsonSchema.isSchema(schema)) return Either.left(`tools[${index}] (${name}) has no "inputSchema" JSON Schema`)
      if (tools.has(name)) return Either.left(`the tool ${JSON.stringify(name)} is listed twice`)
      tools.set(name, JsonSchema.upgrade(schema).schema)
    }
    return Either.right(tools)
  }
  for (const [name, schema] of Object.entries(u)) {
    if (!JsonSchema.isSchema(schema)) return Either.left(`the schema of ${JSON.stringify(name)} is not a JSON Schema (an object or a boolean)`)
    tools.set(name, JsonSchema.upgrade(schema).schema)
  }
  return Either.right(tools)
}

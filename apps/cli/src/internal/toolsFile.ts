/**
 * The local tools of `toolgate check`: a JSON map of tool name → parameter schema, or an MCP `tools/list`
 * result (`{ "tools": [{ "name", "inputSchema" }] }`, bare or inside a JSON-RPC response's `result`).
 * Names are read as own keys, so a tool called `__proto__` stays a tool.
 *
 * @internal
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
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

/** One change `JsonSchema.upgrade` made to a local tool's schema. */
export interface Upgrade extends JsonSchema.Change {
  readonly tool: string
}

/** The local tools by name (upgraded schemas) and what upgrading them changed. */
export interface Tools {
  readonly schemas: ReadonlyMap<string, JsonSchema.JsonSchema>
  readonly upgrades: ReadonlyArray<Upgrade>
}

/**
 * The notes of `JsonSchema.upgrade` that drop a constraint the author wrote instead of translating it (an
 * unknown type name, a keyword of the wrong shape, a subschema that is not one). A local schema upgraded
 * so is not the schema its executor was written against: a proof over it would prove the wrong thing.
 */
const lossy: ReadonlyArray<RegExp> = [/^unknown type name /, /has the wrong shape/, /is not a schema; replaced by/, /could not be read/, /^a cycle back/]

/** Whether an upgrade note drops a constraint (see `lossy`). */
export const isLossy = (change: JsonSchema.Change): boolean => lossy.some((re) => re.test(change.change))

/** Adds `tool`'s upgraded schema, or says why its schema cannot be used as written. */
const add = (tools: Map<string, JsonSchema.JsonSchema>, upgrades: Array<Upgrade>, tool: string, schema: JsonSchema.JsonSchema) => {
  const upgraded = JsonSchema.upgrade(schema)
  const dropped = upgraded.changes.filter(isLossy)
  if (dropped.length > 0) {
    return `the local schema of ${JSON.stringify(tool)} cannot be checked as written: ${dropped.map((c) => `${c.path || "/"}: ${c.change}`).join("; ")}`
  }
  tools.set(tool, upgraded.schema)
  for (const change of upgraded.changes) upgrades.push({ tool, ...change })
  return undefined
}

/** The tools by name with their upgraded local schemas, or why the file cannot be used. */
export const read = (u: unknown): Either.Either<Tools, string> => {
  if (!isPlainObject(u)) return Either.left("the tools file must be a JSON object: tool name → parameter schema, or an MCP tools/list result")
  const schemas = new Map<string, JsonSchema.JsonSchema>()
  const upgrades: Array<Upgrade> = []
  const list = mcpTools(u)
  const entries: Array<readonly [string, JsonSchema.JsonSchema]> = []
  const seen = new Set<string>()
  if (list !== undefined) {
    for (const [index, entry] of list.entries()) {
      const name = isPlainObject(entry) ? own(entry, "name") : undefined
      const schema = isPlainObject(entry) ? own(entry, "inputSchema") : undefined
      if (typeof name !== "string" || name === "") return Either.left(`tools[${index}] has no "name" string`)
      if (!JsonSchema.isSchema(schema)) return Either.left(`tools[${index}] (${name}) has no "inputSchema" JSON Schema`)
      if (seen.has(name)) return Either.left(`the tool ${JSON.stringify(name)} is listed twice`)
      seen.add(name)
      entries.push([name, schema])
    }
  } else {
    for (const [name, schema] of Object.entries(u)) {
      if (!JsonSchema.isSchema(schema)) return Either.left(`the schema of ${JSON.stringify(name)} is not a JSON Schema (an object or a boolean)`)
      entries.push([name, schema])
    }
  }
  for (const [name, schema] of entries) {
    const why = add(schemas, upgrades, name, schema)
    if (why !== undefined) return Either.left(why)
  }
  return Either.right({ schemas, upgrades })
}

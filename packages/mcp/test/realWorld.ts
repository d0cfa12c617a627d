/**
 * Real MCP servers from npm (devDependencies of this package), spawned over stdio with this node and the
 * package's bin file (never npx), with dummy credentials: none of them calls out to list its tools. Each is
 * paired with its `tools/list` answer as the repository's corpus captured it (`corpus/mcp/`).
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { McpConnection } from "../src/index.js"

const require = createRequire(import.meta.url)

/** The repository's root. */
export const root = path.resolve(import.meta.dirname, "../../..")

/** A real server: its package, the corpus file that holds its captured listing, how it is spawned. */
export interface RealServer {
  readonly pkg: string
  readonly corpusFile: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /** The tools that drift when the live server is proved against the corpus's capture as a lock. */
  readonly corpusDrift: ReadonlyArray<string>
}

/** The real servers: draft-07 schemas with output schemas (memory), one draft-07 tool (sequential thinking),
 * big schemas with overlapping `oneOf`s (Notion), 2020-12 schemas with output schemas (Lara). */
export const servers: ReadonlyArray<RealServer> = [
  // the same version lists other schemas here than in the capture: they come from the zod the install
  // resolves (zod 4's JSON Schema here). Memory's lose `additionalProperties: false` (wider: proven);
  // sequential thinking's integers gain `maximum: 2^53 - 1` (narrower: drift, witness 2^53)
  { pkg: "@modelcontextprotocol/server-memory", corpusFile: "modelcontextprotocol-servers.tools.json", args: [], env: {}, corpusDrift: [] },
  {
    pkg: "@modelcontextprotocol/server-sequential-thinking",
    corpusFile: "modelcontextprotocol-servers.tools.json",
    args: [],
    env: {},
    corpusDrift: ["sequentialthinking"]
  },
  { pkg: "@notionhq/notion-mcp-server", corpusFile: "npm-third-party.tools.json", args: [], env: { NOTION_TOKEN: "ntn_dummy" }, corpusDrift: [] },
  {
    pkg: "@translated/lara-mcp",
    corpusFile: "npm-third-party.tools.json",
    args: [],
    env: { LARA_ACCESS_KEY_ID: "dummy", LARA_ACCESS_KEY_SECRET: "dummy" },
    corpusDrift: []
  }
]

/** The installed package's version and its bin file. */
export const installed = (pkg: string): { readonly version: string; readonly bin: string } => {
  const manifest = require.resolve(`${pkg}/package.json`)
  const json = require(manifest) as { version: string; bin: string | Record<string, string> }
  const bin = typeof json.bin === "string" ? json.bin : Object.values(json.bin)[0]!
  return { version: json.version, bin: path.join(path.dirname(manifest), bin) }
}

/** The server over stdio: this node, its bin file, the dummy credentials and `PATH` only. */
export const stdio = (server: RealServer) => ({
  _tag: "Stdio" as const,
  command: process.execPath,
  args: [installed(server.pkg).bin, ...server.args],
  env: { PATH: process.env.PATH ?? "", ...server.env }
})

/** What the corpus captured for one npm package. */
export interface Captured {
  readonly version: string
  readonly serverInfo: { readonly name: string; readonly version: string }
  readonly tools: ReadonlyArray<McpConnection.McpTool>
}

/** The corpus's capture of `pkg`'s `tools/list`. */
export const captured = (server: RealServer): Captured => {
  const file = JSON.parse(fs.readFileSync(path.join(root, "corpus", "mcp", server.corpusFile), "utf8")) as {
    servers: Record<string, { npm_package?: string; npm_version: string; serverInfo: Captured["serverInfo"]; tools: Captured["tools"] }>
  }
  const entry = Object.values(file.servers).find((s) => s.npm_package === server.pkg)
  if (entry === undefined) throw new Error(`the corpus has no capture of ${server.pkg}`)
  return { version: entry.npm_version, serverInfo: entry.serverInfo, tools: entry.tools }
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Every subschema of `schema` (itself first) where keywords hold subschemas, depth first (not `$defs`: one may be unreferenced). */
export const subschemas = (schema: unknown): Array<Json> => {
  const out: Array<Json> = []
  const visit = (node: unknown) => {
    if (!isObject(node)) return
    out.push(node)
    for (const key of ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"]) visit(node[key])
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) if (Array.isArray(node[key])) for (const s of node[key] as Array<unknown>) visit(s)
    if (Array.isArray(node["items"])) for (const s of node["items"] as Array<unknown>) visit(s)
    for (const key of ["properties", "patternProperties"]) {
      if (isObject(node[key])) for (const s of Object.values(node[key] as Json)) visit(s)
    }
  }
  visit(schema)
  return out
}

/** A deep copy of `schema` with `edit` applied to the `index`-th subschema (in `subschemas` order). */
export const editAt = (schema: Json, index: number, edit: (node: Json) => void): Json => {
  const copy = structuredClone(schema)
  edit(subschemas(copy)[index]!)
  return copy
}

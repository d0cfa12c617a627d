/**
 * Servers for the tests: the SDK fixture (tools and hostility set per test), and the real
 * `server-everything` and `server-filesystem` from node_modules, spawned with this node, no npx.
 */
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))

/** tsx's loader, by URL, so the fixture starts from any working directory. */
export const tsx = pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json")), "dist", "loader.mjs")).href

/** The fixture server's file. */
export const fixtureFile = path.join(here, "fixtures", "server.ts")

/** One tool of the fixture. */
export interface FixtureTool {
  readonly name: string
  readonly description?: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown>
  readonly annotations?: Record<string, unknown>
  readonly answer?: "echo" | "error" | "text" | "hang" | "die" | "bad-output"
}

/**
 * The fixture server with `tools`, hostile in `mode` when given, its tools `next` after the first listing when given,
 * `ttlMs` (JSON text, any value) on its `tools/list` results when given, `cacheScope` (JSON text) likewise.
 */
export const fixture = (tools: ReadonlyArray<FixtureTool>, mode?: string, next?: ReadonlyArray<FixtureTool>, ttlMs?: string, cacheScope?: string) => ({
  _tag: "Stdio" as const,
  command: process.execPath,
  args: ["--import", tsx, fixtureFile],
  env: {
    PATH: process.env.PATH ?? "",
    TOOLGATE_FIXTURE_TOOLS: JSON.stringify(tools),
    ...(mode === undefined ? {} : { TOOLGATE_FIXTURE_MODE: mode }),
    ...(next === undefined ? {} : { TOOLGATE_FIXTURE_TOOLS_NEXT: JSON.stringify(next) }),
    ...(ttlMs === undefined ? {} : { TOOLGATE_FIXTURE_TTL_MS: ttlMs }),
    ...(cacheScope === undefined ? {} : { TOOLGATE_FIXTURE_CACHE_SCOPE: cacheScope })
  },
  cwd: here
})

const binOf = (pkg: string): string => {
  const manifest = require.resolve(`${pkg}/package.json`)
  const bin = (require(manifest) as { bin: Record<string, string> }).bin
  return path.join(path.dirname(manifest), Object.values(bin)[0]!)
}

/** `@modelcontextprotocol/server-everything` over stdio. */
export const everything = () => ({
  _tag: "Stdio" as const,
  command: process.execPath,
  args: [binOf("@modelcontextprotocol/server-everything"), "stdio"]
})

/** `@modelcontextprotocol/server-filesystem` over stdio, allowed `dir`. */
export const filesystem = (dir: string) => ({
  _tag: "Stdio" as const,
  command: process.execPath,
  args: [binOf("@modelcontextprotocol/server-filesystem"), dir]
})

/** A tool taking `{ city: string, days?: integer 1..7 }`. */
export const weather: FixtureTool = {
  name: "get_weather",
  description: "The forecast for a city.",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
    required: ["city"]
  }
}

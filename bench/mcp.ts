/**
 * The MCP proxy's overhead and the MCP lock check's wall time.
 *
 * Overhead: one `tools/call` (`add`, two integers, validated by the proxy) from the SDK's client over stdio,
 * through `McpProxy.serveStdio` (a process running `@toolgate/mcp` as built) to a small SDK server, against the
 * same client calling the same server directly, and for context the floor: the same call through a process that
 * only relays the bytes both ways (no parsing at all), so the gap between the floor and direct is the extra
 * process and its pipes, and the gap between the proxy and the floor is toolgate's work. The three run side by
 * side, timed in interleaved rounds, fastest round kept. Sequential calls (one in flight: the latency a caller
 * waits, two more process hops through the proxy) carry the target ≤ 1.2×; 16 calls in flight (throughput) is
 * printed beside it.
 *
 * Check: wall time from spawning a 100-tool server to the lock's verdict, twice: in this process
 * (`McpConnection.make`, `listTools`, `McpLock.prove`, `McpLock.gate`) and as the whole `toolgate check --mcp`
 * process (the bundled bin, built by `npm run build`; skipped when it is missing). Target ≤ 1 s for the command
 * (for the library path when the bin is not built).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { McpConnection, McpLock } from "@toolgate/mcp"
import { Effect, Either } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, type Result } from "./harness.js"

const root = resolve(import.meta.dirname, "..")
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
const calls = 400

/** A small SDK server over stdio: `add`, and with a count, that many more tools of varied schemas. */
const serverSource = `
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
`

const upstream = (extra = 0) => ({ command: process.execPath, args: ["--input-type=module", "-e", serverSource, String(extra)], cwd: root })

const proxySource = `
import { Effect } from "effect"
import { McpProxy } from "@toolgate/mcp"
await Effect.runPromise(McpProxy.serveStdio(JSON.parse(process.argv[1])))
`

/** The floor: a process that spawns the server and relays the bytes both ways, parsing nothing. */
const relaySource = `
import { spawn } from "node:child_process"
const [command, ...args] = JSON.parse(process.argv[1])
const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] })
process.stdin.pipe(child.stdin)
child.stdout.pipe(process.stdout)
process.stdin.on("end", () => child.kill())
child.on("exit", () => process.exit(0))
`

const connect = async (command: string, args: Array<string>): Promise<Client> => {
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command, args, cwd: root, stderr: "ignore" }))
  return client
}

/** Microseconds per call over `calls` calls, `inFlight` at a time. */
const timeCalls = async (client: Client, inFlight: number): Promise<number> => {
  let next = 0
  const worker = async () => {
    while (next < calls) {
      next++
      const result = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })
      if ((result.content as Array<{ text: string }>)[0]?.text !== "3") throw new Error("wrong answer")
    }
  }
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: inFlight }, worker))
  return Number(process.hrtime.bigint() - started) / 1e3 / calls
}

/** Spawn of a 100-tool server to the lock's verdict, in ms. */
const checkWall = (lock: McpLock.LockFile) =>
  Effect.gen(function*() {
    const started = process.hrtime.bigint()
    const verdict = yield* Effect.scoped(Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: { _tag: "Stdio", ...upstream(100) } })
      const listing = yield* connection.listTools
      const entry = McpLock.get(lock, "bench-server", McpLock.defaultScope)
      if (entry._tag === "None") throw new Error("no lock entry")
      return McpLock.gate(McpLock.prove(entry.value, listing.tools))
    }))
    if (Either.isLeft(verdict)) throw new Error(`unexpected drift: ${verdict.left.message}`)
    return Number(process.hrtime.bigint() - started) / 1e6
  })

const bin = resolve(root, "apps/cli/bin/toolgate.js")
const bundle = resolve(root, "apps/cli/dist/toolgate.mjs")

/** `toolgate check --mcp` on the 100-tool server as a whole process, in ms (median of `runs`); undefined without the bundle. */
const cliWalls = (lock: McpLock.LockFile, runs: number): Array<number> | undefined => {
  if (!existsSync(bundle)) return undefined
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-mcp-"))
  // the server's source beside the repository's node_modules, so its imports resolve
  const serverFile = resolve(import.meta.dirname, `.mcp-bench-server-${process.pid}.mjs`)
  try {
    writeFileSync(serverFile, serverSource)
    const lockFile = join(dir, "toolgate.lock.json")
    writeFileSync(lockFile, McpLock.stringify(lock))
    const walls: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint()
      const result = spawnSync(process.execPath, [bin, "check", "--mcp", `"${process.execPath}" "${serverFile}" 100`, "--lock", lockFile], { cwd: root, encoding: "utf8" })
      if (result.status !== 0) throw new Error(`toolgate check --mcp exited ${result.status}: ${result.stdout}${result.stderr}`)
      walls.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
    return walls
  } finally {
    rmSync(serverFile, { force: true })
    rmSync(dir, { recursive: true, force: true })
  }
}

const lockOf100 = Effect.scoped(Effect.gen(function*() {
  const connection = yield* McpConnection.make({ server: { _tag: "Stdio", ...upstream(100) } })
  const listing = yield* connection.listTools
  return McpLock.put(undefined, "bench-server", McpLock.defaultScope, McpLock.fromListing(connection.serverInfo, listing.tools))
}))

export const run = async (): Promise<{ readonly results: ReadonlyArray<Result>; readonly met: boolean }> => {
  console.log(`\nmcp: tools/call through McpProxy over stdio vs the server directly (${calls} calls a round, ${rounds} rounds)`)
  const server = upstream()
  const direct = await connect(server.command, server.args)
  const options = JSON.stringify({ server: { _tag: "Stdio", ...server } })
  const proxied = await connect(process.execPath, ["--input-type=module", "-e", proxySource, options])
  const relayed = await connect(process.execPath, ["--input-type=module", "-e", relaySource, JSON.stringify([server.command, ...server.args])])
  const best = { direct1: Infinity, relayed1: Infinity, proxied1: Infinity, direct16: Infinity, relayed16: Infinity, proxied16: Infinity }
  try {
    for (const client of [direct, relayed, proxied]) await timeCalls(client, 4)
    for (let round = 0; round < rounds; round++) {
      best.direct1 = Math.min(best.direct1, await timeCalls(direct, 1))
      best.relayed1 = Math.min(best.relayed1, await timeCalls(relayed, 1))
      best.proxied1 = Math.min(best.proxied1, await timeCalls(proxied, 1))
      best.direct16 = Math.min(best.direct16, await timeCalls(direct, 16))
      best.relayed16 = Math.min(best.relayed16, await timeCalls(relayed, 16))
      best.proxied16 = Math.min(best.proxied16, await timeCalls(proxied, 16))
    }
  } finally {
    await Promise.allSettled([direct.close(), relayed.close(), proxied.close()])
  }
  const sequential = best.proxied1 / best.direct1
  const pipelined = best.proxied16 / best.direct16
  const floor1 = best.relayed1 / best.direct1
  const floor16 = best.relayed16 / best.direct16
  console.log(`  direct, 1 in flight          ${best.direct1.toFixed(0).padStart(7)} µs/call`)
  console.log(`  byte relay, 1 in flight      ${best.relayed1.toFixed(0).padStart(7)} µs/call  ${floor1.toFixed(2)}× direct (+${(best.relayed1 - best.direct1).toFixed(0)} µs): the floor`)
  console.log(`  McpProxy, 1 in flight        ${best.proxied1.toFixed(0).padStart(7)} µs/call  ${sequential.toFixed(2)}× direct (+${(best.proxied1 - best.direct1).toFixed(0)} µs)`)
  console.log(`  direct, 16 in flight         ${best.direct16.toFixed(0).padStart(7)} µs/call`)
  console.log(`  byte relay, 16 in flight     ${best.relayed16.toFixed(0).padStart(7)} µs/call  ${floor16.toFixed(2)}× direct`)
  console.log(`  McpProxy, 16 in flight       ${best.proxied16.toFixed(0).padStart(7)} µs/call  ${pipelined.toFixed(2)}× direct`)
  const lock = await Effect.runPromise(lockOf100)
  const walls: Array<number> = []
  for (let i = 0; i < Math.max(3, rounds); i++) walls.push(await Effect.runPromise(checkWall(lock)))
  const wall = median(walls)
  console.log(`  lock check, 100 tools        ${wall.toFixed(0).padStart(7)} ms median, spawn to verdict in this process (min ${Math.min(...walls).toFixed(0)})`)
  const cli = cliWalls(lock, Math.max(3, rounds))
  const cliWall = cli === undefined ? undefined : median(cli)
  if (cli === undefined) console.log("  toolgate check --mcp         skipped: apps/cli/dist/toolgate.mjs is missing (npm run build)")
  else console.log(`  toolgate check --mcp         ${cliWall!.toFixed(0).padStart(7)} ms median, the whole process (min ${Math.min(...cli).toFixed(0)})`)
  const overheadMet = sequential <= 1.2
  const checked = cliWall ?? wall
  const checkMet = checked <= 1000
  console.log(`  ${overheadMet ? "✔" : "✘"} proxy per call, 1 in flight: ${sequential.toFixed(2)}× direct (target ≤ 1.2×)`)
  console.log(`  ${checkMet ? "✔" : "✘"} ${cliWall === undefined ? "lock check" : "toolgate check --mcp"} of a 100-tool server: ${checked.toFixed(0)} ms (target ≤ 1000 ms)`)
  const results: Array<Result> = [
    { suite: "mcp", name: "tools/call direct, 1 in flight", nsPerOp: best.direct1 * 1e3, baseline: "tools/call direct, 1 in flight", ratio: 1 },
    { suite: "mcp", name: "tools/call via a byte relay, 1 in flight", nsPerOp: best.relayed1 * 1e3, baseline: "tools/call direct, 1 in flight", ratio: floor1 },
    { suite: "mcp", name: "tools/call via McpProxy, 1 in flight", nsPerOp: best.proxied1 * 1e3, baseline: "tools/call direct, 1 in flight", ratio: sequential },
    { suite: "mcp", name: "tools/call direct, 16 in flight", nsPerOp: best.direct16 * 1e3, baseline: "tools/call direct, 16 in flight", ratio: 1 },
    { suite: "mcp", name: "tools/call via a byte relay, 16 in flight", nsPerOp: best.relayed16 * 1e3, baseline: "tools/call direct, 16 in flight", ratio: floor16 },
    { suite: "mcp", name: "tools/call via McpProxy, 16 in flight", nsPerOp: best.proxied16 * 1e3, baseline: "tools/call direct, 16 in flight", ratio: pipelined },
    { suite: "mcp", name: "lock check of a 100-tool server, spawn to verdict", nsPerOp: wall * 1e6, baseline: "lock check of a 100-tool server, spawn to verdict", ratio: 1 },
    ...(cliWall === undefined ? [] : [{
      suite: "mcp",
      name: "toolgate check --mcp of a 100-tool server",
      nsPerOp: cliWall * 1e6,
      baseline: "lock check of a 100-tool server, spawn to verdict",
      ratio: cliWall / wall
    }])
  ]
  return { results, met: overheadMet && checkMet }
}

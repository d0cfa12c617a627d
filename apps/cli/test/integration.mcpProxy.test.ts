import { Client as ModernClient } from "@modelcontextprotocol/client"
import { StdioClientTransport as ModernStdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { pathToFileURL } from "node:url"
import { root, toolgateAsync as toolgate } from "./toolgate.js"

const require = createRequire(import.meta.url)
const tsx = pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist", "loader.mjs")).href
const fixture = resolve(root, "packages/mcp/test/fixtures/proxyFixture.ts")
const bin = resolve(root, "apps/cli/bin/toolgate.js")

/** The proxy's fixture server as a command line (`--drift`: `add` requires one more argument). */
const server = (...extra: Array<string>) => [`"${process.execPath}"`, "--import", tsx, fixture, ...extra].join(" ")

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text

let dir = ""
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-mcp-proxy-cli-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("toolgate mcp proxy (the process)", () => {
  it("speaks MCP on stdio: a near-miss coerced, an invalid call answered isError", async () => {
    const client = new Client({ name: "cli-test", version: "1.0.0" })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "proxy", "--server", server()], cwd: root }))
    try {
      const coerced = (await client.callTool({ name: "add", arguments: { a: "2", b: "3" } })) as CallToolResult
      assert.strictEqual(textOf(coerced), "5")
      const refused = (await client.callTool({ name: "add", arguments: { a: "two", b: 3 } })) as CallToolResult
      assert.isTrue(refused.isError)
      assert.strictEqual(JSON.parse(textOf(refused)).field, "a")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("speaks MCP's stateless revision on stdio to a client pinned to it", async () => {
    const client = new ModernClient({ name: "cli-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
    await client.connect(new ModernStdioClientTransport({ command: process.execPath, args: [bin, "mcp", "proxy", "--server", server()], cwd: root }))
    try {
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
      const coerced = (await client.callTool({ name: "add", arguments: { a: "2", b: "3" } })) as CallToolResult
      assert.strictEqual(textOf(coerced), "5")
      const refused = (await client.callTool({ name: "add", arguments: { a: "two", b: 3 } })) as CallToolResult
      assert.isTrue(refused.isError)
    } finally {
      await client.close()
    }
  }, 60_000)

  it("exits 0 when its client closes stdin", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "proxy", "--server", server()], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stdin.end()
    const code = await new Promise<number | null>((done) => child.on("close", done))
    assert.strictEqual(code, 0)
    assert.strictEqual(stdout, "")
  }, 60_000)

  it("serves Streamable HTTP with --port and a dialect, printing where", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "proxy", "--server", server(), "--port", "0", "--dialect", "openai-strict"], { cwd: root })
    try {
      const line = await new Promise<string>((done) => createInterface({ input: child.stdout }).once("line", done))
      const url = /listening on (\S+)/.exec(line)?.[1]
      assert.isDefined(url, line)
      const client = new Client({ name: "cli-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url!)))
      const { tools } = await client.listTools()
      assert.deepStrictEqual([...(tools.find((t) => t.name === "book")!.inputSchema.required ?? [])].sort(), ["day", "nights", "room"])
      await client.close()
    } finally {
      child.kill()
    }
  }, 60_000)

  it("refuses a server that drifted from --lock with exit 1 before serving", async () => {
    const lock = join(dir, "toolgate.lock.json")
    const locked = await toolgate("mcp", "lock", "--server", server(), "--lock", lock)
    assert.strictEqual(locked.code, 0, locked.stderr)
    const drift = await toolgate("mcp", "proxy", "--server", server("--drift"), "--lock", lock)
    assert.strictEqual(drift.code, 1, drift.stderr)
    assert.include(drift.stderr, "add")
    assert.strictEqual(drift.stdout, "")
    const other = await toolgate("mcp", "proxy", "--server", server(), "--lock", lock, "--name", "nobody")
    assert.strictEqual(other.code, 4, other.stderr)
    // told to speak only the stateless revision, a server of the older ones breaks the protocol at start (2)
    const modern = await toolgate("mcp", "proxy", "--server", server(), "--lock", lock, "--protocol", "modern")
    assert.strictEqual(modern.code, 2, modern.stderr)
    assert.strictEqual(modern.stdout, "")
  }, 60_000)

  it("exits 3 for a server that cannot be started and 4 for bad input", async () => {
    assert.strictEqual((await toolgate("mcp", "proxy", "--server", "/nonexistent/mcp-server", "--timeout", "5")).code, 3)
    assert.strictEqual((await toolgate("mcp", "proxy", "--server", "x", "--url", "http://127.0.0.1:1/mcp")).code, 4)
    assert.strictEqual((await toolgate("mcp", "proxy", "--server", "x", "--port", "70000")).code, 4)
    assert.strictEqual((await toolgate("mcp", "proxy")).code, 4)
    assert.strictEqual((await toolgate("mcp", "proxy", "--server", "x", "--lock", join(dir, "missing.json"))).code, 4)
  }, 60_000)
})

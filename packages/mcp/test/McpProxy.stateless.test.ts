/**
 * The proxy toward clients of MCP's stateless revision (2026-07-28): the SDK's v2 client, pinned to the revision
 * or in `auto`, lists and calls through it over stdio (a spawned proxy process) and over Streamable HTTP on
 * loopback, its arguments checked as on the older revisions and its repeats answered from the journal; what is not
 * the revision is refused as the revision says.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect, Queue } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { McpConnection, McpProxy } from "../src/index.js"
import { everything, fixture, proxyMain, root, tsx } from "./McpProxySupport.js"
import * as Stateless from "./stateless.js"

const modern = "2026-07-28"

type Mode = "modern" | "auto"

const clientOver = (transport: () => StdioClientTransport | StreamableHTTPClientTransport, mode: Mode) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "stateless-test", version: "1.0.0" }, {
        versionNegotiation: mode === "modern" ? { mode: { pin: modern } } : { mode: "auto" }
      })
      await client.connect(transport())
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const stdioClient = (mode: Mode) =>
  clientOver(() =>
    new StdioClientTransport({ command: process.execPath, args: [...tsx(proxyMain), JSON.stringify({ server: fixture })], cwd: root, stderr: "pipe" }), mode)

interface CallResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean
  readonly _meta?: Record<string, unknown>
}

const call = (client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }) as Promise<CallResult>)

const text = (result: CallResult) => result.content[0]?.text ?? ""

const calls = (client: Client) => Effect.map(call(client, "calls", {}), (r) => Number(text(r)))

/** What every transport must do for a client of the stateless revision. */
const behaves = (client: Client) =>
  Effect.gen(function*() {
    assert.strictEqual(client.getProtocolEra(), "modern")
    assert.strictEqual(client.getNegotiatedProtocolVersion(), modern)
    assert.strictEqual(client.getServerVersion()?.name, "toolgate-mcp-proxy")
    const listed = yield* Effect.promise(() => client.listTools())
    assert.include(listed.tools.map((t) => t.name), "add")
    // a near-miss is coerced: the upstream sees integers
    assert.strictEqual(text(yield* call(client, "add", { a: "2", b: 3 })), "5")
    // an invalid call is answered isError, the upstream not called
    const before = yield* calls(client)
    const refused = yield* call(client, "add", { a: "two", b: 3 })
    assert.strictEqual(refused.isError, true)
    assert.include(text(refused), "invalid_args")
    assert.strictEqual(yield* calls(client), before + 1)
    // a repeated idempotency key is answered from the journal
    const key = { [McpProxy.idempotencyKey]: `k-${Math.random()}` }
    const first = yield* call(client, "add", { a: 1, b: 1 }, key)
    const again = yield* call(client, "add", { a: 1, b: 1 }, key)
    assert.strictEqual(text(again), text(first))
    assert.strictEqual(again._meta?.[McpProxy.replayedKey], true)
    assert.strictEqual(yield* calls(client), before + 3)
  })

describe("McpProxy for clients of the stateless revision", () => {
  it.live("over stdio, a pinned client lists and calls", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* behaves(yield* stdioClient("modern"))
    })), 60_000)

  it.live("over stdio, an auto client gets the stateless revision", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* behaves(yield* stdioClient("auto"))
    })), 60_000)

  it.live("over HTTP, pinned and auto clients list and call, without a session", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      yield* behaves(yield* clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "modern"))
      yield* behaves(yield* clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "auto"))
      assert.strictEqual(proxy.sessions(), 0)
    })), 60_000)

  it.live("in front of a modern-only upstream, the listing's cache hints and a dialect's schemas reach the client", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: Stateless.stdio("reject"), dialect: "openai-strict" })
      const client = yield* clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "modern")
      const listed = yield* Effect.promise(() => client.listTools()) as Effect.Effect<Record<string, unknown> & { tools: ReadonlyArray<{ name: string; inputSchema: Record<string, unknown> }> }>
      assert.strictEqual(listed.ttlMs, 60_000)
      assert.strictEqual(listed.cacheScope, "public")
      assert.strictEqual(listed.tools.find((t) => t.name === "get_weather")?.inputSchema.additionalProperties, false)
      const result = yield* call(client, "get_weather", { city: "Oslo" })
      assert.strictEqual(text(result), "Sunny in Oslo")
    })), 60_000)

  it.live("relays the upstream's resources and prompts request by request", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: everything })
      const client = yield* clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "modern")
      const resources = yield* Effect.promise(() => client.listResources())
      assert.isAbove(resources.resources.length, 0)
      const read = yield* Effect.promise(() => client.readResource({ uri: resources.resources[0]!.uri }))
      assert.isAbove(read.contents.length, 0)
      const prompts = yield* Effect.promise(() => client.listPrompts())
      assert.include(prompts.prompts.map((p) => p.name), "simple-prompt")
      const prompt = yield* Effect.promise(() => client.getPrompt({ name: "simple-prompt" }))
      assert.isAbove(prompt.messages.length, 0)
    })), 60_000)

  it.live("over HTTP, concurrent clients share one upstream connection", () =>
    Effect.scoped(Effect.gen(function*() {
      const log = join(mkdtempSync(join(tmpdir(), "toolgate-spawns-")), "spawns")
      const proxy = yield* McpProxy.serveHttp({ server: { ...fixture, args: [...fixture.args, `--spawn-log=${log}`] } })
      // the upstream is tried once at start
      assert.strictEqual(readFileSync(log, "utf8").trim().split("\n").length, 1)
      const clients = yield* Effect.all(
        Array.from({ length: 4 }, () => clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "modern")),
        { concurrency: "unbounded" }
      )
      const sums = yield* Effect.all(clients.map((client, i) => call(client, "add", { a: i, b: 1 })), { concurrency: "unbounded" })
      assert.deepStrictEqual(sums.map(text), ["1", "2", "3", "4"])
      assert.strictEqual(readFileSync(log, "utf8").trim().split("\n").length, 2)
    })), 60_000)

  for (const transport of ["HTTP", "stdio"] as const) {
    it.live(`over ${transport}, the upstream's list_changed reaches the client's subscriptions/listen stream`, () =>
      Effect.scoped(Effect.gen(function*() {
        // the upstream speaks the older revision to the proxy, so its list_changed comes unsolicited
        const options = { server: Stateless.stdio("serve", true), protocol: "legacy" as const }
        const server: McpProxy.Options["server"] = transport === "HTTP"
          ? { _tag: "StreamableHttp", url: (yield* McpProxy.serveHttp(options)).url }
          : { _tag: "Stdio", command: process.execPath, args: [...tsx(proxyMain), JSON.stringify(options)], cwd: root }
        const connection = yield* McpConnection.make({ server, protocol: "modern" })
        assert.strictEqual(connection.protocolVersion, modern)
        assert.isTrue(connection.announcesListChanged)
        const changes = yield* connection.listChanged
        yield* connection.listTools
        yield* Queue.take(changes)
      })), 60_000)
  }

  const cancels = (client: Client) =>
    Effect.gen(function*() {
      yield* Effect.promise(() => client.listTools())
      const before = yield* calls(client)
      const abandon = new AbortController()
      const waiting = Effect.runPromise(Effect.promise(() => client.callTool({ name: "wait", arguments: {} }, { signal: abandon.signal }).then(() => "answered", () => "abandoned")))
      // the call has reached the upstream once the upstream counts one call more than the polls
      let polls = 0
      while ((yield* calls(client)) < before + ++polls + 1) yield* Effect.sleep("20 millis")
      abandon.abort()
      assert.strictEqual(yield* Effect.promise(() => waiting), "abandoned")
      while (text(yield* call(client, "cancelled", {})) !== "1") yield* Effect.sleep("20 millis")
    })

  it.live("a call the client abandons is cancelled upstream, over stdio and HTTP", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* cancels(yield* stdioClient("modern"))
      const proxy = yield* McpProxy.serveHttp({ server: fixture })
      yield* cancels(yield* clientOver(() => new StreamableHTTPClientTransport(new URL(proxy.url)), "modern"))
    })), 60_000)
})

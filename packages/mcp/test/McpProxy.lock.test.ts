import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { McpConnection, McpLock, McpProxy } from "../src/index.js"
import { fixture } from "./McpProxySupport.js"

/** A lock of the plain fixture under the key `fixture`. */
const lockOfFixture = Effect.scoped(Effect.gen(function*() {
  const connection = yield* McpConnection.make({ server: fixture })
  const listing = yield* connection.listTools
  return McpLock.put(undefined, "fixture", McpLock.defaultScope, McpLock.fromListing(connection.serverInfo, listing.tools))
}))

const drifted = { ...fixture, args: [...fixture.args, "--drift"] }

/** The next line the proxy writes, as JSON. */
const nextLine = (out: PassThrough) =>
  Effect.async<unknown>((resume) => {
    let text = ""
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8")
      const end = text.indexOf("\n")
      if (end < 0) return
      out.off("data", onData)
      resume(Effect.sync(() => JSON.parse(text.slice(0, end))))
    }
    out.on("data", onData)
  })

describe("McpProxy with a lock", () => {
  it.scopedLive("over stdio, proves the listing on the connection that then serves: the upstream is spawned once", () =>
    Effect.gen(function*() {
      const file = yield* lockOfFixture
      const log = join(mkdtempSync(join(tmpdir(), "toolgate-spawns-")), "spawns")
      const counted = { ...fixture, args: [...fixture.args, `--spawn-log=${log}`] }
      const stdin = new PassThrough()
      const stdout = new PassThrough()
      const served = yield* Effect.fork(McpProxy.serveStdio({ server: counted, lock: { file, server: "fixture" } }, { stdin, stdout }))
      const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`)
      send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })
      yield* nextLine(stdout)
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      const listed = (yield* nextLine(stdout)) as { id: number; result: { tools: Array<{ name: string }> } }
      assert.strictEqual(listed.id, 2)
      assert.include(listed.result.tools.map((t) => t.name), "add")
      stdin.end()
      yield* Fiber.join(served)
      assert.strictEqual(readFileSync(log, "utf8").trim().split("\n").length, 1)
    }), { timeout: 60_000 })

  it.scopedLive("serves an upstream that matches its lock", () =>
    Effect.gen(function*() {
      const file = yield* lockOfFixture
      const proxy = yield* McpProxy.serveHttp({ server: fixture, lock: { file, server: "fixture" } })
      assert.isAbove(proxy.port, 0)
    }), { timeout: 60_000 })

  it.scopedLive("finds the entry under the name the server gives at initialize when no key is given", () =>
    Effect.gen(function*() {
      const { servers } = yield* lockOfFixture
      const file = { version: 1 as const, servers: { "proxy-fixture": servers["fixture"]! } }
      yield* McpProxy.serveHttp({ server: fixture, lock: { file } })
      const error = yield* Effect.flip(McpProxy.serveHttp({ server: drifted, lock: { file } }))
      assert.strictEqual(error._tag, "SchemaDriftError")
    }), { timeout: 60_000 })

  it.scopedLive("refuses a drifted upstream at start with SchemaDriftError", () =>
    Effect.gen(function*() {
      const file = yield* lockOfFixture
      const http = yield* Effect.flip(McpProxy.serveHttp({ server: drifted, lock: { file, server: "fixture" } }))
      assert.strictEqual(http._tag, "SchemaDriftError")
      if (http._tag === "SchemaDriftError") assert.deepStrictEqual(http.drifted, ["add"])
      const stdio = yield* Effect.flip(McpProxy.serveStdio({ server: drifted, lock: { file, server: "fixture" } }))
      assert.strictEqual(stdio._tag, "SchemaDriftError")
    }), { timeout: 60_000 })

  it.scopedLive("refuses a server the lock does not have", () =>
    Effect.gen(function*() {
      const file = yield* lockOfFixture
      const error = yield* Effect.flip(McpProxy.serveHttp({ server: fixture, lock: { file, server: "other" } }))
      assert.strictEqual(error._tag, "McpProxyNotLocked")
    }), { timeout: 60_000 })
})

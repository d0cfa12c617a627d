import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpConnection, McpLock, McpProxy } from "../src/index.js"
import { fixture } from "./McpProxySupport.js"

/** A lock of the plain fixture under the key `fixture`. */
const lockOfFixture = Effect.scoped(Effect.gen(function*() {
  const connection = yield* McpConnection.make({ server: fixture })
  const listing = yield* connection.listTools
  return McpLock.put(undefined, "fixture", McpLock.defaultScope, McpLock.fromListing(connection.serverInfo, listing.tools))
}))

const drifted = { ...fixture, args: [...fixture.args, "--drift"] }

describe("McpProxy with a lock", () => {
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

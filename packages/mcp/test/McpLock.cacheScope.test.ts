/**
 * MCP's `cacheScope` on `tools/list`: read from every page (a missing or invalid value is `"private"`, never a
 * failure), kept in the lock, and a `"public"` entry serving an auth scope the lock has no entry of its own for.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { McpConnection, McpLock, McpTools } from "../src/index.js"
import { fixture, weather } from "./support.js"

const scopeOf = (cacheScope: string | undefined, mode?: string) =>
  Effect.gen(function*() {
    const connection = yield* McpConnection.make({ server: fixture([weather, { ...weather, name: "other" }], mode, undefined, undefined, cacheScope) })
    const listing = yield* connection.listTools
    assert.strictEqual(listing.tools.length, 2)
    return listing.cacheScope
  }).pipe(Effect.scoped)

const entry = (cacheScope?: McpConnection.CacheScope) => McpLock.fromListing({ name: "s", version: "1" }, [weather as McpConnection.McpTool], cacheScope)

describe("cacheScope", () => {
  it.live("a listing is public when the server says so, private when it says so or says nothing", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* scopeOf("\"public\""), "public")
      assert.strictEqual(yield* scopeOf("\"private\""), "private")
      assert.strictEqual(yield* scopeOf(undefined), "private")
    }))

  for (const invalid of ["\"PUBLIC\"", "\"shared\"", "1", "null", "{}", "[\"public\"]"]) {
    it.live(`a cacheScope of ${invalid} is private and the listing does not fail`, () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* scopeOf(invalid), "private")
      }))
  }

  it.live("a paged listing is public only when every page says so", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* scopeOf(JSON.stringify(["public", "public"]), "cursor-pages"), "public")
      assert.strictEqual(yield* scopeOf(JSON.stringify(["public", "private"]), "cursor-pages"), "private")
      assert.strictEqual(yield* scopeOf(JSON.stringify(["public"]), "cursor-pages"), "private")
    }))

  it.effect("a public entry serves another auth scope; a private one, or one that does not say, never does", () =>
    Effect.sync(() => {
      const under = (e: McpLock.LockedServer) => McpLock.put(undefined, "s", McpLock.defaultScope, e)
      assert.deepStrictEqual(McpLock.get(under(entry("public")), "s", "admin"), Option.some(entry("public")))
      assert.isTrue(Option.isNone(McpLock.get(under(entry("private")), "s", "admin")))
      assert.isTrue(Option.isNone(McpLock.get(under(entry()), "s", "admin")))
      assert.isTrue(Option.isNone(McpLock.get(under(entry("public")), "other-server", "admin")))
      // the scope's own entry first; among public entries, the default scope's first, then by name
      const own = { ...entry("private"), serverInfo: { name: "s", version: "own" } }
      assert.deepStrictEqual(McpLock.get(McpLock.put(under(entry("public")), "s", "admin", own), "s", "admin"), Option.some(own))
      const b = { ...entry("public"), serverInfo: { name: "s", version: "b" } }
      const a = { ...entry("public"), serverInfo: { name: "s", version: "a" } }
      const two = McpLock.put(McpLock.put(undefined, "s", "b", b), "s", "a", a)
      assert.deepStrictEqual(McpLock.get(two, "s", "admin"), Option.some(a))
      assert.deepStrictEqual(McpLock.get(McpLock.put(two, "s", McpLock.defaultScope, entry("public")), "s", "admin"), Option.some(entry("public")))
    }))

  it.effect("the lock keeps the scope through its text; a lock without it still reads; an unknown one is InvalidLock", () =>
    Effect.sync(() => {
      const lock = McpLock.put(undefined, "s", "default", entry("public"))
      assert.deepStrictEqual(Either.getOrThrow(McpLock.parse(McpLock.stringify(lock), "lock")), lock)
      assert.include(McpLock.stringify(lock), "\"cacheScope\": \"public\"")
      assert.isTrue(Either.isRight(McpLock.parse(McpLock.stringify(McpLock.put(undefined, "s", "default", entry())), "lock")))
      const bad = McpLock.stringify(lock).replace("\"public\"", "\"shared\"")
      assert.strictEqual(Either.getLeft(McpLock.parse(bad, "lock")).pipe(Option.getOrThrow)._tag, "InvalidLock")
    }))

  it.live("McpTools under an auth scope the lock lacks: gated by a public entry, refused without one", () =>
    Effect.gen(function*() {
      const lockOf = (cacheScope: string | undefined) =>
        Effect.gen(function*() {
          const connection = yield* McpConnection.make({ server: fixture([weather], undefined, undefined, undefined, cacheScope) })
          const listing = yield* connection.listTools
          return McpLock.put(undefined, connection.serverInfo.name, McpLock.defaultScope, McpLock.fromListing(connection.serverInfo, listing.tools, listing.cacheScope))
        }).pipe(Effect.scoped)
      const publicLock = yield* lockOf("\"public\"")
      const tools = yield* McpTools.make({ server: fixture([weather], undefined, undefined, undefined, "\"public\""), lock: publicLock, scope: "admin" })
      assert.isTrue(Either.isRight(McpTools.verdict(tools)))
      assert.deepStrictEqual([...tools.toolkit.tools.keys()], ["get_weather"])
      for (const scope of ["\"private\"", undefined]) {
        const error = yield* Effect.flip(McpTools.make({ server: fixture([weather]), lock: yield* lockOf(scope), scope: "admin" }))
        assert.strictEqual(error._tag, "InvalidLock")
        assert.include(error.message, "nor a \"public\" one under another scope")
      }
    }).pipe(Effect.scoped))
})

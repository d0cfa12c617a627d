import { assert, describe, it } from "@effect/vitest"
import { Scripted } from "@toolgate/providers"
import { ArgumentValidator, Tool } from "@toolgate/runtime"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Either, Option, Queue, TestClock } from "effect"
import { McpConnection, McpLock, McpTools } from "../src/index.js"
import { stdio } from "./stateless.js"
import { type FixtureTool, fixture, weather } from "./support.js"

/** Runs `tool` of `mcp` on `args` (already valid) as a session would, returning its envelope. */
const run = (mcp: McpTools.Service, tool: string, args: Record<string, unknown>, callId = "call-1") =>
  Tool.run(Option.getOrThrow(Option.fromNullable(mcp.toolkit.tools.get(tool))), {
    _tag: "Prepared", tool, callId, raw: args, value: args as never, coercions: [], args: args as never
  }, { idempotencyKey: `session:1-abc:${callId}` })

/** Waits `ms` of real time (the tests' clock is a `TestClock`): room for a fiber woken by mistake to act. */
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const lockOf = (tools: ReadonlyArray<FixtureTool>) =>
  Effect.gen(function*() {
    const connection = yield* McpConnection.make({ server: fixture(tools) })
    const { tools: listed } = yield* connection.listTools
    return McpLock.put(undefined, connection.serverInfo.name, "default", McpLock.fromListing(connection.serverInfo, listed))
  }).pipe(Effect.scoped)

describe("McpTools", () => {
  it.scopedLive("results become envelopes: structured, text, isError, a broken output schema", () =>
    Effect.gen(function*() {
      const out = { type: "object", properties: { args: { type: "object" }, meta: { type: "object" } }, required: ["args"] }
      const mcp = yield* McpTools.make({
        server: fixture([
          { ...weather, outputSchema: out },
          { ...weather, name: "texty", answer: "text" },
          { ...weather, name: "refuses", answer: "error" },
          { ...weather, name: "liar", outputSchema: out, answer: "bad-output" }
        ])
      })
      const ok = yield* run(mcp, "get_weather", { city: "Oslo" })
      assert(ok.ok === true)
      assert.deepStrictEqual(ok.result, { args: { city: "Oslo" }, meta: { [McpTools.idempotencyKeyMeta]: "session:1-abc:call-1" } })
      const text = yield* run(mcp, "texty", { city: "Oslo" })
      assert.deepInclude(text, { ok: true, result: { text: `got {"city":"Oslo"}` } })
      const refused = yield* run(mcp, "refuses", { city: "Oslo" })
      assert.deepInclude(refused, { ok: false, kind: "execution_error", message: `refused: {"city":"Oslo"}` })
      const liar = yield* run(mcp, "liar", { city: "Oslo" })
      assert(liar.ok === false)
      assert.include(liar.message, "output schema")
    }))

  it.scopedLive("a draft-07 output schema on a server of the stateless revision is toolgate's to check: a fitting result passes, a lying one fails it", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({ server: stdio("reject") })
      const ok = yield* run(mcp, "get_forecast", { city: "Oslo" })
      assert(ok.ok === true, JSON.stringify(ok))
      assert.deepStrictEqual(ok.result, { city: "Oslo", days: [["mon", 21], ["tue", 19]] })
      const liar = yield* run(mcp, "liar", { city: "Oslo" })
      assert(liar.ok === false)
      assert.strictEqual(liar.kind, "execution_error")
      // toolgate's check, not the SDK's ("Structured content does not match the tool's output schema")
      assert.include(liar.message, "The MCP server's result breaks the output schema of `liar`")
    }))

  it.scopedLive("a call that never answers is a timeout envelope; a server that dies is unavailable", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({
        server: fixture([{ ...weather, answer: "hang" }, { ...weather, name: "dies", answer: "die" }]),
        timeout: "300 millis"
      })
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: false, kind: "timeout" })
      assert.deepInclude(yield* run(mcp, "dies", { city: "Oslo" }), { ok: false, kind: "unavailable" })
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: false, kind: "unavailable" })
    }))

  it.scopedLive("names MCP does not allow are reported and left out; annotations change nothing", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({
        server: fixture([{ ...weather, annotations: { readOnlyHint: true, destructiveHint: false } }, { ...weather, name: "has space" }, { ...weather, name: "x".repeat(129) }])
      })
      assert.deepStrictEqual([...mcp.toolkit.tools.keys()], ["get_weather"])
      assert.deepStrictEqual(mcp.problems.map((p) => p.tool), ["has space", "x".repeat(129)])
    }))

  it.scopedLive("a network $ref is never fetched: the tool is reported and its calls refused", () =>
    Effect.gen(function*() {
      let hits = 0
      const server = http.createServer((_, res) => (hits++, res.end(JSON.stringify({ type: "string" }))))
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const ref = `http://127.0.0.1:${(server.address() as AddressInfo).port}/city.json`
      const remote = { ...weather, name: "remote", inputSchema: { type: "object", properties: { city: { $ref: ref } }, required: ["city"] } }
      const mcp = yield* McpTools.make({ server: fixture([weather, remote]) })
      assert.deepStrictEqual(mcp.problems.map((p) => p.tool), ["remote"])
      const validator = yield* ArgumentValidator.make()
      const refused = yield* Effect.flip(validator.prepare(mcp.toolkit.tools.get("remote")!, { city: "Oslo" }, { callId: "c1" }))
      assert.strictEqual(refused._tag, "InvalidToolSchema")
      const lock = McpLock.put(undefined, "toolgate-fixture", "default", McpLock.fromListing(mcp.connection.serverInfo, (yield* mcp.connection.listTools).tools))
      const gated = yield* Effect.either(McpTools.make({ server: fixture([weather, remote]), lock }))
      assert.isTrue(Either.isRight(gated) || gated.left._tag === "UnsupportedCloudToolSchema")
      assert.strictEqual(hits, 0)
    }))

  it.scopedLive("the layer fails with SchemaDriftError before any model request when the server drifted from the lock", () =>
    Effect.gen(function*() {
      const lock = yield* lockOf([weather])
      const narrowed = { ...weather, inputSchema: { ...weather.inputSchema, required: ["city", "days"] } }
      const provider = yield* Scripted.make({ turns: [] })
      const error = yield* Effect.flip(Effect.gen(function*() {
        yield* McpTools.McpTools
        yield* provider.complete({ messages: [], tools: [], toolChoice: "auto" })
      }).pipe(Effect.provide(McpTools.layer({ server: fixture([narrowed]), lock }))))
      assert.strictEqual(error._tag, "SchemaDriftError")
      // the message names the tool and the sides of an MCP lock, never a relay
      assert.include(error.message, "Tool `get_weather` drifted")
      assert.notInclude(error.message, "relay")
      assert.deepStrictEqual(yield* provider.requests, [])
      const missing = yield* Effect.flip(McpTools.make({ server: fixture([weather]), lock, scope: "admin" }))
      assert.strictEqual(missing._tag, "InvalidLock")
    }))

  it.scopedLive("with a lock, the tool is held to the locked schema (a widened server is fine)", () =>
    Effect.gen(function*() {
      const lock = yield* lockOf([weather])
      const widened = { ...weather, inputSchema: { type: "object", properties: { city: { type: "string" } } } }
      const mcp = yield* McpTools.make({ server: fixture([widened]), lock })
      assert.deepStrictEqual(mcp.toolkit.tools.get("get_weather")!.jsonSchema, weather.inputSchema as never)
      assert.isTrue(Either.isRight(McpTools.verdict(mcp)))
    }))

  it.scopedLive("list_changed re-lists and re-proves: a tool that drifted answers unavailable", () =>
    Effect.gen(function*() {
      const narrowed = { ...weather, inputSchema: { ...weather.inputSchema, required: ["city", "days"] } }
      const mcp = yield* McpTools.make({ server: fixture([weather], undefined, [narrowed]) })
      let status = yield* mcp.status
      while (status.listings < 2) status = yield* Effect.zipRight(Effect.sleep("20 millis"), mcp.status)
      assert.strictEqual(Option.getOrThrow(status.drift)._tag, "SchemaDriftError")
      const refused = yield* run(mcp, "get_weather", { city: "Oslo" })
      assert.deepInclude(refused, { ok: false, kind: "unavailable", retryable: false })
    }))

  it.scopedLive("a re-listing that fails leaves the tools as they were", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({ server: fixture([weather], "fail-after-first") })
      let status = yield* mcp.status
      while (status.failed < 1) status = yield* Effect.zipRight(Effect.sleep("20 millis"), mcp.status)
      assert.deepStrictEqual(status, { listings: 1, failed: 1, drift: Option.none() })
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
    }))

  it.scoped("list_changed in a loop costs one listing per interval", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({ server: fixture([weather], "list-changed-loop"), relistInterval: "1 hour" })
      const signals = yield* mcp.connection.listChanged
      let status = yield* mcp.status
      while (status.listings < 2) status = yield* Effect.zipRight(Effect.promise(() => new Promise((r) => setTimeout(r, 20))), mcp.status)
      for (let i = 0; i < 5; i++) yield* Queue.take(signals)
      assert.strictEqual((yield* mcp.status).listings, 2)
      yield* TestClock.adjust("1 hour")
      while (status.listings < 3) status = yield* Effect.zipRight(Effect.promise(() => new Promise((r) => setTimeout(r, 20))), mcp.status)
      assert.strictEqual(status.listings, 3)
    }))

  it.scoped("a call that finds the listing past its ttlMs has it read and proved first: a drift answers unavailable; before it, nothing is read", () =>
    Effect.gen(function*() {
      const narrowed = { ...weather, inputSchema: { ...weather.inputSchema, required: ["city", "days"] } }
      const mcp = yield* McpTools.make({ server: fixture([weather], "quiet-next", [narrowed], "60000") })
      yield* TestClock.adjust("59 seconds")
      yield* realSleep(200)
      assert.deepStrictEqual(yield* mcp.status, { listings: 1, failed: 0, drift: Option.none() })
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
      assert.strictEqual((yield* mcp.status).listings, 1)
      // stale now, but the TTL is a freshness hint, not a polling interval: nothing is read until a call needs it
      yield* TestClock.adjust("1 second")
      yield* realSleep(200)
      assert.strictEqual((yield* mcp.status).listings, 1)
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: false, kind: "unavailable", retryable: false })
      const status = yield* mcp.status
      assert.strictEqual(status.listings, 2)
      assert.strictEqual(Option.getOrThrow(status.drift)._tag, "SchemaDriftError")
    }))

  for (const ttlMs of ["0", "-1"]) {
    it.scoped(`a ttlMs of ${ttlMs} is stale at once: calls cost one listing per interval`, () =>
      Effect.gen(function*() {
        const mcp = yield* McpTools.make({ server: fixture([weather], undefined, undefined, ttlMs), relistInterval: "1 hour" })
        assert.strictEqual((yield* mcp.connection.listTools).ttlMs, 0)
        yield* realSleep(200)
        assert.strictEqual((yield* mcp.status).listings, 1)
        for (let i = 0; i < 3; i++) assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
        assert.strictEqual((yield* mcp.status).listings, 2)
        yield* TestClock.adjust("1 hour")
        for (let i = 0; i < 3; i++) assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
        assert.strictEqual((yield* mcp.status).listings, 3)
      }))
  }

  it.scoped("a listing that cannot be read again when stale leaves the tools as they were", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({ server: fixture([weather], "fail-after-first", undefined, "0"), relistInterval: "1 hour" })
      // the fixture's list_changed after the first listing and the stale listing each ask once at most per interval
      let status = yield* mcp.status
      while (status.failed < 1) status = yield* Effect.zipRight(realSleep(20), mcp.status)
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
      yield* TestClock.adjust("1 hour")
      assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
      status = yield* mcp.status
      assert.deepStrictEqual([status.listings, Option.isNone(status.drift)], [1, true])
      assert.isAtLeast(status.failed, 2)
    }))

  for (const ttlMs of ["\"60000\"", "null", "{}", "1e308"]) {
    it.scoped(`a ttlMs of ${ttlMs} (not a number, or past any clock) never expires and never fails`, () =>
      Effect.gen(function*() {
        const narrowed = { ...weather, inputSchema: { ...weather.inputSchema, required: ["city", "days"] } }
        const mcp = yield* McpTools.make({ server: fixture([weather], "quiet-next", [narrowed], ttlMs) })
        assert.strictEqual((yield* mcp.connection.listTools).ttlMs, ttlMs === "1e308" ? 1e308 : undefined)
        yield* TestClock.adjust("1000 days")
        yield* realSleep(200)
        assert.deepStrictEqual(yield* mcp.status, { listings: 1, failed: 0, drift: Option.none() })
        assert.deepInclude(yield* run(mcp, "get_weather", { city: "Oslo" }), { ok: true })
      }))
  }
})

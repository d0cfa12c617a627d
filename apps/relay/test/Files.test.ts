import { HttpServer } from "@effect/platform"
import { NodeContext, NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Logger, LogLevel } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Relay } from "../src/index.js"
import { profile, requestText, script } from "./fixtures.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-relay-"))
const file = (name: string, text: string) => {
  const at = path.join(dir, name)
  fs.writeFileSync(at, text)
  return at
}

const loadError = <A, R>(effect: Effect.Effect<A, Relay.RelayFileError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

describe("loadProfile / loadScript", () => {
  it.effect("read a profile and a script", () =>
    Effect.gen(function*() {
      const loaded = yield* Relay.loadProfile(file("profile.json", JSON.stringify({ ...profile, faults: ["slow"] })))
      assert.deepStrictEqual(loaded, { ...profile, faults: ["slow"] })
      const read = yield* Relay.loadScript(file("script.json", JSON.stringify(script)))
      assert.deepStrictEqual(read, JSON.parse(JSON.stringify(script)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a broken profile is still a profile; a broken faults list is not", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Relay.loadProfile(file("broken.json", "[1, 2]")), [1, 2])
      const message = yield* loadError(Relay.loadProfile(file("faults.json", "{\"faults\":[\"slwo\"]}")))
      assert.match(message, /faults\.json: "faults" lists "slwo"/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("missing, not JSON, not a script, hostile: a RelayFileError naming the file", () =>
    Effect.gen(function*() {
      assert.match(yield* loadError(Relay.loadProfile(path.join(dir, "missing.json"))), /missing\.json: cannot be read/)
      assert.match(yield* loadError(Relay.loadScript(file("text.json", "not json"))), /text\.json: is not JSON/)
      assert.match(yield* loadError(Relay.loadScript(file("shape.json", "{\"turns\":[[{\"fail\":{}}]]}"))), /shape\.json: is not a script/)
      const deep = "[".repeat(10_000) + "]".repeat(10_000)
      assert.match(yield* loadError(Relay.loadScript(file("deep.json", `{"turns":${deep}}`))), /deep\.json: is not a script/)
      const proto = yield* Relay.loadScript(file("proto.json", "{\"__proto__\":{\"polluted\":true},\"turns\":[]}"))
      assert.deepStrictEqual(proto.turns, [])
      assert.isFalse("polluted" in {})
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a directory, a FIFO or a device given as a profile or a script is a RelayFileError naming it, never read or waited on", () =>
    Effect.gen(function*() {
      const fifo = path.join(dir, "fifo.json")
      if (!fs.existsSync(fifo)) execFileSync("mkfifo", [fifo]) // nothing ever writes it: reading it would wait for ever
      for (const path of [dir, fifo, "/dev/zero"]) {
        assert.match(yield* loadError(Relay.loadProfile(path)), /is not a regular file/, path)
        assert.match(yield* loadError(Relay.loadScript(path)), /is not a regular file/, path)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a profile or script past 64 MiB is refused before any of it is read", () =>
    Effect.gen(function*() {
      const huge = path.join(dir, "huge.json")
      fs.writeFileSync(huge, "{}")
      fs.truncateSync(huge, 65 * 1024 * 1024) // sparse: no disk, no read
      assert.match(yield* loadError(Relay.loadProfile(huge)), /is larger than 67108864 bytes/)
      assert.match(yield* loadError(Relay.loadScript(huge)), /is larger than 67108864 bytes/)
      fs.rmSync(huge)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("configuration", () => {
  it.scopedLive("start dies on a config that is not valid (a wiring bug), naming it", () =>
    Effect.gen(function*() {
      for (const config of [
        { profile, script, maxBodyBytes: 0 },
        { profile, script, maxBodyBytes: Number.NaN },
        { profile: { faults: ["nope"] }, script }
      ]) {
        const exit = yield* Effect.exit(Relay.start(config))
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), JSON.stringify(config))
      }
      const exit = yield* Effect.exit(Layer.launch(Relay.layer({ profile, script }, { port: -1 })))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
    }))

  it.scopedLive("the router of a config that is not valid answers every request with a 500 saying why", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        HttpServer.serve(Relay.router({ profile, script, maxBodyBytes: -1 })).pipe(Layer.provideMerge(NodeHttpServer.layerTest))
      ).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
      const address = Context.get(context, HttpServer.HttpServer).address
      assert.strictEqual(address._tag, "TcpAddress")
      const port = address._tag === "TcpAddress" ? address.port : 0
      const answer = yield* requestText(`http://127.0.0.1:${port}/v1/agent/capabilities`)
      assert.strictEqual(answer.status, 500)
      assert.match(JSON.parse(answer.text).error.message, /maxBodyBytes/)
    }))

  it.scopedLive("layer serves on the given port", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const server = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = server.address() as net.AddressInfo
            server.close(() => resolve(port))
          })
        })
      )
      yield* Layer.build(Relay.layer({ profile, script }, { port })).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
      const answer = yield* requestText(`http://127.0.0.1:${port}/v1/agent/capabilities`)
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(JSON.parse(answer.text), profile)
    }))
})

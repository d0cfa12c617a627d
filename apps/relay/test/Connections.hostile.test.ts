/**
 * One client cannot hold every connection slot: a client (another loopback address, 127.0.0.2) that keeps
 * connections open with headers it never finishes, reconnecting as soon as one is closed, holds at most its
 * share of `maxConnections`, and every request of another client still gets through; a connection that
 * never sends a byte is closed. Over real sockets.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import { profile, script, start } from "./fixtures.js"

/** A GET on a fresh connection from `localAddress`: its status, or 0 when the connection was refused or cut. */
const get = (url: string, localAddress: string) =>
  Effect.async<number>((resume) => {
    const req = http.get(`${url}/v1/agent/capabilities`, { agent: false, localAddress, timeout: 5_000 }, (res) => {
      res.resume()
      res.on("end", () => resume(Effect.succeed(res.statusCode ?? 0)))
      res.on("error", () => resume(Effect.succeed(0)))
    })
    req.on("timeout", () => req.destroy())
    req.on("error", () => resume(Effect.succeed(0)))
  })

describe("connection slots under a client that takes them all", () => {
  it.scopedLive("a client reconnecting in a loop holds at most its share: another client's 29 requests all get through", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxConnections: 8, bodyTimeoutMs: 60_000 })
      const port = Number(new URL(url).port)
      const sockets = new Set<net.Socket>()
      let stopped = false
      let opened = 0
      const open = (): void => {
        if (stopped) return
        opened++
        const socket = net.connect({ port, host: "127.0.0.1", localAddress: "127.0.0.2" })
        sockets.add(socket)
        socket.on("error", () => undefined)
        socket.on("connect", () => socket.write("GET /v1/agent/capabilities HTTP/1.1\r\nhost: x\r\n"))
        socket.on("close", () => {
          sockets.delete(socket)
          setImmediate(open)
        })
      }
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          stopped = true
          for (const socket of sockets) socket.destroy()
        })
      )
      for (let i = 0; i < 20; i++) open()
      // the server has turned the hostile client away many times: it holds every slot it can get
      yield* Effect.promise(() => new Promise<void>((ok) => {
        const check = setInterval(() => opened >= 100 && (clearInterval(check), ok()), 10)
      }))
      const statuses: Array<number> = []
      for (let i = 0; i < 29; i++) statuses.push(yield* get(url, "127.0.0.1"))
      assert.deepStrictEqual(statuses, Array.from({ length: 29 }, () => 200))
      // and the hostile client is held to its share, not shut out
      assert.isAtLeast(sockets.size, 1)
    }), 60_000)

  it.scopedLive("a connection that never sends a byte is closed by the relay (after bodyTimeoutMs), not held for good", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, bodyTimeoutMs: 300 })
      const socket = net.connect(Number(new URL(url).port), "127.0.0.1")
      socket.on("error", () => undefined)
      // listened for at once: the relay may close it before this fiber runs again
      const closed = new Promise<string>((ok) => socket.once("close", () => ok("closed by the relay")))
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
      const outcome = yield* Effect.promise(() => closed).pipe(
        Effect.timeoutTo({ duration: "15 seconds", onTimeout: () => "still open", onSuccess: (s) => s })
      )
      assert.strictEqual(outcome, "closed by the relay")
    }), 30_000)
})

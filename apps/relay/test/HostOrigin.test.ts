/**
 * The relay answers only requests that name it: a `Host` header of its loopback names with its port (or a
 * configured host), and no `Origin` but its own (or a configured one). A page on another site whose name
 * was rebound to 127.0.0.1 (DNS rebinding) sends its own name as Host, and a browser adds its Origin: both
 * are refused with a 403 before any route runs, over a real socket.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { profile, script, start, turnBody, firstTurn } from "./fixtures.js"

interface Sent {
  readonly host?: string
  readonly origin?: string
  readonly method?: string
  readonly path?: string
  readonly body?: string
}

/** One request with exactly these Host and Origin headers (no Host header at all when `host` is absent). */
const send = (url: string, sent: Sent) =>
  Effect.async<{ readonly status: number; readonly json: any; readonly connection: string | undefined }>((resume) => {
    const { port } = new URL(url)
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (sent.host !== undefined) headers["host"] = sent.host
    if (sent.origin !== undefined) headers["origin"] = sent.origin
    const req = http.request({
      host: "127.0.0.1",
      port: Number(port),
      method: sent.method ?? "GET",
      path: sent.path ?? "/v1/agent/capabilities",
      headers,
      setHost: false,
      agent: false,
      timeout: 5_000
    }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (part: Buffer) => parts.push(part))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(parts).toString() || "null"), connection: res.headers.connection })))
    })
    req.on("timeout", () => req.destroy(new Error("timed out")))
    req.on("error", (e) => resume(Effect.die(e)))
    req.end(sent.body)
  })

describe("the relay's Host check", () => {
  it.scopedLive("its loopback names with its port are answered; any other name or port, or an empty Host, is a 403", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const { port } = new URL(url)
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
        assert.strictEqual((yield* send(url, { host })).status, 200, host)
      }
      for (const host of [`evil.example:${port}`, "evil.example", `localhost:${Number(port) + 1}`, "localhost", `127.0.0.1.evil.example:${port}`, `localhost:${port}@evil`, ""]) {
        const refused = yield* send(url, { host })
        assert.strictEqual(refused.status, 403, host)
        assert.strictEqual(refused.json.error.type, "forbidden", host)
        assert.strictEqual(refused.connection, "close", host)
      }
      // the turns endpoint is refused before its body is read
      const turns = yield* send(url, { host: `rebound.example:${port}`, method: "POST", path: "/v1/agent/turns", body: turnBody(firstTurn) })
      assert.strictEqual(turns.status, 403)
      // on Gemini's paths the refusal has Google's shape
      const gemini = yield* send(url, { host: `rebound.example:${port}`, method: "POST", path: "/v1beta/models/m:generateContent", body: "{}" })
      assert.deepStrictEqual([gemini.status, gemini.json.error.code, gemini.json.error.status], [403, 403, "PERMISSION_DENIED"])
    }))

  it.scopedLive("allowedHosts adds names: a bare name for any port, name:port for that port", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, allowedHosts: ["relay.internal", "Proxy.Example:443"] })
      assert.strictEqual((yield* send(url, { host: "relay.internal:9999" })).status, 200)
      assert.strictEqual((yield* send(url, { host: "proxy.example:443" })).status, 200)
      assert.strictEqual((yield* send(url, { host: "proxy.example:444" })).status, 403)
    }))
})

describe("the relay's Origin check", () => {
  it.scopedLive("a request from another web origin (null too) is a 403; its own origin and allowedOrigins are answered", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, allowedOrigins: ["https://app.example"] })
      const { port } = new URL(url)
      const host = `127.0.0.1:${port}`
      for (const origin of ["http://evil.example", "null", `http://localhost:${Number(port) + 1}`, `https://127.0.0.1:${port}`]) {
        const refused = yield* send(url, { host, origin, method: "POST", path: "/v1/agent/turns", body: turnBody(firstTurn) })
        assert.strictEqual(refused.status, 403, origin)
        assert.match(refused.json.error.message, /web origin/, origin)
      }
      for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, "https://app.example"]) {
        assert.strictEqual((yield* send(url, { host, origin })).status, 200, origin)
      }
    }))
})

describe("the checks' config", () => {
  it.scopedLive("a host or origin list that is not one keeps the relay from starting", () =>
    Effect.gen(function*() {
      for (const config of [{ allowedHosts: ["a b"] }, { allowedHosts: "x" }, { allowedOrigins: ["app.example"] }, { maxConnectionsPerClient: 0 }]) {
        const exit = yield* Effect.exit(Effect.scoped(start({ profile, script, ...config } as never)))
        assert.isTrue(exit._tag === "Failure", JSON.stringify(config))
      }
    }))
})

/**
 * The relay listens on loopback for anything on the machine: a web page's cross-origin "simple" POST, a
 * client trickling its body, one opening connections without end, a body nested 500,000 levels deep, a
 * process switching faults on by header. Each is refused cleanly over a real socket.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Logger, LogLevel } from "effect"
import * as Net from "node:net"
import { Relay } from "../src/index.js"
import * as Body from "../src/internal/body.js"
import { blocks, firstTurn, post, profile, requestText, script, start, turnBody } from "./fixtures.js"

const deep = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels)

/** A raw connection: writes `chunks` (`delayMs` apart) and gives everything it read until the server closed it (bounded), and how many chunks it had written by then. */
const raw = (url: string, chunks: ReadonlyArray<string>, delayMs = 0, timeoutMs = 5_000) =>
  Effect.promise(() =>
    new Promise<{ readonly text: string; readonly closed: boolean; readonly written: number }>((resolve) => {
      let written = 0
      const { port } = new URL(url)
      const socket = Net.connect(Number(port), "127.0.0.1")
      let text = ""
      const timer = setTimeout(() => finish(false), timeoutMs)
      const finish = (closed: boolean) => {
        clearTimeout(timer)
        socket.destroy()
        resolve({ text, closed, written })
      }
      socket.on("data", (data) => (text += data.toString("utf8")))
      socket.on("error", () => undefined)
      socket.on("close", () => finish(true))
      socket.on("connect", () => {
        chunks.forEach((chunk, i) => setTimeout(() => socket.writable && socket.write(chunk) && written++, i * delayMs))
      })
    })
  )

describe("relay hardening", () => {
  it.scopedLive("a POST that is not application/json is a 415, read no further; JSON with parameters is taken", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, scenarios: new Map([["s", { profile, script }]]) })
      const body = turnBody(firstTurn)
      for (const path of ["/v1/agent/turns", "/v1/chat/completions", "/scenarios/s/v1/agent/turns"]) {
        for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", ""]) {
          const answer = yield* requestText(`${url}${path}`, { method: "POST", body, headers: type === "" ? {} : { "content-type": type } })
          // fetch gives a string body `text/plain;charset=UTF-8` when no type is set
          assert.strictEqual(answer.status, 415, `${path} ${type}`)
          assert.strictEqual(answer.headers.get("content-type"), "application/json")
          assert.match(JSON.parse(answer.text).error.message, /must be application\/json/)
        }
      }
      for (const type of ["application/json; charset=utf-8", "Application/JSON", " application/json ;charset=UTF-8"]) {
        const answer = yield* post(`${url}/v1/agent/turns`, body, { "content-type": type })
        assert.strictEqual(answer.status, 200, type)
        assert.strictEqual(blocks(answer.text).length, 4)
      }
    }))

  it.scopedLive("no content type at all is a 415 too (a raw request)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = turnBody(firstTurn)
      const answer = yield* raw(url, [`POST /v1/agent/turns HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`])
      assert.match(answer.text, /^HTTP\/1\.1 415 /)
    }))

  it.scopedLive("a body nested past maxBodyDepth is a 400 found before parsing (1 MB, 500,000 levels)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const huge = deep(500_000)
      const answer = yield* post(`${url}/v1/agent/turns`, huge)
      assert.strictEqual(answer.status, 400)
      assert.match(JSON.parse(answer.text).error.message, /more than 256 levels deep/)
      // brackets inside strings are text, not nesting
      const inText = turnBody([{ _tag: "User", text: "[{".repeat(10_000) + "\\\"]" }])
      assert.strictEqual((yield* post(`${url}/v1/agent/turns`, inText)).status, 200)
      // a lower limit, per config
      const strict = yield* start({ profile, script, maxBodyDepth: 2 }) // a turn request nests 3: { messages: [ { … } ] }
      assert.strictEqual((yield* post(`${strict.url}/v1/agent/turns`, turnBody(firstTurn))).status, 400)
    }))

  it("depthWithin counts arrays and objects, skips strings and escapes, and is exact on JSON", () => {
    for (let n = 0; n < 40; n++) {
      const value = n % 2 === 0 ? deep(n) : "{\"a\":".repeat(n) + "\"]]}\\\"[[\"" + "}".repeat(n)
      JSON.parse(value)
      assert.strictEqual(Body.depthWithin(value, 20), n <= 20, value)
    }
    assert.isTrue(Body.depthWithin("\"\\\\\"[[[", 0) === false, "an escaped backslash ends the string")
    assert.isTrue(Body.isJson("application/json"))
    assert.isFalse(Body.isJson(undefined))
    assert.isFalse(Body.isJson("application/json-seq"))
  })

  it.scopedLive("a body trickled slower than bodyTimeoutMs is cut off with a 408 JSON error and a closed connection", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, bodyTimeoutMs: 300 })
      const head = `POST /v1/agent/turns HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`
      const trickle = Array.from({ length: 40 }, () => " ")
      const answer = yield* raw(url, [head, ...trickle], 100)
      assert.isTrue(answer.closed, "the relay closed the connection")
      assert.match(answer.text, /^HTTP\/1\.1 408 /)
      assert.match(answer.text, /connection: close/i)
      assert.match(answer.text, /did not arrive within 300 ms/)
      assert.isBelow(answer.written, 1 + trickle.length, "cut off before the trickle ended")
      // the relay goes on
      assert.strictEqual((yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))).status, 200)
    }))

  it.scopedLive("the time limits bound only the request: a slow answer (the slow fault) past them still arrives", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, bodyTimeoutMs: 200 })
      const capabilities = yield* requestText(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "1200" } })
      assert.strictEqual(capabilities.status, 200)
      const turn = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn), { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "1200" })
      assert.strictEqual(turn.status, 200)
      assert.strictEqual(blocks(turn.text).length, 4)
    }))

  it.scopedLive("headers trickled past the body time limit: Node cuts the connection (headersTimeout)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, bodyTimeoutMs: 300 })
      const pieces = ["GET /v1/agent/capabilities HTTP/1.1\r\n", ...Array.from({ length: 30 }, (_, i) => `x-slow-${i}: 1\r\n`)]
      const answer = yield* raw(url, pieces, 100)
      assert.isTrue(answer.closed, "the connection was closed before the headers ended")
      assert.notMatch(answer.text, /HTTP\/1\.1 200/)
      assert.isBelow(answer.written, pieces.length, "cut off before the headers ended")
    }))

  it.scopedLive("past maxConnections a new connection is closed as it is accepted; one frees, the next is served", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxConnections: 2, maxConnectionsPerClient: 2 })
      const { port } = new URL(url)
      const held = [Net.connect(Number(port), "127.0.0.1"), Net.connect(Number(port), "127.0.0.1")]
      yield* Effect.addFinalizer(() => Effect.sync(() => held.forEach((s) => s.destroy())))
      yield* Effect.promise(() => Promise.all(held.map((s) => new Promise((ok) => s.once("connect", ok)))))
      yield* Effect.sleep("50 millis")
      const refused = yield* raw(url, [`GET /v1/agent/capabilities HTTP/1.1\r\nhost: ${new URL(url).host}\r\n\r\n`], 0, 2_000)
      assert.isTrue(refused.closed)
      assert.strictEqual(refused.text, "", "nothing is answered past the cap")
      held[0]!.destroy()
      const served = yield* requestText(`${url}/v1/agent/capabilities`).pipe(
        Effect.flatMap((answer) => answer.status === 200 ? Effect.succeed(answer) : Effect.fail("not yet")),
        Effect.catchAllDefect(() => Effect.fail("not yet")),
        Effect.retry({ times: 20 })
      )
      assert.strictEqual(served.status, 200)
    }))

  it.scopedLive("fault headers are a 400 unless the relay was started with faultHeaders; profile faults apply either way", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, faultHeaders: false })
      for (const headers of [{ "x-toolgate-fault": "fail" }, { "x-toolgate-delay-ms": "10" }, { "x-toolgate-fault": "" }]) {
        const answer = yield* requestText(`${url}/v1/agent/capabilities`, { headers })
        assert.strictEqual(answer.status, 400, JSON.stringify(headers))
        assert.match(JSON.parse(answer.text).error.message, /does not honour fault switch headers/)
        const turn = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn), headers)
        assert.strictEqual(turn.status, 400)
      }
      assert.strictEqual((yield* requestText(`${url}/v1/agent/capabilities`)).status, 200)
      const failing = yield* start({ profile: { ...profile, faults: ["fail"] }, script, faultHeaders: false })
      assert.strictEqual((yield* requestText(`${failing.url}/v1/agent/capabilities`)).status, 500)
      // the library default is off
      const plain = yield* Relay.start({ profile, script }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
      assert.strictEqual((yield* requestText(`${plain.url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "fail" } })).status, 400)
    }))

  it.scopedLive("limits that are not positive whole numbers are config errors", () =>
    Effect.gen(function*() {
      for (const bad of [{ maxConnections: 0 }, { bodyTimeoutMs: -1 }, { maxBodyDepth: 1.5 }, { faultHeaders: "yes" as never }]) {
        const exit = yield* Effect.exit(Relay.start({ profile, script, ...bad }))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(bad))
      }
    }))

  it.scopedLive("a body declared past the drain bound (content-length 100 MB) is a 413 JSON error answered before any of it is sent", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxBodyBytes: 1_000 })
      const head = `POST /v1/agent/turns HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\ncontent-length: 100000000\r\nconnection: close\r\n\r\n`
      const answer = yield* raw(url, [head])
      assert.match(answer.text, /^HTTP\/1\.1 413 /)
      assert.match(answer.text, /content-type: application\/json/i)
      assert.match(answer.text, /"the request body is larger than 1000 bytes"/)
      assert.strictEqual((yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))).status, 200)
    }))

  it.scopedLive("a chunked body that grows past the drain bound (40 MiB, limit 1,000 bytes) has its connection closed, never a 200; the relay goes on", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxBodyBytes: 1_000 })
      const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`
      const piece = "x".repeat(1 << 20)
      const frame = `${piece.length.toString(16)}\r\n${piece}\r\n`
      const answer = yield* raw(url, [head, ...Array.from({ length: 40 }, () => frame)], 0, 10_000)
      assert.isTrue(answer.closed, "the relay closed the connection")
      assert.notMatch(answer.text, /HTTP\/1\.1 200/)
      assert.strictEqual((yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))).status, 200)
    }))

  it.scopedLive("a body cut short (the client half-closes or resets mid-body) is a 400 or nothing, never a 200; the relay goes on", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const { port } = new URL(url)
      const head = `POST /v1/responses HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{\"model\":`
      for (const ending of ["half-close", "reset"] as const) {
        const text = yield* Effect.promise(() =>
          new Promise<string>((resolve) => {
            const socket = Net.connect(Number(port), "127.0.0.1")
            let text = ""
            const timer = setTimeout(() => socket.destroy(), 5_000)
            socket.on("data", (data) => (text += data.toString("utf8")))
            socket.on("error", () => undefined)
            socket.on("close", () => (clearTimeout(timer), resolve(text)))
            socket.on("connect", () => {
              socket.write(head)
              if (ending === "half-close") socket.end()
              else setTimeout(() => socket.resetAndDestroy(), 50)
            })
          })
        )
        if (ending === "half-close") assert.match(text, /^HTTP\/1\.1 400 /)
        else assert.strictEqual(text, "")
      }
      assert.strictEqual((yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))).status, 200)
    }))

  it.scopedLive("headers past Node's 16 KiB (one 20 KB header, or 3,000 small ones) are a 431 and a closed connection; the relay goes on", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const one = `GET /v1/agent/capabilities HTTP/1.1\r\nhost: ${new URL(url).host}\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`
      const many = `GET /v1/agent/capabilities HTTP/1.1\r\nhost: ${new URL(url).host}\r\n${Array.from({ length: 3_000 }, (_, i) => `h${i}: 1\r\n`).join("")}\r\n`
      for (const request of [one, many]) {
        const answer = yield* raw(url, [request])
        assert.isTrue(answer.closed)
        assert.match(answer.text, /^HTTP\/1\.1 431 /)
      }
      assert.strictEqual((yield* requestText(`${url}/v1/agent/capabilities`)).status, 200)
    }))

  it.scopedLive("every POST endpoint cuts a trickled body off with a 408 JSON error: chat completions, responses, gemini, and under a scenario", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, bodyTimeoutMs: 300, scenarios: new Map([["s", { profile, script }]]) })
      const paths = ["/v1/chat/completions", "/v1/responses", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "/scenarios/s/v1/chat/completions"]
      const answers = yield* Effect.all(
        paths.map((path) =>
          raw(url, [`POST ${path} HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`, ...Array.from({ length: 40 }, () => " ")], 100)
        ),
        { concurrency: "unbounded" }
      )
      answers.forEach((answer, i) => {
        assert.isTrue(answer.closed, paths[i])
        assert.match(answer.text, /^HTTP\/1\.1 408 /, paths[i])
        assert.match(answer.text, /did not arrive within 300 ms/, paths[i])
      })
    }))
})

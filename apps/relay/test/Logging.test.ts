import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { Relay } from "../src/index.js"
import { firstTurn, profile, request, requestText, script, turnBody } from "./fixtures.js"

describe("request log", () => {
  it.scopedLive("one line per request: method, path without its query, status, milliseconds", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => {
        lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
      }))
      const { url } = yield* Relay.start({ profile, script, faultHeaders: true }).pipe(Effect.provide(capture))
      yield* requestText(`${url}/v1/agent/capabilities?secret=1`)
      yield* requestText(`${url}/v1/agent/turns`, { method: "POST", body: turnBody(firstTurn), headers: { "content-type": "application/json" } })
      yield* requestText(`${url}/nowhere/%0a`)
      // a client that gives up before the answer: 499
      yield* Effect.either(Effect.tryPromise(() =>
        fetch(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "5000" }, signal: AbortSignal.timeout(100) })
      ))
      yield* request(`${url}/v1/agent/capabilities`)
      // the aborted request's line is written when the server sees the connection close: wait for it (bounded)
      yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => lines.length >= 5, times: 200 }))
      assert.strictEqual(lines.length, 5, lines.join("\n"))
      assert.match(lines[0]!, /^GET \/v1\/agent\/capabilities 200 \d+ms$/)
      assert.match(lines[1]!, /^POST \/v1\/agent\/turns 200 \d+ms$/)
      assert.match(lines[2]!, /^GET \/nowhere\/%0a 404 \d+ms$/)
      assert.deepStrictEqual(lines.slice(3).map((line) => line.replace(/\d+ms$/, "")).sort(), [
        "GET /v1/agent/capabilities 200 ",
        "GET /v1/agent/capabilities 499 "
      ])
    }))
})

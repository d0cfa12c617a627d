import { assert, describe, it } from "@effect/vitest"
import { RelayWire } from "@toolgate/providers"
import { Chunk, Effect, Stream } from "effect"
import { afterTool, blocks, firstTurn, parisArguments, post, profile, request, requestText, script, start, turnBody } from "./fixtures.js"

const json = { "content-type": "application/json" }

const turnsPath = "/v1/agent/turns"

/** The body's events as the providers' own decoder reads them. */
const decoded = (text: string) =>
  Stream.runCollect(RelayWire.decodeEvents(Stream.make(new TextEncoder().encode(text)))).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either)

describe("POST /v1/agent/turns", () => {
  it.scopedLive("streams the scripted round as server-sent events", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* post(`${url}${turnsPath}`, turnBody(firstTurn))
      assert.strictEqual(answer.status, 200)
      assert.match(answer.headers.get("content-type") ?? "", /text\/event-stream/)
      const events = blocks(answer.text)
      assert.deepStrictEqual(events.map((e) => e.event), ["message", "message", "message", "message"])
      assert.deepStrictEqual(events.map((e) => JSON.parse(e.data)._tag), ["TextDelta", "ToolCallComplete", "Usage", "Done"])
      const call = JSON.parse(events[1]!.data)
      assert.deepStrictEqual(call.arguments, JSON.parse(JSON.stringify(parisArguments)))
      const read = yield* decoded(answer.text)
      assert.isTrue(read._tag === "Right" && read.right.length === 4)
    }))

  it.scopedLive("a second request after the tool result selects round 2", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* post(`${url}${turnsPath}`, turnBody(afterTool))
      const texts = blocks(answer.text).map((e) => JSON.parse(e.data)).filter((e) => e._tag === "TextDelta").map((e) => e.text)
      assert.strictEqual(texts.join(""), "It is sunny in Paris.")
    }))

  it.scopedLive("a failure round is an error event with its reason and retryability", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const messages = [...afterTool, { _tag: "Assistant", text: "It is sunny in Paris.", toolCalls: [] }, { _tag: "User", text: "And tomorrow?" }]
      const answer = yield* post(`${url}${turnsPath}`, turnBody(messages))
      assert.strictEqual(answer.status, 200)
      const events = blocks(answer.text)
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]!.event, "error")
      assert.deepStrictEqual(JSON.parse(events[0]!.data), { reason: "the model is overloaded", retryable: true })
      const read = yield* decoded(answer.text)
      assert.isTrue(read._tag === "Left" && read.left.retryable === true)
    }))

  it.scopedLive("no such round: an error event that says which round", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const beyond = [...afterTool, { _tag: "Assistant", text: "again", toolCalls: [] }]
      const events = blocks((yield* post(`${url}${turnsPath}`, turnBody(beyond))).text)
      assert.strictEqual(events[0]!.event, "error")
      const data = JSON.parse(events[0]!.data)
      assert.match(data.reason, /no scripted round 3 of turn 1/)
      assert.isFalse(data.retryable)
      const none = blocks((yield* post(`${url}${turnsPath}`, turnBody([]))).text)
      assert.match(JSON.parse(none[0]!.data).reason, /no scripted round/)
    }))

  it.scopedLive("a body that is not JSON, or not a turn request, is a 400 JSON error", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const bodies = [
        "{not json",
        "",
        "null",
        "[]",
        JSON.stringify({ messages: "hi", tools: [], toolChoice: "auto" }),
        JSON.stringify({ messages: [{ _tag: "User", text: 42 }], tools: [], toolChoice: "auto" }),
        JSON.stringify({ messages: [], tools: [1], toolChoice: "auto" }),
        JSON.stringify({ messages: [], tools: [], toolChoice: "sometimes" })
      ]
      for (const body of bodies) {
        const answer = yield* post(`${url}${turnsPath}`, body)
        assert.strictEqual(answer.status, 400, body)
        const error = JSON.parse(answer.text).error
        assert.strictEqual(error.type, "invalid_request_error")
        assert.isString(error.message)
      }
      const notUtf8 = yield* requestText(`${url}${turnsPath}`, { method: "POST", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers: json })
      assert.strictEqual(notUtf8.status, 400)
    }))

  it.scopedLive("a body over maxBodyBytes is a 413, declared or streamed; the relay answers the next request", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxBodyBytes: 1_000 })
      const big = turnBody([{ _tag: "User", text: "x".repeat(2_000) }])
      const declared = yield* post(`${url}${turnsPath}`, big)
      assert.strictEqual(declared.status, 413)
      assert.match(JSON.parse(declared.text).error.message, /1000 bytes/)
      const streamed = yield* requestText(`${url}${turnsPath}`, {
        method: "POST",
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(big))
            controller.close()
          }
        }),
        duplex: "half",
        headers: json
      } as RequestInit)
      assert.strictEqual(streamed.status, 413)
      const fits = yield* post(`${url}${turnsPath}`, turnBody(firstTurn))
      assert.strictEqual(fits.status, 200)
    }))

  it.scopedLive("a client that disconnects mid-stream does not take the relay down", () =>
    Effect.gen(function*() {
      const long = { turns: [[Array.from({ length: 4_000 }, (_, i) => ({ _tag: "TextDelta" as const, text: `${i} ${"x".repeat(1_000)}` }))]] }
      const { url } = yield* start({ profile, script: long })
      for (let attempt = 0; attempt < 3; attempt++) {
        const abort = new AbortController()
        const response = yield* Effect.promise(() =>
          fetch(`${url}${turnsPath}`, { method: "POST", body: turnBody(firstTurn), headers: json, signal: AbortSignal.any([abort.signal, AbortSignal.timeout(5_000)]) })
        )
        const reader = response.body!.getReader()
        const first = yield* Effect.promise(() => reader.read())
        assert.isFalse(first.done)
        abort.abort()
        yield* Effect.promise(() => reader.cancel().catch(() => undefined))
      }
      const after = yield* requestText(`${url}/v1/agent/capabilities`)
      assert.strictEqual(after.status, 200)
      const response = yield* request(`${url}${turnsPath}`, { method: "POST", body: turnBody(firstTurn), headers: json, timeoutMs: 10_000 })
      const text = yield* Effect.promise(() => response.text())
      assert.strictEqual(blocks(text).length, 4_000)
    }))
})

describe("routes", () => {
  it.scopedLive("an unknown path is a 404 JSON error; a known path with another method a 405", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const missing = yield* requestText(`${url}/v1/nothing/here?x=1`)
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(JSON.parse(missing.text).error.type, "not_found")
      const root = yield* requestText(`${url}/`)
      assert.strictEqual(root.status, 404)
      const wrong = yield* requestText(`${url}${turnsPath}`)
      assert.strictEqual(wrong.status, 405)
      assert.strictEqual(wrong.headers.get("allow"), "POST")
      const put = yield* requestText(`${url}/v1/agent/capabilities`, { method: "PUT", body: "{}" })
      assert.strictEqual(put.status, 405)
      assert.match(JSON.parse(put.text).error.message, /PUT/)
    }))
})

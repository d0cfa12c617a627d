import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { blocks, firstTurn, post, profile, request, requestText, script, start, turnBody } from "./fixtures.js"

/** Reads a body until it ends or fails: the text that arrived and whether the read failed. */
const readAll = (response: Response) =>
  Effect.promise(async () => {
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return { text, failed: false }
        text += decoder.decode(value, { stream: true })
      }
    } catch {
      return { text, failed: true }
    }
  })

const turns = (url: string, headers: Record<string, string> = {}) =>
  request(`${url}/v1/agent/turns`, { method: "POST", body: turnBody(firstTurn), headers: { "content-type": "application/json", ...headers } })

describe("fault switches on every endpoint", () => {
  it.scopedLive("fail: a 500 JSON error, by header and by profile", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const byHeader = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn), { "x-toolgate-fault": "fail" })
      assert.strictEqual(byHeader.status, 500)
      assert.strictEqual(JSON.parse(byHeader.text).error.type, "server_error")
      const failing = yield* start({ profile: { ...profile, faults: ["fail"] }, script })
      for (const path of ["/v1/agent/capabilities"]) {
        const answer = yield* requestText(`${failing.url}${path}`)
        assert.strictEqual(answer.status, 500)
      }
      const chat = yield* post(`${failing.url}/v1/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      assert.strictEqual(chat.status, 500)
      assert.isString(JSON.parse(chat.text).error.message)
    }))

  it.scopedLive("garbage: 200 with a body that is not JSON (a streamed one: an event that is not JSON)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const capabilities = yield* requestText(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "garbage" } })
      assert.strictEqual(capabilities.status, 200)
      assert.throws(() => JSON.parse(capabilities.text))
      const streamed = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn), { "x-toolgate-fault": "garbage" })
      assert.strictEqual(streamed.status, 200)
      const events = blocks(streamed.text)
      assert.strictEqual(events.length, 1)
      assert.throws(() => JSON.parse(events[0]!.data))
      const byProfile = yield* start({ profile: { ...profile, faults: ["garbage"] }, script })
      const chat = yield* post(`${byProfile.url}/v1/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      assert.strictEqual(chat.status, 200)
      assert.throws(() => JSON.parse(chat.text))
    }))

  it.scopedLive("drop: the first event arrives, then the connection closes before the body ends", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const response = yield* turns(url, { "x-toolgate-fault": "drop" })
      assert.strictEqual(response.status, 200)
      const read = yield* readAll(response)
      assert.isTrue(read.failed, "the body read must fail: the connection closed mid-stream")
      const events = blocks(read.text)
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual(JSON.parse(events[0]!.data), { _tag: "TextDelta", text: "Checking the weather. " })
      // the relay still answers
      const after = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))
      assert.strictEqual(blocks(after.text).length, 4)
    }))

  it.scopedLive("drop on Chat Completions: the first chunk, then the connection closes (streamed and not)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const chat = (stream: boolean) =>
        request(`${url}/v1/chat/completions`, {
          method: "POST",
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream }),
          headers: { "content-type": "application/json", "x-toolgate-fault": "drop" }
        })
      const streamed = yield* readAll(yield* chat(true))
      assert.isTrue(streamed.failed)
      assert.strictEqual(blocks(streamed.text).length, 1)
      assert.deepStrictEqual(JSON.parse(blocks(streamed.text)[0]!.data).choices[0].delta, { role: "assistant", content: "" })
      const whole = yield* readAll(yield* chat(false))
      assert.isTrue(whole.failed)
      assert.throws(() => JSON.parse(whole.text))
    }))

  it.scopedLive("drop by profile: the capabilities body is cut in half", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile: { ...profile, faults: ["drop"] }, script })
      const response = yield* request(`${url}/v1/agent/capabilities`)
      const read = yield* readAll(response)
      assert.isTrue(read.failed)
      assert.isTrue(JSON.stringify(profile).startsWith(read.text))
      assert.isBelow(read.text.length, JSON.stringify(profile).length)
    }))

  it.scopedLive("slow: the answer comes after the delay, unchanged", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn), { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "50" })
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(blocks(answer.text).length, 4)
    }))

  it.scopedLive("slow: a client that waits less than the delay gives up (by header and by profile)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const gaveUp = yield* Effect.either(Effect.tryPromise(() =>
        fetch(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "10000" }, signal: AbortSignal.timeout(200) })
      ))
      assert.strictEqual(gaveUp._tag, "Left")
      const slow = yield* start({ profile: { ...profile, faults: ["slow"] }, script })
      const alsoGaveUp = yield* Effect.either(Effect.tryPromise(() =>
        fetch(`${slow.url}/v1/agent/capabilities`, { signal: AbortSignal.timeout(200) })
      ))
      assert.strictEqual(alsoGaveUp._tag, "Left")
      // the profile's default delay can be shortened per request
      const shortened = yield* requestText(`${slow.url}/v1/agent/capabilities`, { headers: { "x-toolgate-delay-ms": "10" } })
      assert.strictEqual(shortened.status, 200)
    }))
})

/**
 * Hostile bodies on `POST /v1/responses`: the same trust boundary as the other POST endpoints (JSON content
 * type, size, depth, UTF-8) and a decoder that refuses what is not a Responses request with a 400 naming
 * the field, over a real socket. A hostile script is a 500, never a crashed relay.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { blocks, polluted, post, profile, requestText, script, start } from "./fixtures.js"

const deep = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels)
const path = "/v1/responses"

describe("hostile requests on /v1/responses", () => {
  it.scopedLive("bodies that are not a Responses request: a 400 invalid_request_error naming what is wrong", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const bodies: ReadonlyArray<readonly [unknown, RegExp]> = [
        [{ input: "hi" }, /model/],
        [{ model: "m" }, /input/],
        [{ model: 5, input: "hi" }, /model/],
        [{ model: "m", input: 42 }, /input/],
        [{ model: "m", input: [{ role: "wizard", content: "hi" }] }, /input/],
        [{ model: "m", input: [{ type: "image_generation_call", id: "x" }] }, /input/],
        [{ model: "m", input: [{ type: "function_call", call_id: "c", name: "f", arguments: { city: "Paris" } }] }, /arguments/],
        [{ model: "m", input: [{ type: "function_call_output", output: "no call id" }] }, /call_id/],
        [{ model: "m", input: [{ role: "user", content: [{ text: "a part without a type" }] }] }, /type/],
        [{ model: "m", input: "hi", stream: "yes" }, /stream/],
        [{ model: "m", input: "hi", temperature: "warm" }, /temperature/],
        [{ model: "m", input: "hi", tools: [{ name: "no type" }] }, /tools/],
        [[{ model: "m", input: "hi" }], /Expected/],
        [null, /Expected/]
      ]
      for (const [body, names] of bodies) {
        const answer = yield* post(`${url}${path}`, JSON.stringify(body))
        assert.strictEqual(answer.status, 400, JSON.stringify(body))
        const error = JSON.parse(answer.text).error
        assert.strictEqual(error.type, "invalid_request_error")
        assert.match(error.message, /^not a responses request: /)
        assert.match(error.message, names, JSON.stringify(body))
      }
    }))

  it.scopedLive("truncated, not JSON, not UTF-8, not application/json, too large, too deep: refused before decoding", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxBodyBytes: 4_096 })
      const whole = JSON.stringify({ model: "m", input: [{ role: "user", content: "hi" }], stream: true })
      for (const cut of [whole.slice(0, 10), whole.slice(0, -1), "", "<html>"]) {
        const answer = yield* post(`${url}${path}`, cut)
        assert.strictEqual(answer.status, 400, cut)
        assert.match(JSON.parse(answer.text).error.message, /not JSON/)
      }
      const latin1 = yield* requestText(`${url}${path}`, { method: "POST", body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: { "content-type": "application/json" } })
      assert.strictEqual(latin1.status, 400)
      const plain = yield* requestText(`${url}${path}`, { method: "POST", body: whole, headers: { "content-type": "text/plain" } })
      assert.strictEqual(plain.status, 415)
      const huge = yield* post(`${url}${path}`, JSON.stringify({ model: "m", input: "x".repeat(10_000) }))
      assert.strictEqual(huge.status, 413)
      for (const body of [deep(300), `{"model":"m","input":[{"role":"user","content":${deep(300, "{\"type\":\"input_text\"}")}}]}`]) {
        const answer = yield* post(`${url}${path}`, body)
        assert.strictEqual(answer.status, 400)
        assert.match(JSON.parse(answer.text).error.message, /levels deep/)
      }
      const fine = yield* post(`${url}${path}`, whole)
      assert.strictEqual(fine.status, 200)
      assert.strictEqual(blocks(fine.text).at(-1)!.event, "response.completed")
    }))

  it.scopedLive("__proto__ call ids, names and outputs are data: the round is picked, nothing is polluted", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = "{\"__proto__\":{\"polluted\":true},\"model\":\"m\",\"input\":[" +
        "{\"role\":\"user\",\"content\":\"hi\",\"__proto__\":{\"polluted\":true}}," +
        "{\"type\":\"function_call\",\"call_id\":\"__proto__\",\"name\":\"constructor\",\"arguments\":\"{\\\"__proto__\\\":{\\\"polluted\\\":true}}\"}," +
        "{\"type\":\"function_call_output\",\"call_id\":\"__proto__\",\"output\":\"{\\\"__proto__\\\":{\\\"polluted\\\":true}}\"}]," +
        "\"tools\":[{\"type\":\"function\",\"name\":\"__proto__\"}]}"
      const answer = yield* post(`${url}${path}`, body)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(JSON.parse(answer.text).output[0].content[0].text, "It is sunny in Paris.")
      assert.isFalse(polluted())
    }))

  it.scopedLive("items a scripted model ignores (reasoning, item references) do not count as rounds", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const input = [
        { role: "user", content: "What is the weather in Paris?" },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "item_reference", id: "msg_0" }
      ]
      const answer = yield* post(`${url}${path}`, JSON.stringify({ model: "m", input }))
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(JSON.parse(answer.text).output.map((item: any) => item.type), ["message", "function_call"])
    }))

  it.scopedLive("a hostile script: odd events are encoded or a 500 JSON error, and the relay goes on", () =>
    Effect.gen(function*() {
      const odd = { turns: [[[{ _tag: "TextDelta", text: 5 }, { _tag: "ToolCallComplete", id: "c", name: "t", arguments: 10n }, { _tag: "Done" }]]] }
      const weird = yield* start({ profile, script: odd as never })
      const answer = yield* post(`${weird.url}${path}`, JSON.stringify({ model: "m", input: "hi" }))
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(JSON.parse(answer.text).output[1].arguments, "null")
      const throwing = { turns: [[[{ get _tag(): string { throw new Error("getter") } }]]] }
      const worse = yield* start({ profile, script: throwing as never })
      for (const stream of [true, false]) {
        const refused = yield* post(`${worse.url}${path}`, JSON.stringify({ model: "m", input: "hi", stream }))
        assert.strictEqual(refused.status, 500)
        assert.strictEqual(JSON.parse(refused.text).error.type, "server_error")
      }
      assert.strictEqual((yield* requestText(`${worse.url}/v1/agent/capabilities`)).status, 200)
    }))
})

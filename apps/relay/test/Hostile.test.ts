import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"
import { afterTool, blocks, firstTurn, polluted, post, profile, requestText, script, start, turnBody } from "./fixtures.js"

const deep = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels)
const deepObject = (levels: number) => "{\"a\":".repeat(levels) + "1" + "}".repeat(levels)

describe("hostile requests", () => {
  it.scopedLive("__proto__ keys in bodies are data, never a prototype", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const turn = "{\"__proto__\":{\"polluted\":true},\"messages\":[{\"_tag\":\"User\",\"text\":\"hi\",\"__proto__\":{\"polluted\":true}}],\"tools\":[\"__proto__\"],\"toolChoice\":\"auto\"}"
      const answer = yield* post(`${url}/v1/agent/turns`, turn)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(blocks(answer.text).length, 4)
      const constructor = "{\"constructor\":{\"prototype\":{\"polluted\":true}},\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"__proto__\",\"type\":\"function\",\"function\":{\"name\":\"constructor\",\"arguments\":\"{\\\"__proto__\\\":{\\\"polluted\\\":true}}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"__proto__\",\"content\":\"{\\\"__proto__\\\":{\\\"polluted\\\":true}}\"}]}"
      const chat = yield* post(`${url}/v1/chat/completions`, constructor)
      assert.strictEqual(chat.status, 200)
      assert.strictEqual(JSON.parse(chat.text).choices[0].message.content, "It is sunny in Paris.")
      // the scripted arguments carry an own `__proto__` key: it is sent as data
      const streamed = yield* post(`${url}/v1/agent/turns`, turnBody(firstTurn))
      const call = JSON.parse(blocks(streamed.text)[1]!.data)
      assert.isTrue(Object.hasOwn(call.arguments, "__proto__"))
      assert.isFalse(polluted())
    }))

  it.scopedLive("a 10,000-level JSON body is a 400, not a crash, even where the wire allows any JSON (call arguments)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      for (const body of [deep(10_000), deepObject(10_000), `{"messages":[{"_tag":"User","text":${deep(10_000)}}],"tools":[],"toolChoice":"auto"}`]) {
        const turns = yield* post(`${url}/v1/agent/turns`, body)
        assert.strictEqual(turns.status, 400)
        assert.isString(JSON.parse(turns.text).error.message)
        const chat = yield* post(`${url}/v1/chat/completions`, body)
        assert.strictEqual(chat.status, 400)
      }
      const chatDeep = `{"model":"m","messages":[{"role":"user","content":${deep(10_000, "{\"type\":\"text\"}")}}]}`
      assert.strictEqual((yield* post(`${url}/v1/chat/completions`, chatDeep)).status, 400)
      // a JSON value 10,000 levels deep where the wire allows any JSON (call arguments): past the depth limit
      const messages = [
        ...afterTool.slice(0, 1),
        { _tag: "Assistant", text: "", toolCalls: [{ id: "call_1", name: "get_weather", arguments: "x" }] }
      ]
      const withDeep = turnBody(messages).replace("\"arguments\":\"x\"", `"arguments":${deepObject(10_000)}`)
      const refused = yield* post(`${url}/v1/agent/turns`, withDeep)
      assert.strictEqual(refused.status, 400)
      assert.match(JSON.parse(refused.text).error.message, /more than 256 levels deep/)
      // 200 levels there is data
      const accepted = yield* post(`${url}/v1/agent/turns`, turnBody(messages).replace("\"arguments\":\"x\"", `"arguments":${deepObject(200)}`))
      assert.strictEqual(accepted.status, 200)
      assert.strictEqual(JSON.parse(blocks(accepted.text)[0]!.data).text, "It is sunny ")
    }))

  it.scopedLive("hostile headers and paths: control characters, long fault lists, huge delays", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const long = yield* requestText(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": ",".repeat(10_000) } })
      assert.strictEqual(long.status, 200)
      const huge = yield* requestText(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "99999999999" } })
      assert.strictEqual(huge.status, 400)
      const odd = yield* requestText(`${url}/v1/%00%0a/${"a".repeat(5_000)}`)
      assert.strictEqual(odd.status, 404)
      assert.isBelow(JSON.parse(odd.text).error.message.length, 300)
    }))

  it.scopedLive("50 concurrent requests over every endpoint all get their own answer", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0, timeout: 10_000 })
      const one = (i: number) => {
        switch (i % 3) {
          case 0:
            return Effect.map(post(`${url}/v1/agent/turns`, turnBody(i % 2 === 0 ? firstTurn : afterTool)), (answer) => {
              const texts = blocks(answer.text).map((b) => JSON.parse(b.data)).filter((e) => e._tag === "TextDelta").map((e) => e.text).join("")
              return texts === (i % 2 === 0 ? "Checking the weather. " : "It is sunny in Paris.")
            })
          case 1:
            return Effect.map(
              Effect.promise(() => client.chat.completions.create({ model: `m${i}`, messages: [{ role: "user", content: "hi" }] })),
              (completion) => completion.model === `m${i}` && completion.choices[0]!.finish_reason === "tool_calls"
            )
          default:
            return Effect.map(requestText(`${url}/v1/agent/capabilities`), (answer) => answer.status === 200 && JSON.parse(answer.text).capabilities_version === "1.0")
        }
      }
      const results = yield* Effect.all(Array.from({ length: 50 }, (_, i) => one(i)), { concurrency: "unbounded" })
      assert.deepStrictEqual(results, Array.from({ length: 50 }, () => true))
      // completion ids are distinct
      const ids = yield* Effect.all(Array.from({ length: 5 }, () => Effect.promise(() => client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }))), { concurrency: 5 })
      assert.strictEqual(new Set(ids.map((c) => c.id)).size, 5)
    }))

  it.scopedLive("a hostile config: a profile whose traps throw, a script that is not a script, events that are not events", () =>
    Effect.gen(function*() {
      const trap = new Proxy({}, { get: () => { throw new Error("trap") }, ownKeys: () => { throw new Error("trap") } })
      const broken = yield* start({ profile: trap, script: { turns: "not a list" } as never })
      const capabilities = yield* requestText(`${broken.url}/v1/agent/capabilities`)
      assert.strictEqual(capabilities.status, 500)
      assert.strictEqual(JSON.parse(capabilities.text).error.type, "server_error")
      const turn = blocks((yield* post(`${broken.url}/v1/agent/turns`, turnBody(firstTurn))).text)
      assert.strictEqual(turn[0]!.event, "error")
      // events that are not StreamEvents: error events, not lines a client could not decode
      const odd = { turns: [[[{ _tag: "TextDelta", text: 5 }, { _tag: "ToolCallComplete", id: "c", name: "t", arguments: 10n }]]] }
      const weird = yield* start({ profile, script: odd as never })
      const events = blocks((yield* post(`${weird.url}/v1/agent/turns`, turnBody(firstTurn))).text)
      assert.deepStrictEqual(events.map((e) => e.event), ["error", "error"])
      const chat = yield* post(`${weird.url}/v1/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      assert.strictEqual(chat.status, 200)
      assert.strictEqual(JSON.parse(chat.text).choices[0].message.tool_calls[0].function.arguments, "null")
      // an event whose getter throws: a 500 JSON error, and the relay goes on
      const throwing = { turns: [[[{ get _tag(): string { throw new Error("getter") } }]]] }
      const worse = yield* start({ profile, script: throwing as never })
      for (const path of ["/v1/agent/turns", "/v1/chat/completions"]) {
        const answer = yield* post(`${worse.url}${path}`, path.includes("chat") ? JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }) : turnBody(firstTurn))
        assert.strictEqual(answer.status, 500, path)
        assert.strictEqual(JSON.parse(answer.text).error.type, "server_error")
      }
      const after = yield* requestText(`${worse.url}/v1/agent/capabilities`)
      assert.strictEqual(after.status, 200)
    }))
})

/**
 * The relay's `/chat`: the AI SDK's chat endpoint over the demo's scripted model, tried with a real HTTP client
 * (and read back with the AI SDK's own `DefaultChatTransport`): the turn streams as UI message chunks ending
 * in `finish` and `[DONE]`; a scenario's chat shows its contract (a coerced call, a drift error); the chat id
 * keeps a session; the relay's Host, content type and size protections hold on it.
 */
import { assert, describe, it } from "@effect/vitest"
import { DefaultChatTransport, type UIMessageChunk } from "ai"
import { Effect } from "effect"
import * as http from "node:http"
import { Demo, Relay } from "../src/index.js"

const body = (id: string, text: string) => JSON.stringify({ id, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }], trigger: "submit-message" })

/** A POST as curl sends it: the raw answer, status and content type. */
const post = (url: string, payload: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", headers, body: payload })
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

/** The `data:` payloads of a server-sent events body. */
const dataOf = (text: string): Array<string> => text.split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => e.slice(6))

const chunksOf = (text: string): Array<UIMessageChunk> => dataOf(text).filter((d) => d !== "[DONE]").map((d) => JSON.parse(d) as UIMessageChunk)

describe("the relay's /chat", () => {
  it.scopedLive("streams the root scenario's turn as UI message chunks: text, the tool part, finish, [DONE]", () =>
    Effect.gen(function*() {
      const { url } = yield* Relay.start(Demo.config)
      const answer = yield* post(`${url}/chat`, body("c1", "What is the weather in Paris?"))
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.type, "text/event-stream")
      assert.strictEqual(dataOf(answer.text).at(-1), "[DONE]")
      const chunks = chunksOf(answer.text)
      assert.strictEqual(chunks[0]!.type, "start")
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "stop" })
      const types = chunks.map((c) => c.type)
      assert.includeMembers(types, ["data-toolgate-gate", "tool-input-available", "tool-output-available", "text-delta"])
      const said = chunks.flatMap((c) => c.type === "text-delta" ? [c.delta] : []).join("")
      assert.include(said, "It is 18 °C and sunny in Paris.")
    }))

  it.scopedLive("a scenario's chat shows its contract: the near-miss call coerced and run, the drift error as an error chunk", () =>
    Effect.gen(function*() {
      const { url } = yield* Relay.start(Demo.config)
      const nearMiss = chunksOf((yield* post(`${url}${Relay.scenarioPath("near-miss")}/chat`, body("c1", "15 days in Berlin?"))).text)
      const output = nearMiss.find((c) => c.type === "tool-output-available")
      assert.deepStrictEqual(output?.type === "tool-output-available" ? output.output : undefined, { city: "Berlin", temperature: 12, sky: "light rain" })
      const drift = chunksOf((yield* post(`${url}${Relay.scenarioPath("drift")}/chat`, body("c1", "Oslo?"))).text)
      assert.deepStrictEqual(drift.slice(-2).map((c) => c.type), ["error", "finish"])
      const error = drift.at(-2)
      assert.match(error?.type === "error" ? error.errorText : "", /^SchemaDriftError: /)
    }))

  it.scopedLive("read by the AI SDK's DefaultChatTransport; the same chat id goes on to its next turn", () =>
    Effect.gen(function*() {
      const { url } = yield* Relay.start(Demo.config)
      const transport = new DefaultChatTransport({ api: `${url}/chat` })
      const turn = (text: string) =>
        Effect.promise(async () => {
          const stream = await transport.sendMessages({ chatId: "same", messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }], trigger: "submit-message", messageId: undefined, abortSignal: undefined })
          const chunks: Array<UIMessageChunk> = []
          for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk)
          return chunks
        })
      const first = yield* turn("Paris?")
      const second = yield* turn("And again?")
      assert.deepStrictEqual([first.at(-1), second.at(-1)], [{ type: "finish", finishReason: "stop" }, { type: "finish", finishReason: "stop" }])
      // the second turn is the session's turn 2: its gate is not checked again (the toolkit was proven)
      assert.isTrue(first.some((c) => c.type === "data-toolgate-gate"))
      assert.isFalse(second.some((c) => c.type === "data-toolgate-gate"))
    }))

  it.scopedLive("the relay's protections hold: a wrong Host is a 403, text/plain a 415, an oversized body a 413, a bad body a 400", () =>
    Effect.gen(function*() {
      const { url } = yield* Relay.start({ ...Demo.config, maxBodyBytes: 2048 })
      const forbidden = yield* Effect.async<number>((resume) => {
        const request = http.request(`${url}/chat`, { method: "POST", headers: { host: "evil.example", "content-type": "application/json" }, setHost: false, agent: false }, (res) => {
          res.resume()
          resume(Effect.succeed(res.statusCode ?? 0))
        })
        request.end(body("c1", "hi"))
      })
      assert.strictEqual(forbidden, 403)
      assert.strictEqual((yield* post(`${url}/chat`, body("c1", "hi"), { "content-type": "text/plain" })).status, 415)
      assert.strictEqual((yield* post(`${url}/chat`, body("c1", "x".repeat(4096)))).status, 413)
      const bad = yield* post(`${url}/chat`, JSON.stringify({ id: "c1", messages: [], trigger: "submit-message" }))
      assert.strictEqual(bad.status, 400)
      assert.match(JSON.parse(bad.text).error.message, /not a chat request/)
      const get = yield* Effect.promise(() => fetch(`${url}/chat`))
      assert.strictEqual(get.status, 405)
    }))
})

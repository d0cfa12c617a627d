/**
 * Gemini's model paths over raw HTTP: what a path may ask for (`:streamGenerateContent`, `:generateContent`,
 * `:countTokens`, else a 404; GET a 405), errors in Google's shape, the JSON array answer without `alt=sse`, and hostile bodies refused at the same trust boundary as
 * the other POST endpoints (content type, size, depth, UTF-8, then the decoder), over a real socket.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { blocks, polluted, post, profile, requestText, script, start } from "./fixtures.js"

const deep = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels)
const path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
const question = { contents: [{ role: "user", parts: [{ text: "What is the weather in Paris?" }] }] }

describe("hostile requests on Gemini's model paths", () => {
  it.scopedLive("only the served methods are: other methods and ids are Google-shaped 404s, GET a 405 naming POST", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      for (const other of ["gemini-2.5-flash:embedContent", "gemini-2.5-flash:countTokens:x", "gemini-2.5-flash", ":streamGenerateContent", "%E0%A4%A:streamGenerateContent"]) {
        const answer = yield* post(`${url}/v1beta/models/${other}?alt=sse`, JSON.stringify(question))
        assert.strictEqual(answer.status, 404, other)
        assert.deepStrictEqual([JSON.parse(answer.text).error.code, JSON.parse(answer.text).error.status], [404, "NOT_FOUND"])
      }
      const undecodable = yield* requestText(`${url}/v1/%E0%A4%A`) // the router cannot match it: a JSON 404 all the same
      assert.strictEqual(undecodable.status, 404)
      assert.match(JSON.parse(undecodable.text).error.message, /not valid percent-encoding/)
      const get = yield* requestText(`${url}${path}?alt=sse`)
      assert.strictEqual(get.status, 405)
      assert.strictEqual(get.headers.get("allow"), "POST")
    }))

  it.scopedLive("without alt=sse the chunks come as one JSON array; with it, as data events; under a scenario too", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, scenarios: new Map([["s", { profile, script }]]) })
      const array = yield* post(`${url}${path}`, JSON.stringify(question))
      assert.strictEqual(array.headers.get("content-type"), "application/json")
      const chunks = JSON.parse(array.text)
      // every chunk carries a part; the last one also finishes the round
      assert.deepStrictEqual(chunks.map((c: any) => Object.keys(c.candidates[0].content.parts[0] ?? {})), [["text"], ["functionCall"]])
      assert.strictEqual(chunks[1].candidates[0].content.parts[0].functionCall.args.city, "Paris")
      assert.deepStrictEqual(chunks[1].usageMetadata, { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 })
      assert.deepStrictEqual(chunks.map((c: any) => c.candidates[0].finishReason), [undefined, "STOP"])
      const events = blocks((yield* post(`${url}/scenarios/s${path}?alt=sse`, JSON.stringify(question))).text)
      assert.deepStrictEqual(events.map((e) => e.event), ["message", "message"])
      assert.deepStrictEqual(events.map((e) => JSON.parse(e.data)), chunks.map((c: any) => ({ ...c, responseId: JSON.parse(events[0]!.data).responseId })))
      assert.isFalse(polluted())
    }))

  it.scopedLive("bodies that are not a generateContent request: a 400 naming what is wrong", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const bodies: ReadonlyArray<readonly [unknown, RegExp]> = [
        [{}, /contents/],
        [{ contents: "hi" }, /contents/],
        [{ contents: [{ role: "wizard", parts: [{ text: "hi" }] }] }, /role/],
        [{ contents: [{ role: "user", parts: "hi" }] }, /parts/],
        [{ contents: [{ role: "model", parts: [{ functionCall: { args: {} } }] }] }, /name/],
        [{ contents: [{ role: "user", parts: [{ functionResponse: { name: "f" } }] }] }, /response/],
        [{ contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: "text" } }] }] }, /response/],
        [{ contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: "{}" } }] }] }, /args/],
        [{ ...question, generationConfig: { temperature: "hot" } }, /temperature/],
        [{ ...question, tools: [{ functionDeclarations: [{ name: 5 }] }] }, /name/],
        [{ ...question, systemInstruction: "be terse" }, /systemInstruction/],
        [[question], /Expected/]
      ]
      for (const [body, names] of bodies) {
        const answer = yield* post(`${url}${path}?alt=sse`, JSON.stringify(body))
        assert.strictEqual(answer.status, 400, JSON.stringify(body))
        const message = JSON.parse(answer.text).error.message
        assert.match(message, /^not a generateContent request: /)
        assert.match(message, names, JSON.stringify(body))
      }
    }))

  it.scopedLive("{{functionDeclarations}} echoes each declaration's name and parameter fields as sent (__proto__ as data), (none) without tools", () =>
    Effect.gen(function*() {
      const echo = { turns: [[[{ _tag: "TextDelta", text: "{{functionDeclarations}}" }, { _tag: "Done" }]]] }
      const { url } = yield* start({ profile, script: echo as never })
      const textOf = (answer: { readonly text: string }): string => JSON.parse(answer.text)[0].candidates[0].content.parts[0].text
      const tools = "[{\"functionDeclarations\":[{\"name\":\"f\",\"description\":\"left out\",\"parameters\":{\"type\":\"OBJECT\",\"__proto__\":{\"polluted\":true}}}," +
        "{\"name\":\"g\",\"parametersJsonSchema\":true},{\"name\":\"h\"}]},{}]"
      const declared = yield* post(`${url}${path}`, `{"contents":${JSON.stringify(question.contents)},"tools":${tools}}`)
      assert.strictEqual(declared.status, 200)
      assert.strictEqual(textOf(declared), "[{\"name\":\"f\",\"parameters\":{\"type\":\"OBJECT\",\"__proto__\":{\"polluted\":true}}},{\"name\":\"g\",\"parametersJsonSchema\":true},{\"name\":\"h\"}]")
      assert.strictEqual(textOf(yield* post(`${url}${path}`, JSON.stringify(question))), "(none)")
      assert.strictEqual(textOf(yield* post(`${url}${path}`, JSON.stringify({ ...question, tools: [] }))), "[]")
      assert.isFalse(polluted())
    }))

  it.scopedLive("truncated, not JSON, not UTF-8, not application/json, too large, too deep: refused before decoding", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, maxBodyBytes: 4_096 })
      const whole = JSON.stringify(question)
      for (const cut of [whole.slice(0, 10), whole.slice(0, -1), ""]) {
        assert.strictEqual((yield* post(`${url}${path}?alt=sse`, cut)).status, 400, cut)
      }
      const latin1 = yield* requestText(`${url}${path}`, { method: "POST", body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: { "content-type": "application/json" } })
      assert.strictEqual(latin1.status, 400)
      assert.strictEqual((yield* requestText(`${url}${path}`, { method: "POST", body: whole, headers: { "content-type": "text/plain" } })).status, 415)
      assert.strictEqual((yield* post(`${url}${path}`, JSON.stringify({ contents: [{ parts: [{ text: "x".repeat(10_000) }] }] }))).status, 413)
      const deepArgs = `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":${deep(300, "{}")}}}]}]}`
      for (const body of [deep(300), deepArgs]) {
        const answer = yield* post(`${url}${path}`, body)
        assert.strictEqual(answer.status, 400)
        assert.match(JSON.parse(answer.text).error.message, /levels deep/)
      }
    }))

  it.scopedLive("__proto__ in args and responses is data; a hostile script is encoded or a 500, and the relay goes on", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = "{\"__proto__\":{\"polluted\":true},\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}," +
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"__proto__\",\"name\":\"constructor\",\"args\":{\"__proto__\":{\"polluted\":true}}}}]}," +
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"__proto__\",\"name\":\"constructor\",\"response\":{\"__proto__\":{\"polluted\":true}}}}]}]}"
      const answer = yield* post(`${url}${path}`, body)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(JSON.parse(answer.text)[0].candidates[0].content.parts[0].text, "It is sunny ")
      assert.isFalse(polluted())
      const odd = { turns: [[[{ _tag: "ToolCallComplete", id: "c", name: "t", arguments: 10n }, { _tag: "ToolCallComplete", id: "d", name: "t", arguments: "not json" }, { _tag: "Done" }]]] }
      const weird = yield* start({ profile, script: odd as never })
      const chunks = JSON.parse((yield* post(`${weird.url}${path}`, JSON.stringify(question))).text)
      assert.deepStrictEqual(chunks.slice(0, 2).map((c: any) => c.candidates[0].content.parts[0].functionCall.args), [{}, {}])
      const throwing = { turns: [[[{ get _tag(): string { throw new Error("getter") } }]]] }
      const worse = yield* start({ profile, script: throwing as never })
      const refused = yield* post(`${worse.url}${path}?alt=sse`, JSON.stringify(question))
      assert.strictEqual(refused.status, 500)
      assert.strictEqual((yield* requestText(`${worse.url}/v1/agent/capabilities`)).status, 200)
    }))
})

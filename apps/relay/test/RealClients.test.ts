/**
 * The relay against the official clients over loopback: `@google/genai` (a multi-turn chat streamed twice in
 * a row, `generateContent`, `countTokens`, Google-shaped errors) and `openai` (the model list, a round cut
 * before `Done`), and the `rate-limit` fault as each client (and `CloudRelay`) sees it.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ApiError, GoogleGenAI } from "@google/genai"
import { CloudRelay } from "@toolgate/providers"
import type { Script } from "@toolgate/providers"
import { Effect, Stream } from "effect"
import OpenAI from "openai"
import { post, profile, start } from "./fixtures.js"

/** Two plain turns, a turn cut before `Done`, and a turn the model refuses (not retryable). */
const script: Script.Script = {
  turns: [
    [[{ _tag: "TextDelta", text: "Hello " }, { _tag: "TextDelta", text: "there." }, { _tag: "Usage", inputTokens: 3, outputTokens: 2 }, { _tag: "Done" }]],
    [[{ _tag: "TextDelta", text: "Second answer." }, { _tag: "Done" }]],
    [[{ _tag: "TextDelta", text: "Cut sho" }]],
    [{ fail: { reason: "the model refuses this", retryable: false } }]
  ]
}

const gemini = (url: string, headers: Record<string, string> = {}) =>
  new GoogleGenAI({ apiKey: "not-a-key", httpOptions: { baseUrl: url, headers, timeout: 5_000 } })

const openai = (url: string, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey: "not-a-key", maxRetries: 0, timeout: 5_000, defaultHeaders: headers })

/** The text of a genai stream, read to its end. */
const streamedText = (stream: AsyncGenerator<{ readonly text?: string | undefined }>) =>
  Effect.promise(async () => {
    let text = ""
    for await (const chunk of stream) text += chunk.text ?? ""
    return text
  })

/** What a promise failed with (the test fails when it succeeds). */
const failure = <A>(promise: () => Promise<A>) =>
  Effect.promise(() => promise().then(() => undefined, (e: unknown) => e))

describe("@google/genai against the relay", () => {
  it.scopedLive("a chat streamed twice in a row: the first answer stays in the chat's history, the second turn gets its round", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const chat = gemini(url).chats.create({ model: "gemini-2.5-flash" })
      assert.strictEqual(yield* streamedText(yield* Effect.promise(() => chat.sendMessageStream({ message: "Hi" }))), "Hello there.")
      assert.strictEqual(yield* streamedText(yield* Effect.promise(() => chat.sendMessageStream({ message: "Again" }))), "Second answer.")
      const history = chat.getHistory(true)
      assert.deepStrictEqual(history.map((content) => content.role), ["user", "model", "model", "user", "model"])
    }))

  it.scopedLive("generateContent answers the round as one response; a round cut before Done has no finish reason", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const ai = gemini(url)
      const first = yield* Effect.promise(() => ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" }))
      assert.strictEqual(first.text, "Hello there.")
      assert.strictEqual(first.candidates?.[0]?.finishReason, "STOP")
      assert.deepStrictEqual([first.usageMetadata?.promptTokenCount, first.usageMetadata?.candidatesTokenCount], [3, 2])
      const contents = [
        { role: "user", parts: [{ text: "Hi" }] },
        { role: "model", parts: [{ text: "Hello there." }] },
        { role: "user", parts: [{ text: "Again" }] },
        { role: "model", parts: [{ text: "Second answer." }] },
        { role: "user", parts: [{ text: "Go on" }] }
      ]
      const cut = yield* Effect.promise(() => ai.models.generateContent({ model: "gemini-2.5-flash", contents }))
      assert.strictEqual(cut.text, "Cut sho")
      assert.isUndefined(cut.candidates?.[0]?.finishReason)
    }))

  it.scopedLive("countTokens gives an approximate count: characters / 4, rounded up", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const counted = yield* Effect.promise(() => gemini(url).models.countTokens({ model: "gemini-2.5-flash", contents: "x".repeat(41) }))
      assert.strictEqual(counted.totalTokens, 11)
    }))

  it.scopedLive("errors on Gemini's paths have Google's shape: the client reads their status and message", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const contents = ["a", "b", "c", "d"].flatMap((text, i) => [
        { role: "user", parts: [{ text }] },
        ...(i < 3 ? [{ role: "model", parts: [{ text: "ok" }] }] : [])
      ])
      const refused = yield* failure(() => gemini(url).models.generateContent({ model: "gemini-2.5-flash", contents }))
      assert.isTrue(refused instanceof ApiError && refused.status === 400, String(refused))
      assert.include((refused as ApiError).message, "the model refuses this")
      for (const [path, body, contentType, status, word] of [
        ["/v1beta/models/m:streamGenerateContent", "{}", "text/plain", 415, "INVALID_ARGUMENT"],
        ["/v1beta/models/m:streamGenerateContent", "{\"contents\": 1}", "application/json", 400, "INVALID_ARGUMENT"],
        ["/v1beta/models/m:embedContent", "{}", "application/json", 404, "NOT_FOUND"]
      ] as const) {
        const answer = yield* Effect.promise(() => fetch(`${url}${path}`, { method: "POST", body, headers: { "content-type": contentType } }))
        const json = (yield* Effect.promise(() => answer.json())) as { readonly error: Record<string, unknown> }
        assert.strictEqual(answer.status, status, path)
        assert.deepStrictEqual(Object.keys(json.error).sort(), ["code", "message", "status"], path)
        assert.deepStrictEqual([json.error["code"], json.error["status"]], [status, word], path)
      }
      const get = yield* Effect.promise(() => fetch(`${url}/v1beta/models/m:generateContent`))
      assert.deepStrictEqual([get.status, ((yield* Effect.promise(() => get.json())) as { readonly error: Record<string, unknown> }).error["status"]], [405, "UNIMPLEMENTED"])
    }))
})

describe("openai against the relay", () => {
  it.scopedLive("models.list names the relay's model", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const page = yield* Effect.promise(() => openai(url).models.list())
      assert.deepStrictEqual(page.data.map((model) => model.id), ["toolgate-scripted"])
    }))

  it.scopedLive("a round cut before Done, not streamed: finish_reason length, and a Responses status incomplete", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const client = openai(url)
      const messages = [
        { role: "user" as const, content: "Hi" },
        { role: "assistant" as const, content: "Hello there." },
        { role: "user" as const, content: "Again" },
        { role: "assistant" as const, content: "Second answer." },
        { role: "user" as const, content: "Go on" }
      ]
      const completion = yield* Effect.promise(() => client.chat.completions.create({ model: "m", messages }))
      assert.deepStrictEqual([completion.choices[0]?.message.content, completion.choices[0]?.finish_reason], ["Cut sho", "length"])
      const response = yield* Effect.promise(() => client.responses.create({ model: "m", input: messages }))
      assert.deepStrictEqual([response.status, response.incomplete_details?.reason, response.output_text], ["incomplete", "max_output_tokens", "Cut sho"])
      // a whole round is still completed
      const whole = yield* Effect.promise(() => client.responses.create({ model: "m", input: "Hi" }))
      assert.deepStrictEqual([whole.status, whole.incomplete_details], ["completed", null])
    }))
})

describe("the rate-limit fault: a 429 with retry-after on every endpoint", () => {
  it.scopedLive("openai, @google/genai and CloudRelay each see a retryable rate limit", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const fault = { "x-toolgate-fault": "rate-limit" }
      const limited = yield* failure(() => openai(url, fault).chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }] }))
      assert.isTrue(limited instanceof OpenAI.RateLimitError, String(limited))
      assert.strictEqual((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after"), "1")
      // the official client retries it (after the wait it was told), as it does a retryable status
      let sent = 0
      const retrying = new OpenAI({
        baseURL: `${url}/v1`,
        apiKey: "not-a-key",
        maxRetries: 1,
        timeout: 5_000,
        defaultHeaders: fault,
        fetch: (input, init) => (sent++, fetch(input, init))
      })
      yield* failure(() => retrying.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }] }))
      assert.strictEqual(sent, 2)
      const google = yield* failure(() => gemini(url, fault).models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" }))
      assert.isTrue(google instanceof ApiError && google.status === 429, String(google))
      assert.include((google as ApiError).message, "RESOURCE_EXHAUSTED")
      // CloudRelay: the profile switches the fault on for every request
      const relay = yield* start({ profile: { ...profile, faults: ["rate-limit"] }, script })
      const provider = yield* CloudRelay.make({ baseUrl: relay.url }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* Effect.flip(Stream.runDrain(provider.stream({ messages: [{ _tag: "User", text: "Hi" }], tools: [], toolChoice: "auto" })))
      assert.isTrue(error._tag === "ProviderError" && error.retryable && error.code === "rate_limited", String(error))
      assert.match(error.message, /retry-after: 1 s; rate limited/)
      const raw = yield* post(`${relay.url}/v1/agent/turns`, JSON.stringify({ messages: [], tools: [], toolChoice: "auto" }))
      assert.deepStrictEqual([raw.status, raw.headers.get("retry-after")], [429, "1"])
    }))
})

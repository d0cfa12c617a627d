/**
 * Gemini's stream, read from recorded `streamGenerateContent?alt=sse` bodies replayed over loopback in
 * random pieces: text, parallel function calls (ids, arguments, thought signatures), thought summaries
 * skipped, usage from the last chunk, Cloud Code Assist's `{ response }` wrapper; and every way a stream
 * ends badly: a malformed event, a cut connection, a body ending before its finish reason, a safety stop,
 * a blocked prompt, an error mid-stream.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { StreamEvent } from "@toolgate/runtime"
import { collect, cutOff, data, fixture, provider, replay, request, sent, start } from "./Gemini.support.js"

const text = (events: ReadonlyArray<StreamEvent.StreamEvent>) => events.flatMap((e) => e._tag === "TextDelta" ? [e.text] : []).join("")
const tags = (events: ReadonlyArray<StreamEvent.StreamEvent>) => [...new Set(events.map((e) => e._tag))]

describe("Gemini stream", () => {
  it.scopedLive("a text answer, cut anywhere (UTF-8 sequences and CRLF pairs included), reads the same: text, the last usage, Done", () =>
    Effect.gen(function*() {
      for (const seed of [1, 2, 3, 4, 5]) {
        const server = yield* start(replay(fixture("gemini-text.txt"), { seed, max: 17 }))
        const events = yield* collect(yield* provider(server))
        assert.strictEqual(text(events), "The weather in Paris is mild: 18 °C with light cloud. In Tokyo it is warmer, 24 °C — 晴れ.", `seed ${seed}`)
        // thoughts count as output: 31 candidates + 44 thoughts
        assert.deepStrictEqual(events.slice(-2), [{ _tag: "Usage", inputTokens: 12, outputTokens: 75 }, { _tag: "Done" }])
        assert.deepStrictEqual(tags(events), ["TextDelta", "Usage", "Done"])
      }
    }))

  it.scopedLive("parallel function calls: one ToolCallComplete each, arguments as sent, ids from the responseId", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-function-calls.txt"), { seed: 7 }))
      const events = yield* collect(yield* provider(server))
      assert.deepStrictEqual(events, [
        { _tag: "ToolCallComplete", id: "hDokacnbNsa-z7IP0Mm7kAw_0", name: "get_weather", arguments: { city: "Paris", days: 3 } },
        { _tag: "ToolCallComplete", id: "hDokacnbNsa-z7IP0Mm7kAw_1", name: "get_weather", arguments: { city: "Tokyo", days: "3" } },
        { _tag: "Usage", inputTokens: 96, outputTokens: 123 },
        { _tag: "Done" }
      ])
    }))

  it.scopedLive("arguments stay as JSON.parse made them: an own `__proto__` key stays a key, never a prototype", () =>
    Effect.gen(function*() {
      const server = yield* start(replay("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"set_volume\",\"args\":{\"__proto__\":{\"level\":3}}}}]},\"finishReason\":\"STOP\"}],\"responseId\":\"p\"}\r\n\r\n"))
      const [call] = yield* collect(yield* provider(server))
      assert.strictEqual(call?._tag, "ToolCallComplete")
      const args = call?._tag === "ToolCallComplete" ? call.arguments as object : {}
      assert.isTrue(Object.hasOwn(args, "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
      assert.isUndefined((args as { level?: unknown }).level)
    }))

  it.scopedLive("thought summaries are not text; a call's thought signature goes back with it in the next request", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-thoughts-text-call.txt"), { seed: 3 }))
      const gemini = yield* provider(server, { model: "gemini-3-pro-preview" })
      const events = yield* collect(gemini)
      assert.deepStrictEqual(events, [
        { _tag: "TextDelta", text: "Let me check that for you." },
        { _tag: "ToolCallComplete", id: "3Tokab_SIMq0z7IPx-yIuQ4_0", name: "get_weather", arguments: { city: "Oslo" } },
        { _tag: "Usage", inputTokens: 101, outputTokens: 89 },
        { _tag: "Done" }
      ])
      const call = { id: "3Tokab_SIMq0z7IPx-yIuQ4_0", name: "get_weather", arguments: { city: "Oslo" } }
      yield* collect(gemini, request({
        messages: [
          { _tag: "User", text: "Weather in Oslo?" },
          { _tag: "Assistant", text: "Let me check that for you.", toolCalls: [call] },
          { _tag: "ToolResult", callId: call.id, name: "get_weather", envelope: { ok: true, result: { celsius: 4 } } }
        ]
      }))
      assert.deepStrictEqual(sent(server, 1).contents[1], {
        role: "model",
        parts: [
          { text: "Let me check that for you." },
          { functionCall: { id: call.id, name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "EpYCCpMCAdHtim+Rk9zdWdnZXN0aW9uLXNpZ25hdHVyZQ==" }
        ]
      })
    }))

  it.scopedLive("Cloud Code Assist: the response under `response`, Claude's own call ids kept", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("cca-claude-tool.txt"), { seed: 11 }))
      const events = yield* collect(yield* provider(server, { endpoint: "cloudCodeAssist", model: "claude-sonnet-4-5", project: "toolgate-test" }))
      assert.deepStrictEqual(events, [
        { _tag: "TextDelta", text: "I'll look up the weather in Oslo." },
        { _tag: "ToolCallComplete", id: "toolu_vrtx_01LxGmZk3hQp9Ww2Jd4Nf8Ts", name: "get_weather", arguments: { city: "Oslo", days: 2 } },
        { _tag: "Usage", inputTokens: 412, outputTokens: 74 },
        { _tag: "Done" }
      ])
    }))

  it.scopedLive("a malformed event fails the round, not retryable, after the text before it", () =>
    Effect.gen(function*() {
      const first = fixture("gemini-text.txt").split("\r\n\r\n")[0]!
      for (const bad of ["data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"cut\"\r\n\r\n", data({ candidates: "none" })]) {
        const server = yield* start(replay(`${first}\r\n\r\n${bad}`))
        const error = yield* Effect.flip(collect(yield* provider(server)))
        assert.strictEqual(typeof error === "object" && error.reason, "malformed event")
        assert.strictEqual(typeof error === "object" && error.retryable, false)
      }
    }))

  it.scopedLive("a connection cut mid-stream fails the round, retryable", () =>
    Effect.gen(function*() {
      const body = fixture("gemini-text.txt")
      const server = yield* start(cutOff(body, body.indexOf("In Tokyo")))
      const error = yield* Effect.flip(collect(yield* provider(server)))
      assert.strictEqual(typeof error === "object" && error._tag, "ProviderError")
      if (typeof error !== "object") return
      assert.strictEqual(error.reason, "the response body broke off")
      assert.isTrue(error.retryable)
    }))

  it.scopedLive("a body that ends cleanly before a finish reason has no Done (the session reports missing_done)", () =>
    Effect.gen(function*() {
      const blocks = fixture("gemini-text.txt").split("\r\n\r\n")
      const server = yield* start(replay(`${blocks[0]}\r\n\r\n${blocks[1]}\r\n\r\n`))
      const events = yield* collect(yield* provider(server))
      assert.deepStrictEqual(tags(events), ["TextDelta"])
    }))

  it.scopedLive("finish reasons: SAFETY and RECITATION are final, MALFORMED_FUNCTION_CALL may pass on a new sample, MAX_TOKENS ends normally", () =>
    Effect.gen(function*() {
      const ending = (finishReason: string) =>
        data({ candidates: [{ content: { parts: [{ text: "Partial" }], role: "model" }, finishReason, index: 0, finishMessage: finishReason === "MALFORMED_FUNCTION_CALL" ? "Malformed function call: print(default_api.get_weather(city=Oslo" : undefined }], responseId: "r1" })
      for (const [reason, retryable] of [["SAFETY", false], ["RECITATION", false], ["MALFORMED_FUNCTION_CALL", true]] as const) {
        const server = yield* start(replay(ending(reason)))
        const error = yield* Effect.flip(collect(yield* provider(server)))
        assert.isTrue(typeof error === "object" && error.reason.startsWith(`the model stopped with ${reason}`), String(typeof error === "object" && error.reason))
        assert.strictEqual(typeof error === "object" && error.retryable, retryable, reason)
      }
      const server = yield* start(replay(ending("MAX_TOKENS")))
      assert.deepStrictEqual(yield* collect(yield* provider(server)), [{ _tag: "TextDelta", text: "Partial" }, { _tag: "Done" }])
    }))

  it.scopedLive("a blocked prompt and an error mid-stream fail with the server's words; a quota error may pass later", () =>
    Effect.gen(function*() {
      const blocked = yield* start(replay(data({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 }, responseId: "b" })))
      const e1 = yield* Effect.flip(collect(yield* provider(blocked)))
      assert.deepStrictEqual(typeof e1 === "object" && [e1.reason, e1.retryable], ["the prompt was blocked (PROHIBITED_CONTENT)", false])
      const quota = yield* start(replay(data({ error: { code: 429, message: "Resource exhausted. Please try again later.", status: "RESOURCE_EXHAUSTED" } })))
      const e2 = yield* Effect.flip(collect(yield* provider(quota)))
      assert.deepStrictEqual(typeof e2 === "object" && [e2.reason, e2.retryable], ["the server reported an error: RESOURCE_EXHAUSTED: Resource exhausted. Please try again later.", true])
      const invalid = yield* start(replay(data({ error: { code: 400, message: "Function calling config is invalid.", status: "INVALID_ARGUMENT" } })))
      const e3 = yield* Effect.flip(collect(yield* provider(invalid)))
      assert.strictEqual(typeof e3 === "object" && e3.retryable, false)
    }))
})

/**
 * How the Gemini provider fails, over loopback: HTTP errors with Google's error bodies (429 and 5xx may
 * pass when tried again, 400 and 403 not), the credential scrubbed from every server text, a JSON answer
 * where a stream was asked for, an unreachable server, a server that never answers, a body past its
 * byte budget.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { refusedUrl } from "./support/loopback.js"
import { answer, apiKey, collect, data, fixture, hang, provider, replay, start } from "./Gemini.support.js"

const googleError = (code: number, status: string, message: string, details: ReadonlyArray<unknown> = []) => ({ error: { code, message, status, details } })

describe("Gemini errors", () => {
  it.scopedLive("HTTP 429 (quota) and 503 may pass when tried again, with the server's status, message and retry delay", () =>
    Effect.gen(function*() {
      const quota = yield* start(answer(429, googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.", [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests" }] },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }
      ])))
      const e1 = yield* Effect.flip(collect(yield* provider(quota)))
      assert.deepStrictEqual(typeof e1 === "object" && [e1._tag, e1.provider, e1.retryable], ["ProviderError", "gemini", true])
      assert.strictEqual(typeof e1 === "object" && e1.reason, "HTTP 429: RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan and billing details. (retry in 37s)")
      const overloaded = yield* start(answer(503, googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")))
      const e2 = yield* Effect.flip(collect(yield* provider(overloaded)))
      assert.deepStrictEqual(typeof e2 === "object" && [e2.reason, e2.retryable], ["HTTP 503: UNAVAILABLE: The model is overloaded. Please try again later.", true])
    }))

  it.scopedLive("HTTP 400 and 403 will not pass when tried again; a key the server echoes is scrubbed", () =>
    Effect.gen(function*() {
      const invalid = yield* start(answer(400, [googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[x].type: must be specified\n")]))
      const e1 = yield* Effect.flip(collect(yield* provider(invalid)))
      assert.deepStrictEqual(typeof e1 === "object" && [e1.reason, e1.retryable], [
        "HTTP 400: INVALID_ARGUMENT: * GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[x].type: must be specified",
        false
      ])
      const denied = yield* start(answer(403, googleError(403, "PERMISSION_DENIED", `API key ${apiKey} is not valid for this project.`)))
      const e2 = yield* Effect.flip(collect(yield* provider(denied)))
      assert.strictEqual(typeof e2 === "object" && e2.retryable, false)
      assert.notInclude(typeof e2 === "object" ? e2.message : "", apiKey)
      assert.include(typeof e2 === "object" ? e2.message : "", "API key [redacted] is not valid")
      const html = yield* start(answer(404, "<html><body>Not Found</body></html>", "text/html"))
      const e3 = yield* Effect.flip(collect(yield* provider(html)))
      assert.deepStrictEqual(typeof e3 === "object" && [e3.reason, e3.retryable], ["HTTP 404: <html><body>Not Found</body></html>", false])
    }))

  it.scopedLive("a JSON answer where a stream was asked for is said to be one, not retryable", () =>
    Effect.gen(function*() {
      const server = yield* start(answer(200, { candidates: [{ content: { parts: [{ text: "Hi" }], role: "model" }, finishReason: "STOP" }] }))
      const error = yield* Effect.flip(collect(yield* provider(server)))
      assert.isTrue(typeof error === "object" && error.reason.startsWith("the server answered JSON instead of an event stream"))
      assert.strictEqual(typeof error === "object" && error.retryable, false)
    }))

  it.scopedLive("an unreachable server and one that never answers may pass when tried again", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(collect(yield* provider({ baseUrl: yield* refusedUrl, requests: [] })))
      assert.deepStrictEqual(typeof refused === "object" && [refused.reason, refused.retryable], ["the request failed", true])
      const silent = yield* start(hang)
      const timedOut = yield* Effect.flip(collect(yield* provider(silent, { timeout: "300 millis" })))
      assert.deepStrictEqual(typeof timedOut === "object" && [timedOut.reason, timedOut.retryable], ["no response within 300ms", true])
    }))

  it.scopedLive("a body that goes quiet mid-stream fails the round, retryable", () =>
    Effect.gen(function*() {
      const first = `${fixture("gemini-text.txt").split("\r\n\r\n")[0]!}\r\n\r\n`
      const server = yield* start(replay(first, { end: false }))
      const error = yield* Effect.flip(collect(yield* provider(server, { idleTimeout: "400 millis" })))
      assert.deepStrictEqual(typeof error === "object" && [error.reason, error.retryable], ["no event for 400ms", true])
    }))

  it.scopedLive("a body past maxRoundBytes fails the round, not retryable, and is not read further", () =>
    Effect.gen(function*() {
      const first = `${fixture("gemini-text.txt").split("\r\n\r\n")[0]!}\r\n\r\n`
      const server = yield* start(replay(first.repeat(200) + data({ candidates: [{ content: { parts: [] }, finishReason: "STOP" }] }), { max: 2048 }))
      const error = yield* Effect.flip(collect(yield* provider(server, { maxRoundBytes: 4096 })))
      assert.deepStrictEqual(typeof error === "object" && [error.reason, error.retryable], ["the round's body exceeded 4096 bytes", false])
      const fine = yield* collect(yield* provider(server, { maxRoundBytes: 1024 * 1024 }))
      assert.strictEqual(fine.at(-1)?._tag, "Done")
    }))
})

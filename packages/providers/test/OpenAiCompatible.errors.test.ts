import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Logger, LogLevel, Redacted } from "effect"
import type { Duration } from "effect"
import type { Errors, StreamEvent } from "@toolgate/runtime"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { answer, collect, data, fixture, hang, provider, replay, start } from "./OpenAiCompatible.support.js"
import type { Reply } from "./OpenAiCompatible.support.js"

const key = "sk-proj-Zx81KqWv3nTq0aLr9YcE"

/** The round's outcome: its events, or the ProviderError it failed with (a timeout of the test itself fails the test). */
const outcome = (reply: Reply, timeout: Duration.DurationInput = "5 seconds") =>
  Effect.gen(function*() {
    const server = yield* start(reply)
    const result = yield* Effect.either(collect(yield* provider(server, { apiKey: Redacted.make(key), timeout, idleTimeout: timeout })))
    if (Either.isLeft(result) && typeof result.left === "string") return assert.fail(result.left)
    return result as Either.Either<ReadonlyArray<StreamEvent.StreamEvent>, Errors.ProviderError>
  })

/** The ProviderError a round failed with. */
const failure = (reply: Reply, timeout?: Duration.DurationInput) =>
  Effect.gen(function*() {
    const result = yield* outcome(reply, timeout)
    if (Either.isRight(result)) return assert.fail(`expected a ProviderError, got ${JSON.stringify(result.right)}`)
    assert.strictEqual(result.left._tag, "ProviderError")
    assert.strictEqual(result.left.provider, "openai-compatible")
    return result.left
  })

/** Every text an error shows: its message, its fields as JSON, its string form. */
const shown = (e: Errors.ProviderError) => `${e.message}\n${JSON.stringify(e)}\n${String(e)}\n${e.cause ?? ""}`

/** Writes `head`, then destroys the socket (a body that breaks off mid-chunk). */
const breakOff = (head: string): Reply => (_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream" })
  res.write(head, () => setTimeout(() => res.destroy(), 20))
}

/** A URL on loopback where nothing listens. */
const refused = Effect.async<string>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}/v1`)))
  })
})

describe("OpenAiCompatible: failures", () => {
  it.scopedLive("401 is not retryable and carries the server's message, with an echoed key scrubbed", () =>
    Effect.gen(function*() {
      const e = yield* failure(answer(401, { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } }))
      assert.isFalse(e.retryable)
      assert.include(e.reason, "HTTP 401: Incorrect API key provided: [redacted].")
      assert.notInclude(shown(e), key)
    }), 30_000)

  it.scopedLive("429 and 5xx are retryable with the server's message; other 4xx are not", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Reply, boolean, string]> = [
        [answer(429, { error: { message: "Rate limit reached for gpt-4o: 30000 TPM.", type: "tokens", code: "rate_limit_exceeded" } }), true, "HTTP 429: Rate limit reached for gpt-4o: 30000 TPM."],
        [answer(500, { error: { code: 500, message: "failed to load model", type: "server_error" } }), true, "HTTP 500: failed to load model"],
        [answer(503, "upstream connect error", "text/plain"), true, "HTTP 503: upstream connect error"],
        [answer(400, { error: "model \"qwen3:4b\" not found, try pulling it first" }), false, "HTTP 400: model \"qwen3:4b\" not found, try pulling it first"],
        [answer(404, "<html><body><h1>404 Not Found</h1></body></html>", "text/html"), false, "HTTP 404: <html><body><h1>404 Not Found</h1></body></html>"],
        [answer(422, ""), false, "HTTP 422: (no message)"]
      ]
      for (const [reply, retryable, reason] of cases) {
        const e = yield* failure(reply)
        assert.strictEqual(e.reason, reason)
        assert.strictEqual(e.retryable, retryable, reason)
      }
    }), 30_000)

  it.scopedLive("a 200 with JSON instead of an event stream says so, with the server's message", () =>
    Effect.gen(function*() {
      const error = yield* failure(answer(200, { error: { message: "tools are not supported by this model" } }))
      assert.strictEqual(error.reason, "the server answered JSON instead of an event stream: tools are not supported by this model")
      assert.isFalse(error.retryable)
      const whole = yield* failure(answer(200, { id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }] }))
      assert.match(whole.reason, /^the server answered JSON instead of an event stream: \{"id":"chatcmpl-1"/)
    }), 30_000)

  it.scopedLive("a megabyte error body becomes a short message", () =>
    Effect.gen(function*() {
      const e = yield* failure(answer(502, { error: { message: "x".repeat(1_000_000) } }))
      assert.isTrue(e.retryable)
      assert.isBelow(e.reason.length, 400)
      assert.match(e.reason, /^HTTP 502: x+…$/)
    }), 30_000)

  it.scopedLive("a server that never answers is a retryable ProviderError after the timeout", () =>
    Effect.gen(function*() {
      const e = yield* failure(hang, "300 millis")
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "no response within 300ms")
    }), 30_000)

  it.scopedLive("a server that stops sending mid-body is a retryable ProviderError after the timeout", () =>
    Effect.gen(function*() {
      const recorded = fixture("openai-parallel-tools.txt")
      const e = yield* failure(replay(recorded.slice(0, recorded.indexOf("tool_calls")), { end: false }), "300 millis")
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "no event for 300ms")
    }), 30_000)

  it.scopedLive("a refused connection is retryable and says why", () =>
    Effect.gen(function*() {
      const url = yield* refused
      const result = yield* Effect.either(collect(yield* provider({ baseUrl: url, requests: [] }, { apiKey: Redacted.make(key) })))
      assert.isTrue(Either.isLeft(result) && typeof result.left !== "string")
      const e = (result as Either.Left<Errors.ProviderError, unknown>).left
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "the request failed")
      assert.include(e.cause ?? "", "ECONNREFUSED")
      assert.notInclude(shown(e), key)
    }), 30_000)

  it.scopedLive("a body that ends before the choice finished has no Done (and no call), wherever it is cut", () =>
    Effect.gen(function*() {
      const recorded = fixture("openai-parallel-tools.txt")
      const finish = recorded.indexOf("data: {", recorded.indexOf("\"finish_reason\":\"tool_calls\"") - 400)
      for (const at of [1, 180, 700, 1500, 2600, finish - 1]) {
        const result = yield* outcome(replay(recorded.slice(0, at)))
        assert.isTrue(Either.isRight(result), `cut at ${at}`)
        const got = Either.isRight(result) ? result.right : []
        assert.isFalse(got.some((e) => e._tag === "Done" || e._tag === "ToolCallComplete" || e._tag === "Usage"), `cut at ${at}`)
      }
    }), 30_000)

  it.scopedLive("a body that breaks off (the socket closes mid-chunk) is a retryable ProviderError", () =>
    Effect.gen(function*() {
      const recorded = fixture("openai-text.txt")
      const e = yield* failure(breakOff(recorded.slice(0, 1234)))
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "the response body broke off")
    }), 30_000)

  it.scopedLive("garbage data lines are a malformed chunk, not retryable", () =>
    Effect.gen(function*() {
      const head = data({ choices: [{ index: 0, delta: { role: "assistant", content: "Hi" } }] })
      for (const garbage of ["hello", "{\"choices\": 5}", "[1,2]", "{\"choices\":[{\"delta\":{\"content\":7}}]}", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":\"0\"}]}}]}", "{\"usage\":{\"prompt_tokens\":\"many\"}}", "{\"choices\":[{\"index\":0,\"delta\":{\"con"]) {
        const e = yield* failure(replay(`${head}${data(garbage)}${data("[DONE]")}`))
        assert.strictEqual(e.reason, "malformed chunk", garbage)
        assert.isFalse(e.retryable)
        assert.isString(e.cause)
      }
    }), 30_000)

  it.scopedLive("content after the choice finished is a malformed chunk", () =>
    Effect.gen(function*() {
      const e = yield* failure(replay(`${data({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}${data({ choices: [{ index: 0, delta: { content: "more" } }] })}`))
      assert.strictEqual(e.reason, "malformed chunk")
      assert.strictEqual(e.cause, "content or a tool call after the choice finished")
    }), 30_000)

  it.scopedLive("an error the server reports mid-stream fails the round with its message (scrubbed)", () =>
    Effect.gen(function*() {
      const head = data({ choices: [{ index: 0, delta: { content: "Hel" } }] })
      const overloaded = yield* failure(replay(`${head}${data({ error: { message: `The server is overloaded (key ${key})`, type: "server_error" } })}`))
      assert.isTrue(overloaded.retryable)
      assert.strictEqual(overloaded.reason, "the server reported an error: The server is overloaded (key [redacted])")
      const named = yield* failure(replay(`${head}event: error\ndata: {"error":{"message":"context length exceeded","type":"invalid_request_error","code":"context_length_exceeded"}}\n\n`))
      assert.isFalse(named.retryable)
      assert.strictEqual(named.reason, "the server reported an error: context length exceeded")
      const raw = yield* failure(replay(`${head}event: error\ndata: boom\n\n`))
      assert.strictEqual(raw.reason, "the server reported an error: boom")
    }), 30_000)

  it.scopedLive("the API key appears in no error and no log line of any failure, at every log level", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.make(({ annotations, message }) => lines.push(`${JSON.stringify(message)} ${JSON.stringify([...annotations])}`))
      const replies: ReadonlyArray<Reply> = [
        answer(401, { error: { message: `bad key ${key}` } }),
        answer(500, `oops ${key}`, "text/plain"),
        replay(`${data({ error: `mid-stream ${key}` })}`),
        replay(`${data(`not json ${key}`)}`),
        replay(`event: error\ndata: ${key}\n\n`),
        hang
      ]
      for (const reply of replies) {
        const exit = yield* Effect.exit(failure(reply, "200 millis").pipe(
          Effect.tap((e) => Effect.logDebug("failed", e)),
          Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
          Logger.withMinimumLogLevel(LogLevel.All)
        ))
        assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")
        if (Exit.isSuccess(exit)) assert.notInclude(shown(exit.value), key)
      }
      // every failure was logged (with the error's fields), so the check below reads real lines
      assert.strictEqual(lines.filter((line) => line.startsWith('["failed",')).length, replies.length)
      for (const line of lines) assert.notInclude(line, key)
    }), 30_000)
})

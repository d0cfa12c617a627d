import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema, Stream } from "effect"
import type { Errors, Provider, StreamEvent } from "@toolgate/runtime"
import * as CloudRelay from "../src/CloudRelay.js"
import * as RelayWire from "../src/RelayWire.js"
import { answer, events, httpClient, refusedUrl, start, stream } from "./support/loopback.js"
import { assistant, result, user } from "./support/messages.js"

const provider = (baseUrl: string, options: Omit<CloudRelay.Options, "baseUrl"> = {}) =>
  CloudRelay.make({ baseUrl, timeout: "3 seconds", idleTimeout: "3 seconds", ...options }).pipe(Effect.provide(httpClient))

const weather: Provider.ToolDefinition = {
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string", description: "SECRET-SCHEMA-MARKER" } } },
  strict: false
}
const search: Provider.ToolDefinition = { name: "search", description: "d", parameters: { type: "object" }, strict: true }

const request: Provider.CompletionRequest = {
  messages: [user("weather in Oslo?"), assistant("", 1), result("call_1")],
  tools: [weather, search],
  toolChoice: "required"
}

const turn: ReadonlyArray<StreamEvent.StreamEvent> = [
  { _tag: "TextDelta", text: "It is " },
  { _tag: "ToolCallComplete", id: "c1", name: "get_weather", arguments: { city: "Oslo" } },
  { _tag: "Usage", inputTokens: 10, outputTokens: 5 },
  { _tag: "Done" }
]

/** The events a stream emitted and how it ended. */
const run = (relay: Provider.AgentProvider, req: Provider.CompletionRequest = request) =>
  Effect.gen(function*() {
    const seen: Array<StreamEvent.StreamEvent> = []
    const outcome = yield* relay.stream(req).pipe(Stream.runForEach((e) => Effect.sync(() => seen.push(e))), Effect.either)
    return { seen, error: Either.isLeft(outcome) ? outcome.left : undefined }
  })

const failed = (error: Errors.ProviderError | undefined): Errors.ProviderError => {
  assert.isDefined(error, "the stream should have failed")
  assert.strictEqual(error!._tag, "ProviderError")
  assert.strictEqual(error!.provider, "cloud-relay")
  return error!
}

describe("CloudRelay: the request", () => {
  it.scopedLive("POSTs the conversation, the tool NAMES only and the tool choice to /v1/agent/turns", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(...turn.map(RelayWire.encodeEvent)))
      const { error, seen } = yield* run(yield* provider(server.url))
      assert.isUndefined(error)
      assert.deepStrictEqual(seen, turn)
      const [received] = server.received
      assert.strictEqual(received?.method, "POST")
      assert.strictEqual(received?.path, "/v1/agent/turns")
      assert.strictEqual(received?.headers["content-type"], "application/json")
      assert.strictEqual(received?.headers["accept"], "text/event-stream")
      const body = JSON.parse(received!.body) as unknown
      assert.deepStrictEqual(body, { messages: request.messages, tools: ["get_weather", "search"], toolChoice: "required" })
      assert.isTrue(Either.isRight(Schema.decodeUnknownEither(RelayWire.TurnRequest)(body)))
      assert.notInclude(received!.body, "SECRET-SCHEMA-MARKER")
      assert.notInclude(received!.body, "parameters")
    }), 20_000)

  it.scopedLive("the system prompt, sampling and a tool-call cap ride the turns request when the session gives them", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(...turn.map(RelayWire.encodeEvent)))
      const full = { ...request, systemPrompt: "You are terse.", sampling: { temperature: 0.5, maxTokens: 10 }, maxToolCallsPerTurn: 3 }
      yield* run(yield* provider(server.url), full)
      const body = JSON.parse(server.received[0]!.body) as unknown
      assert.deepStrictEqual(body, {
        messages: request.messages,
        tools: ["get_weather", "search"],
        toolChoice: "required",
        systemPrompt: "You are terse.",
        sampling: { temperature: 0.5, maxTokens: 10 },
        maxToolCallsPerTurn: 3
      })
      assert.isTrue(Either.isRight(Schema.decodeUnknownEither(RelayWire.TurnRequest)(body)))
    }), 20_000)

  it.scopedLive("a base URL with a trailing slash or a path prefix", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(RelayWire.encodeEvent({ _tag: "Done" })))
      yield* run(yield* provider(`${server.url}/`))
      yield* run(yield* provider(`${server.url}/relay//`))
      assert.deepStrictEqual(server.received.map((r) => r.path), ["/v1/agent/turns", "/relay/v1/agent/turns"])
    }), 20_000)

  it.scopedLive("events arrive in order, whatever pieces the body comes in and however slowly", () =>
    Effect.gen(function*() {
      const wire = turn.map(RelayWire.encodeEvent).join("")
      const server = yield* start((_r, res) => {
        const write = events(res)
        let at = 0
        const next = () => {
          if (at >= wire.length) return void res.end()
          write(wire.slice(at, at + 7))
          at += 7
          setTimeout(next, 2)
        }
        next()
      })
      const { error, seen } = yield* run(yield* provider(server.url))
      assert.isUndefined(error)
      assert.deepStrictEqual(seen, turn)
    }), 20_000)

  it.scopedLive("a request that cannot be encoded fails before anything is sent, not retryable", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(RelayWire.encodeEvent({ _tag: "Done" })))
      const relay = yield* provider(server.url)
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      const bad = [
        { ...request, messages: [{ _tag: "Assistant", text: "", toolCalls: [{ id: "c", name: "t", arguments: cyclic }] }] },
        { ...request, messages: [{ _tag: "User", text: 42 }] },
        { ...request, tools: [{ name: 7 }] },
        { ...request, toolChoice: "sometimes" },
        null,
        { messages: "hi" }
      ] as unknown as ReadonlyArray<Provider.CompletionRequest>
      for (const req of bad) {
        const error = failed((yield* run(relay, req)).error)
        assert.isFalse(error.retryable)
        assert.strictEqual(error.reason, "the request does not fit the relay's wire format")
      }
      assert.strictEqual(server.received.length, 0)
    }), 20_000)
})

describe("CloudRelay: failures are ProviderErrors that say whether to retry", () => {
  const status = (code: number, body = `{"error":{"message":"relay says ${code}","type":"x"}}`) =>
    Effect.gen(function*() {
      const server = yield* start(answer(body, code))
      return failed((yield* run(yield* provider(server.url))).error)
    })

  it.scopedLive("5xx, 408 and 429 are retryable; other 4xx are not; the relay's message is the cause", () =>
    Effect.gen(function*() {
      for (const code of [500, 502, 503, 408, 429]) {
        const error = yield* status(code)
        assert.isTrue(error.retryable, String(code))
        assert.strictEqual(error.reason, `the relay answered HTTP ${code}`)
        assert.strictEqual(error.cause, `relay says ${code}`)
      }
      for (const code of [400, 401, 404, 413, 422]) {
        assert.isFalse((yield* status(code)).retryable, String(code))
      }
      const raw = yield* status(502, "<html>bad gateway</html>")
      assert.strictEqual(raw.cause, "<html>bad gateway</html>")
      const huge = yield* status(500, "x".repeat(100_000))
      assert.isTrue((huge.cause ?? "").length <= 301)
    }), 30_000)

  it.scopedLive("a relay that accepts and never answers: ProviderError after the timeout, retryable", () =>
    Effect.gen(function*() {
      const server = yield* start(() => {})
      const error = failed((yield* run(yield* provider(server.url, { timeout: "300 millis" }))).error)
      assert.isTrue(error.retryable)
      assert.strictEqual(error.reason, "the relay did not answer within 300ms")
      assert.strictEqual(server.received.length, 1)
    }), 20_000)

  it.scopedLive("a relay that sends one event then hangs: the event, then the idle timeout, retryable", () =>
    Effect.gen(function*() {
      const server = yield* start((_r, res) => events(res)(RelayWire.encodeEvent(turn[0]!)))
      const { error, seen } = yield* run(yield* provider(server.url, { idleTimeout: "300 millis" }))
      assert.deepStrictEqual(seen, [turn[0]])
      const e = failed(error)
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "no event for 300ms")
    }), 20_000)

  // Node answers a stream with chunked transfer encoding; a socket closed before the last (empty) chunk is
  // a body fetch knows is incomplete, so the stream fails (retryable) rather than ending quietly.
  it.scopedLive("a relay that drops the socket mid-stream: the events before, then a retryable ProviderError", () =>
    Effect.gen(function*() {
      const server = yield* start((_r, res) => {
        events(res)(RelayWire.encodeEvent(turn[0]!))
        setTimeout(() => res.socket?.destroy(), 20)
      })
      const { error, seen } = yield* run(yield* provider(server.url))
      assert.deepStrictEqual(seen, [turn[0]])
      const e = failed(error)
      assert.isTrue(e.retryable)
      assert.strictEqual(e.reason, "the relay's stream broke off")
    }), 20_000)

  it.scopedLive("a body that ENDS cleanly without Done is passed through as it is (the event contract reports it)", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(RelayWire.encodeEvent(turn[0]!), "data: {\"_tag\":\"Te"))
      const { error, seen } = yield* run(yield* provider(server.url))
      assert.isUndefined(error)
      assert.deepStrictEqual(seen, [turn[0]])
    }), 20_000)

  it.scopedLive("garbage: a 200 that is not an event stream, or an event that is not JSON, is not retryable", () =>
    Effect.gen(function*() {
      const html = yield* start(answer("<html>this is not JSON {", 200, "text/html"))
      const notStream = failed((yield* run(yield* provider(html.url))).error)
      assert.strictEqual(notStream.reason, "the relay did not answer with an event stream")
      assert.strictEqual(notStream.cause, "content-type: text/html; body: <html>this is not JSON {")
      assert.isFalse(notStream.retryable)
      const json = yield* start(answer("{\"events\":[]}", 200))
      assert.isFalse(failed((yield* run(yield* provider(json.url))).error).retryable)
      const garbage = yield* start(stream("data: <html>this is not JSON: the relay's garbage fault {\n\n"))
      const malformed = failed((yield* run(yield* provider(garbage.url))).error)
      assert.strictEqual(malformed.reason, "malformed event")
      assert.isFalse(malformed.retryable)
    }), 20_000)

  it.scopedLive("an event: error block from the relay is its ProviderError, after the events before it", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(RelayWire.encodeEvent(turn[0]!), RelayWire.encodeError("model overloaded", true)))
      const { error, seen } = yield* run(yield* provider(server.url))
      assert.deepStrictEqual(seen, [turn[0]])
      const e = failed(error)
      assert.strictEqual(e.reason, "model overloaded")
      assert.isTrue(e.retryable)
    }), 20_000)

  it.scopedLive("nothing listening: could not be reached, retryable, with the system code", () =>
    Effect.gen(function*() {
      const error = failed((yield* run(yield* provider(yield* refusedUrl))).error)
      assert.isTrue(error.retryable)
      assert.strictEqual(error.reason, "the relay could not be reached")
      assert.include(error.cause ?? "", "ECONNREFUSED")
    }), 20_000)
})

describe("CloudRelay: construction", () => {
  it.effect("a base URL, timeout or limit that cannot work fails at build as InvalidOptions (not a relay outage)", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<unknown> = [
        { baseUrl: "ftp://relay" },
        { baseUrl: "relay:8080" },
        { baseUrl: "" },
        { baseUrl: 42 },
        null,
        { baseUrl: "http://127.0.0.1:1", timeout: 0 },
        { baseUrl: "http://127.0.0.1:1", timeout: Number.NaN },
        { baseUrl: "http://127.0.0.1:1", idleTimeout: "banana" },
        { baseUrl: "http://127.0.0.1:1", idleTimeout: "0 millis" },
        { baseUrl: "http://127.0.0.1:1", maxRoundBytes: 0 },
        { baseUrl: "http://127.0.0.1:1", maxEventLength: 1.5 },
        { baseUrl: "http://127.0.0.1:1", maxRequestBytes: 100 }
      ]
      for (const options of bad) {
        const error = yield* Effect.flip(CloudRelay.make(options as CloudRelay.Options).pipe(Effect.provide(httpClient)))
        assert.strictEqual(error._tag, "InvalidOptions", JSON.stringify(options))
        assert.strictEqual(error.of, "CloudRelay")
      }
    }))

  it.effect("declares its capabilities honestly: app-driven, names only, networked, no structured output", () =>
    Effect.gen(function*() {
      const relay = yield* CloudRelay.make({ baseUrl: "http://127.0.0.1:1" }).pipe(Effect.provide(httpClient))
      // the context window keeps a history's messages within 3/4 of the relay's default 1 MiB body limit
      assert.deepStrictEqual(relay.capabilities, { ...CloudRelay.capabilities, contextWindow: 196_608 })
      assert.deepStrictEqual(
        { ...CloudRelay.capabilities },
        {
          name: "cloud-relay",
          executionModel: "appDriven",
          supportsToolCalling: true,
          supportsParallelToolCalls: true,
          supportsToolChoice: true,
          supportsStructuredOutput: false,
          schemaDialect: "none",
          maxTools: undefined,
          contextWindow: undefined,
          managedConversation: false,
          requiresNetworking: true,
          supportsSamplingConfig: true
        }
      )
      assert.deepStrictEqual(yield* relay.validateTools!([weather, search]), [])
    }))

  it.scopedLive("a stream sends nothing until it runs, and each run is one request", () =>
    Effect.gen(function*() {
      const server = yield* start(stream(RelayWire.encodeEvent({ _tag: "Done" })))
      const relay = yield* provider(server.url)
      const once = relay.stream(request)
      yield* Effect.sleep("50 millis")
      assert.strictEqual(server.received.length, 0)
      yield* Stream.runDrain(once)
      yield* Stream.runDrain(once)
      assert.strictEqual(server.received.length, 2)
    }), 20_000)
})

/**
 * Vision, per-request models and the in-flight tracker on the HTTP providers, as a loopback server
 * receives them: a user's images as Chat Completions `image_url` parts and Gemini `inlineData` /
 * `fileData` parts, a send's model in the body or the path, refusals before any request, and the tracker
 * told when a request over a real socket starts and ends (interrupted included).
 */
import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Deferred, Effect, Either, Fiber, Redacted } from "effect"
import { AgentSession, ArgumentValidator, type Message, type Provider, Toolkit } from "@toolgate/runtime"
import * as Gemini from "../src/Gemini.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { apiKey, provider as gemini, sent } from "./Gemini.support.js"
import { collect, fixture, hang, provider as openAi, replay, request, start } from "./OpenAiCompatible.support.js"

const png: Message.Image = { _tag: "ImageData", mediaType: "image/png", data: "iVBORw0KGgo=" }
const url: Message.Image = { _tag: "ImageUrl", url: "https://example.com/cat.jpg", mediaType: "image/jpeg" }
const bare: Message.Image = { _tag: "ImageUrl", url: "gs://bucket/dog.webp" }
const looking: ReadonlyArray<Message.Message> = [{ _tag: "User", text: "What is this?", images: [png, url, bare] }]

const toolkit = Either.getOrThrow(Toolkit.make())
const session = (p: Provider.AgentProvider) =>
  AgentSession.make({ provider: p, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))

describe("OpenAiCompatible: vision and model selection", () => {
  it.scopedLive("a user's images go as image_url parts after the text, inline ones as data: URLs", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-text.txt")))
      yield* collect(yield* openAi(server, { capabilities: { supportsVision: true } }), request({ messages: looking }))
      assert.deepStrictEqual(sent(server).messages, [{
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "image_url", image_url: { url: "gs://bucket/dog.webp" } }
        ]
      }])
    }), 30_000)

  it.scopedLive("declares no vision by default: a session refuses images before any request; declared, they are sent", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-text.txt")))
      assert.isFalse(OpenAiCompatible.capabilities.supportsVision)
      const s = yield* session(yield* openAi(server))
      assert.strictEqual((yield* Effect.flip(s.send("look", { images: [png] })))._tag, "VisionUnsupported")
      assert.strictEqual(server.requests.length, 0)
      const seeing = yield* session(yield* openAi(server, { capabilities: { supportsVision: true } }))
      yield* seeing.send("look", { images: [png] })
      assert.strictEqual(sent(server).messages[0].content[1].type, "image_url")
    }), 30_000)

  it.scopedLive("perRequest: a send's model replaces the provider's in that request's body only", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-text.txt")))
      assert.strictEqual(OpenAiCompatible.capabilities.modelSelection, "perRequest")
      const s = yield* session(yield* openAi(server))
      yield* s.send("x", { model: "bigger-model" })
      yield* s.send("y")
      assert.strictEqual(sent(server, 0).model, "bigger-model")
      assert.strictEqual(sent(server, 1).model, "test-model")
      const fixed = yield* session(yield* openAi(server, { capabilities: { modelSelection: "fixed" } }))
      assert.strictEqual((yield* Effect.flip(fixed.send("z", { model: "other" })))._tag, "ModelSelectionUnsupported")
      assert.strictEqual(server.requests.length, 2)
    }), 30_000)

  it.effect("capability flags and a tracker of the wrong type fail make as InvalidOptions", () =>
    Effect.gen(function*() {
      const base = { baseUrl: "http://127.0.0.1:1/v1", model: "m" }
      for (const bad of [{ capabilities: { supportsVision: "yes" } }, { capabilities: { modelSelection: "any" } }, { inFlightTracker: { started: 1 } }]) {
        const error = yield* Effect.flip(OpenAiCompatible.make({ ...base, ...bad } as never).pipe(Effect.provide(FetchHttpClient.layer)))
        assert.strictEqual(error._tag, "InvalidOptions")
      }
    }))
})

describe("Gemini: vision and model selection", () => {
  it.scopedLive("a user's images go as inlineData and fileData parts after the text", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      yield* collect(yield* gemini(server), request({ messages: looking }))
      assert.deepStrictEqual(sent(server).contents, [{
        role: "user",
        parts: [
          { text: "What is this?" },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
          { fileData: { fileUri: "gs://bucket/dog.webp" } }
        ]
      }])
    }), 30_000)

  it.scopedLive("perRequest on the Gemini API: a send's model goes in that request's path; fixed on Cloud Code Assist", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("gemini-text.txt")))
      const s = yield* session(yield* gemini(server))
      yield* s.send("x", { model: "gemini-2.5-pro" })
      yield* s.send("y")
      assert.strictEqual(server.requests[0]!.path, "/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
      assert.strictEqual(server.requests[1]!.path, "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      const cca = yield* Gemini.make({
        baseUrl: server.baseUrl,
        model: "claude-sonnet-4-5",
        endpoint: "cloudCodeAssist",
        accessToken: Redacted.make(apiKey)
      }).pipe(Effect.provide(FetchHttpClient.layer))
      assert.strictEqual(cca.capabilities.modelSelection, "fixed")
      assert.isFalse(cca.capabilities.supportsVision)
      assert.strictEqual((yield* Effect.flip((yield* session(cca)).send("z", { images: [png] })))._tag, "VisionUnsupported")
      assert.strictEqual(server.requests.length, 2)
    }), 30_000)
})

describe("hostile images handed to a provider directly", () => {
  it.scopedLive("what is no image is a ProviderError that is not retried, and nothing is sent", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(fixture("openai-text.txt")))
      for (const p of [yield* openAi(server, { capabilities: { supportsVision: true } }), yield* gemini(server)]) {
        for (const image of [{ _tag: "Picture" }, { _tag: "ImageData", mediaType: "image/png" }, { _tag: "ImageUrl", url: 7 }]) {
          const messages = [{ _tag: "User", text: "x", images: [image] }] as unknown as ReadonlyArray<Message.Message>
          const error = yield* Effect.flip(collect(p, request({ messages })))
          assert.isTrue(typeof error === "object" && error._tag === "ProviderError" && !error.retryable, JSON.stringify(error))
        }
      }
      assert.strictEqual(server.requests.length, 0)
    }), 30_000)
})

describe("inFlightTracker over a real socket", () => {
  it.scopedLive("started when the request goes out, finished when the send is interrupted while the server is silent", () =>
    Effect.gen(function*() {
      const server = yield* start(hang)
      const log: Array<string> = []
      const out = yield* Deferred.make<void>()
      const inFlightTracker: Provider.InFlightTracker = {
        started: (id) => Effect.zipRight(Effect.sync(() => void log.push(`+${id}`)), Deferred.succeed(out, undefined)),
        finished: (id) => Effect.sync(() => void log.push(`-${id}`))
      }
      const p = yield* openAi(server, { inFlightTracker })
      const s = yield* AgentSession.make({ id: "s", provider: p, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const fiber = yield* Effect.fork(s.send("hello"))
      yield* Deferred.await(out)
      while (server.requests.length === 0) yield* Effect.sleep("10 millis")
      assert.deepStrictEqual(log, ["+s:1:1"])
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(log, ["+s:1:1", "-s:1:1"])
    }), 30_000)

  it.scopedLive("finished when the request fails (a refused connection) on Gemini", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const inFlightTracker: Provider.InFlightTracker = {
        started: (id) => Effect.sync(() => void log.push(`+${id}`)),
        finished: (id) => Effect.sync(() => void log.push(`-${id}`))
      }
      const p = yield* gemini({ baseUrl: "http://127.0.0.1:1/v1", requests: [] }, { inFlightTracker })
      const s = yield* AgentSession.make({ id: "g", provider: p, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual((yield* Effect.flip(s.send("hello")))._tag, "ProviderError")
      assert.deepStrictEqual(log, ["+g:1:1", "-g:1:1"])
    }), 30_000)
})

/**
 * A user's images through the bridge, against loopback servers speaking the real wires: the Responses API
 * through `OpenAiLanguageModel` (`input_image` with a `data:` URL for inline bytes, the URL as given) and
 * the Messages API through `AnthropicLanguageModel` (`image` blocks, base64 or url sources); the generic
 * bridge declares no vision, so a session refuses images before any request; and the `inFlightTracker`
 * option reaches the session.
 */
import { assert, describe, it } from "@effect/vitest"
import { AgentSession, ArgumentValidator, type Message, Toolkit } from "@toolgate/runtime"
import { LanguageModel, type Response } from "@effect/ai"
import { Effect, Either, Exit, Stream } from "effect"
import { AiProvider } from "../src/index.js"
import * as Anthropic from "./support/anthropic.js"
import { serve, sse } from "./support/loopback.js"
import * as Responses from "./support/responses.js"
import { languageModel } from "./support/session.js"

const png: Message.Image = { _tag: "ImageData", mediaType: "image/png", data: "iVBORw0KGgo=" }
const url: Message.Image = { _tag: "ImageUrl", url: "https://example.com/cat.jpg", mediaType: "image/jpeg" }
const toolkit = Either.getOrThrow(Toolkit.make())

describe("AiProvider: images", () => {
  it.scopedLive("over OpenAiLanguageModel: input_image parts after the text, inline bytes as a data: URL", () =>
    Effect.gen(function*() {
      const server = yield* serve([sse(...Responses.created(), ...Responses.message(0, "A cat."), ...Responses.completed(10, 2))])
      const model = yield* languageModel(Responses.model(server.url))
      const s = yield* AgentSession.make({ provider: AiProvider.fromLanguageModel(model, AiProvider.openAi), toolkit, mode: "local" })
      assert.strictEqual((yield* s.send("What is this?", { images: [png, url] })).text, "A cat.")
      const content = server.requests[0]!.body.input[0].content
      assert.deepStrictEqual(content.map((c: any) => [c.type, c.text ?? c.image_url]), [
        ["input_text", "What is this?"],
        ["input_image", "data:image/png;base64,iVBORw0KGgo="],
        ["input_image", "https://example.com/cat.jpg"]
      ])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("over AnthropicLanguageModel: image blocks with base64 and url sources", () =>
    Effect.gen(function*() {
      const server = yield* serve([sse(...Anthropic.recorded(Anthropic.start("msg_1", 10), Anthropic.textBlock(0, "A cat."), Anthropic.stop("end_turn", 2)))])
      const model = yield* languageModel(Anthropic.model(server.url))
      const s = yield* AgentSession.make({ provider: AiProvider.fromLanguageModel(model, AiProvider.anthropic), toolkit, mode: "local" })
      yield* s.send("What is this?", { images: [png, url] })
      const content = server.requests[0]!.body.messages[0].content
      assert.deepStrictEqual(content.filter((c: any) => c.type === "image").map((c: any) => c.source), [
        { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
        { type: "url", url: "https://example.com/cat.jpg" }
      ])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.scopedLive("the generic declaration has no vision and one fixed model: both refused before any request", () =>
    Effect.gen(function*() {
      const server = yield* serve([])
      const model = yield* languageModel(Responses.model(server.url))
      const s = yield* AgentSession.make({ provider: AiProvider.fromLanguageModel(model), toolkit, mode: "local" })
      assert.strictEqual((yield* Effect.flip(s.send("look", { images: [png] })))._tag, "VisionUnsupported")
      assert.strictEqual((yield* Effect.flip(s.send("look", { model: "gpt-x" })))._tag, "ModelSelectionUnsupported")
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("hostile images handed to the provider directly: a ProviderError that is not retried, never a defect, no model call", () =>
    Effect.gen(function*() {
      let calls = 0
      const model = yield* LanguageModel.make({
        streamText: () => (calls++, Stream.empty),
        generateText: () => Effect.dieMessage("not used")
      })
      const provider = AiProvider.fromLanguageModel(model, AiProvider.openAi)
      const getter = Object.defineProperty({ _tag: "ImageData", mediaType: "image/png" }, "data", { get: () => { throw new Error("boom") } })
      for (const image of [
        { _tag: "ImageData", mediaType: "image/png", data: "not base64!" },
        { _tag: "ImageUrl", url: "not a url" },
        { _tag: "Picture" },
        getter
      ]) {
        const exit = yield* Effect.exit(Stream.runDrain(provider.stream({ messages: [{ _tag: "User", text: "x", images: [image as never] }], tools: [], toolChoice: "auto" })))
        assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Fail", JSON.stringify(image))
        if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
          assert.strictEqual(exit.cause.error._tag, "ProviderError")
          assert.isFalse(exit.cause.error.retryable)
        }
      }
      assert.strictEqual(calls, 0)
    }))

  it.effect("an inFlightTracker given in the options is told when each request starts and ends", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const model = yield* LanguageModel.make({
        streamText: () =>
          Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "text-delta", id: "t", delta: "hi" },
            { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
          ),
        generateText: () => Effect.dieMessage("not used")
      })
      const inFlightTracker = {
        started: (id: string) => Effect.sync(() => void log.push(`+${id}`)),
        finished: (id: string) => Effect.sync(() => void log.push(`-${id}`))
      }
      const provider = AiProvider.fromLanguageModel(model, { inFlightTracker })
      const s = yield* AgentSession.make({ id: "b", provider, toolkit, mode: "local" })
      assert.strictEqual((yield* s.send("x")).text, "hi")
      assert.deepStrictEqual(log, ["+b:1:1", "-b:1:1"])
    }).pipe(Effect.provide(ArgumentValidator.layer)))
})

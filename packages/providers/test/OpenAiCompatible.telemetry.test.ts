/**
 * The spans of a session over OpenAiCompatible on a loopback server: each round trip is one `chat {model}`
 * span (client) naming the model the provider was made with, and the provider's `OpenAiCompatible.stream`
 * span under it carries the transport (`url.full`), not a second `chat` operation.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { AgentSession, ArgumentValidator, Toolkit } from "@toolgate/runtime"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"
import { data, provider, start } from "./OpenAiCompatible.support.js"

describe("OpenAiCompatible spans", () => {
  it.scopedLive("one chat {model} span per round trip, with the request's sampling and the reported usage; the transport span under it", () =>
    Effect.gen(function*() {
      const server = yield* start((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(
          data({ choices: [{ index: 0, delta: { role: "assistant", content: "Hi." }, finish_reason: null }] }) +
            data({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 2 } }) +
            data("[DONE]")
        )
      })
      const s = yield* AgentSession.make({
        provider: yield* provider(server, { model: "gpt-test" }),
        toolkit: Either.getOrThrow(Toolkit.make()),
        mode: "local"
      }).pipe(Effect.provide(ArgumentValidator.layer))
      const { spans, tracer } = RecordingTracer.make()
      yield* s.send("Hello.", { sampling: { temperature: 0.5 } }).pipe(Effect.withTracer(tracer))
      const chats = spans.filter((span) => span.attributes.get("gen_ai.operation.name") === "chat")
      assert.deepStrictEqual(chats.map((span) => [span.name, span.kind, span.parent]), [["chat gpt-test", "client", "invoke_agent"]])
      const chat = chats[0]!.attributes
      assert.deepStrictEqual(
        ["gen_ai.provider.name", "gen_ai.request.model", "gen_ai.request.temperature", "gen_ai.response.finish_reasons", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"]
          .map((key) => chat.get(key)),
        ["openai-compatible", "gpt-test", 0.5, ["stop"], 5, 2]
      )
      const transport = spans.find((span) => span.name === "OpenAiCompatible.stream")!
      assert.strictEqual(transport.parent, "chat gpt-test")
      assert.strictEqual(transport.attributes.get("url.full"), `${server.baseUrl}/chat/completions`)
      assert.strictEqual(transport.attributes.get("gen_ai.request.model"), "gpt-test")
      assert.isFalse(transport.attributes.has("gen_ai.operation.name"))
    }), 30_000)

  it.scopedLive("a refused request: the turn, its chat span and the transport span under it carry error.type ProviderError", () =>
    Effect.gen(function*() {
      const server = yield* start((_req, res) => {
        res.writeHead(401, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "bad key" } }))
      })
      const s = yield* AgentSession.make({ provider: yield* provider(server), toolkit: Either.getOrThrow(Toolkit.make()), mode: "local" }).pipe(
        Effect.provide(ArgumentValidator.layer)
      )
      const { spans, tracer } = RecordingTracer.make()
      const error = yield* Effect.flip(s.send("Hello.").pipe(Effect.withTracer(tracer)))
      assert.strictEqual(error._tag, "ProviderError")
      assert.deepStrictEqual(
        spans.map((span) => [span.name, span.parent, span.attributes.get("error.type")]).slice(0, 3),
        [["invoke_agent", undefined, "ProviderError"], ["chat test-model", "invoke_agent", "ProviderError"], ["OpenAiCompatible.stream", "chat test-model", "ProviderError"]]
      )
    }), 30_000)
})

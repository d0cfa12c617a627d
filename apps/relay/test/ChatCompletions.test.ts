import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions"
import { blocks, parisArguments, polluted, post, profile, script, start, zurichArguments } from "./fixtures.js"

/** The official client against a relay: no retries, a timeout per request. */
const clientOf = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "not-a-key", maxRetries: 0, timeout: 5_000 })

const tools = [{
  type: "function" as const,
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
}]

const question: Array<ChatCompletionMessageParam> = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "What is the weather in Paris?" }
]

/** The first turn after its call was answered (tool_calls in, a tool message in). */
const answered: Array<ChatCompletionMessageParam> = [
  ...question,
  {
    role: "assistant",
    content: "Checking the weather. ",
    tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }]
  },
  { role: "tool", tool_call_id: "call_1", content: "{\"ok\":true,\"result\":{\"sky\":\"sunny\"}}" }
]

/** Turn 3 of the script: two earlier turns (the second one failed and was rolled back to its user message). */
const thirdTurn: Array<ChatCompletionMessageParam> = [
  ...answered,
  { role: "assistant", content: "It is sunny in Paris." },
  { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
  { role: "user", content: "And in Zürich?" }
]

describe("POST /v1/chat/completions with the official openai client", () => {
  it.scopedLive("not streamed: a tool call with its arguments and finish_reason tool_calls", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const completion = yield* Effect.promise(() => clientOf(url).chat.completions.create({ model: "scripted", messages: question, tools }))
      assert.strictEqual(completion.object, "chat.completion")
      assert.strictEqual(completion.model, "scripted")
      const choice = completion.choices[0]!
      assert.strictEqual(choice.finish_reason, "tool_calls")
      assert.strictEqual(choice.message.content, "Checking the weather. ")
      const call = choice.message.tool_calls![0]!
      assert.strictEqual(call.id, "call_1")
      assert.isTrue(call.type === "function" && call.function.name === "get_weather")
      assert.deepStrictEqual(call.type === "function" ? JSON.parse(call.function.arguments) : undefined, JSON.parse(JSON.stringify(parisArguments)))
      assert.deepStrictEqual(completion.usage, { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 })
      assert.isFalse(polluted())
    }))

  it.scopedLive("not streamed: after the tool message, the text answer with finish_reason stop", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const completion = yield* Effect.promise(() => clientOf(url).chat.completions.create({ model: "scripted", messages: answered, tools }))
      assert.strictEqual(completion.choices[0]!.finish_reason, "stop")
      assert.strictEqual(completion.choices[0]!.message.content, "It is sunny in Paris.")
      assert.isUndefined(completion.choices[0]!.message.tool_calls)
    }))

  it.scopedLive("streamed: tool call deltas assemble into the scripted arguments; usage when asked", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const stream = yield* Effect.promise(() =>
        clientOf(url).chat.completions.create({ model: "scripted", messages: question, tools, stream: true, stream_options: { include_usage: true } })
      )
      const collected = yield* Effect.promise(async () => {
        let content = ""
        let finish: string | null = null
        let usage: unknown = undefined
        let argumentDeltas = 0
        const calls = new Map<number, { id?: string; name?: string; arguments: string }>()
        for await (const chunk of stream) {
          assert.strictEqual(chunk.object, "chat.completion.chunk")
          if (chunk.usage) usage = chunk.usage
          const choice = chunk.choices[0]
          if (choice === undefined) continue
          content += choice.delta.content ?? ""
          finish = choice.finish_reason ?? finish
          for (const delta of choice.delta.tool_calls ?? []) {
            const call = calls.get(delta.index) ?? { arguments: "" }
            if (delta.id !== undefined) call.id = delta.id
            if (delta.function?.name !== undefined) call.name = delta.function.name
            if (delta.function?.arguments) {
              call.arguments += delta.function.arguments
              argumentDeltas++
            }
            calls.set(delta.index, call)
          }
        }
        return { content, finish, usage, calls, argumentDeltas }
      })
      assert.strictEqual(collected.content, "Checking the weather. ")
      assert.strictEqual(collected.finish, "tool_calls")
      assert.deepStrictEqual(collected.usage, { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 })
      const call = collected.calls.get(0)!
      assert.strictEqual(call.id, "call_1")
      assert.strictEqual(call.name, "get_weather")
      assert.deepStrictEqual(JSON.parse(call.arguments), JSON.parse(JSON.stringify(parisArguments)))
      assert.isAbove(collected.argumentDeltas, 1, "the arguments arrive in pieces")
    }))

  it.scopedLive("streamed with the client's helper: JSON-text arguments arrive exactly as scripted, two calls by index", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const final = yield* Effect.promise(() =>
        clientOf(url).chat.completions.stream({ model: "scripted", messages: thirdTurn, tools }).finalChatCompletion()
      )
      const calls = final.choices[0]!.message.tool_calls!
      assert.strictEqual(calls.length, 2)
      assert.isTrue(calls[0]!.type === "function" && calls[0]!.function.arguments === zurichArguments)
      assert.isTrue(calls[1]!.type === "function" && calls[1]!.id === "call_3" && calls[1]!.function.arguments === "{}")
      assert.strictEqual(final.choices[0]!.finish_reason, "tool_calls")
    }))

  it.scopedLive("streamed: text, then finish_reason stop and data: [DONE]; no usage unless asked", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* post(`${url}/v1/chat/completions`, JSON.stringify({ model: "m", messages: answered, stream: true }))
      assert.strictEqual(answer.status, 200)
      const events = blocks(answer.text)
      assert.strictEqual(events.at(-1)!.data, "[DONE]")
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data))
      assert.isTrue(chunks.every((c) => !("usage" in c)))
      assert.strictEqual(chunks.map((c) => c.choices[0].delta.content ?? "").join(""), "It is sunny in Paris.")
      assert.strictEqual(chunks.at(-1).choices[0].finish_reason, "stop")
      assert.strictEqual(new Set(chunks.map((c) => c.id)).size, 1)
    }))

  it.scopedLive("a failure round is a 503 (retryable) the client reports; no round is a 400", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const failing: Array<ChatCompletionMessageParam> = [...answered, { role: "assistant", content: "It is sunny in Paris." }, { role: "user", content: "And tomorrow?" }]
      const error = yield* Effect.flip(Effect.tryPromise(() => clientOf(url).chat.completions.create({ model: "m", messages: failing })))
      const cause = error.error
      assert.instanceOf(cause, OpenAI.APIError)
      assert.strictEqual((cause as InstanceType<typeof OpenAI.APIError>).status, 503)
      assert.match((cause as Error).message, /the model is overloaded/)
      const none = yield* post(`${url}/v1/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "system", content: "only a system message" }] }))
      assert.strictEqual(none.status, 400)
      assert.match(JSON.parse(none.text).error.message, /no scripted round/)
    }))

  it.scopedLive("a body that is not a chat completions request is a 400 JSON error", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const bodies = [
        "{",
        JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
        JSON.stringify({ model: "m", messages: [{ role: "wizard", content: "hi" }] }),
        JSON.stringify({ model: "m", messages: [{ role: "tool", content: "no id" }] }),
        JSON.stringify({ model: "m", messages: [{ role: "assistant", tool_calls: [{ id: "x", function: { name: "f", arguments: {} } }] }] }),
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: "yes" })
      ]
      for (const body of bodies) {
        const answer = yield* post(`${url}/v1/chat/completions`, body)
        assert.strictEqual(answer.status, 400, body)
        assert.strictEqual(JSON.parse(answer.text).error.type, "invalid_request_error")
      }
    }))
})

/**
 * `POST /v1/responses` with the official openai client (its `responses.stream` accumulator checks the event
 * order: `response.created` first, an item added before its deltas, a content part before its text) and
 * with raw requests: the same script and `{{fields}}` as the other endpoints, the input items mapped to
 * the script's rounds, failures as OpenAI errors.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Script } from "@toolgate/providers"
import { Effect } from "effect"
import OpenAI from "openai"
import type { ResponseInputItem } from "openai/resources/responses/responses"
import { blocks, parisArguments, polluted, post, profile, script, start, zurichArguments } from "./fixtures.js"

const clientOf = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "not-a-key", maxRetries: 0, timeout: 5_000 })

const tools = [{ type: "function" as const, name: "get_weather", strict: false, parameters: { type: "object", properties: { city: { type: "string" } } } }]

const question: Array<ResponseInputItem> = [
  { role: "developer", content: "You are terse." },
  { role: "user", content: [{ type: "input_text", text: "What is the weather in Paris?" }] }
]

/** The first turn after its call was answered: an assistant message, its call, and the call's output. */
const answered: Array<ResponseInputItem> = [
  ...question,
  { type: "message", role: "assistant", status: "completed", id: "msg_1", content: [{ type: "output_text", text: "Checking the weather. ", annotations: [] }] },
  { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
  { type: "function_call_output", call_id: "call_1", output: "{\"ok\":true,\"result\":{\"sky\":\"sunny\"}}" }
]

/** Turn 3: the second turn failed and was rolled back to its user message. */
const thirdTurn: Array<ResponseInputItem> = [
  ...answered,
  { role: "assistant", content: "It is sunny in Paris." },
  { role: "user", content: "And tomorrow?" },
  { role: "user", content: "And in Zürich?" }
]

describe("POST /v1/responses with the official openai client", () => {
  it.scopedLive("not streamed: a message item and a function_call item, usage, status completed", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const response = yield* Effect.promise(() => clientOf(url).responses.create({ model: "scripted", input: question, tools }))
      assert.strictEqual(response.object, "response")
      assert.strictEqual(response.status, "completed")
      assert.strictEqual(response.model, "scripted")
      assert.deepStrictEqual(response.output.map((item) => item.type), ["message", "function_call"])
      assert.strictEqual(response.output_text, "Checking the weather. ")
      const call = response.output[1]!
      assert.isTrue(call.type === "function_call" && call.call_id === "call_1" && call.name === "get_weather")
      assert.deepStrictEqual(call.type === "function_call" ? JSON.parse(call.arguments) : undefined, JSON.parse(JSON.stringify(parisArguments)))
      assert.deepStrictEqual([response.usage?.input_tokens, response.usage?.output_tokens, response.usage?.total_tokens], [12, 7, 19])
      assert.isFalse(polluted())
    }))

  it.scopedLive("streamed through the SDK's accumulator: after the call's output, the text answer in two deltas", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const stream = clientOf(url).responses.stream({ model: "scripted", input: answered, tools })
      const deltas: Array<string> = []
      stream.on("response.output_text.delta", (event) => deltas.push(event.delta))
      const final = yield* Effect.promise(() => stream.finalResponse())
      assert.deepStrictEqual(deltas, ["It is sunny ", "in Paris."])
      assert.strictEqual(final.output_text, "It is sunny in Paris.")
      assert.strictEqual(final.status, "completed")
      assert.strictEqual(final.usage?.total_tokens, 35)
    }))

  it.scopedLive("streamed: the events in OpenAI's order, numbered; arguments in pieces that join to the scripted text", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* post(`${url}/v1/responses`, JSON.stringify({ model: "m", input: thirdTurn, stream: true }))
      assert.strictEqual(answer.status, 200)
      const events = blocks(answer.text)
      const data = events.map((e) => JSON.parse(e.data))
      assert.deepStrictEqual(events.map((e) => e.event), data.map((d) => d.type))
      assert.deepStrictEqual(data.map((d) => d.sequence_number), data.map((_, i) => i))
      const types = data.map((d) => d.type).filter((t) => t !== "response.function_call_arguments.delta")
      assert.deepStrictEqual(types, [
        "response.created", "response.in_progress",
        "response.output_item.added", "response.function_call_arguments.done", "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.done", "response.output_item.done",
        "response.completed"
      ])
      const pieces = data.filter((d) => d.type === "response.function_call_arguments.delta" && d.output_index === 0)
      assert.isAbove(pieces.length, 1)
      assert.strictEqual(pieces.map((d) => d.delta).join(""), zurichArguments)
      const completed = data.at(-1)
      assert.deepStrictEqual(completed.response.output.map((i: any) => [i.call_id, i.arguments]), [["call_2", zurichArguments], ["call_3", "{}"]])
    }))

  it.scopedLive("a failure round is a 503 the client reports; no round is a 400; a round without Done never completes", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const failing: Array<ResponseInputItem> = [...answered, { role: "assistant", content: "It is sunny in Paris." }, { role: "user", content: "And tomorrow?" }]
      const error = yield* Effect.flip(Effect.tryPromise(() => clientOf(url).responses.create({ model: "m", input: failing })))
      assert.instanceOf(error.error, OpenAI.APIError)
      assert.strictEqual((error.error as InstanceType<typeof OpenAI.APIError>).status, 503)
      assert.match((error.error as Error).message, /the model is overloaded/)
      const none = yield* post(`${url}/v1/responses`, JSON.stringify({ model: "m", input: [{ role: "system", content: "only a system message" }] }))
      assert.strictEqual(none.status, 400)
      assert.match(JSON.parse(none.text).error.message, /no scripted round/)
      const unfinished: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "Half an answer" }]]] }
      const cut = yield* start({ profile, script: unfinished })
      const events = blocks((yield* post(`${cut.url}/v1/responses`, JSON.stringify({ model: "m", input: "hi", stream: true }))).text)
      assert.strictEqual(events.at(-1)!.event, "response.output_item.done")
      assert.isFalse(events.some((e) => e.event === "response.completed"))
    }))

  it.scopedLive("{{fields}}: instructions and developer messages, sampling, max_tool_calls and function tool names", () =>
    Effect.gen(function*() {
      const seeing: Script.Script = { turns: [[[{ _tag: "TextDelta", text: "{{systemPrompt}} | {{sampling}} | {{maxToolCallsPerTurn}} | {{tools}}" }, { _tag: "Done" }]]] }
      const { url } = yield* start({ profile, script: seeing })
      const response = yield* Effect.promise(() =>
        clientOf(url).responses.create({
          model: "m",
          instructions: "Be brief.",
          input: question,
          tools: [...tools, { type: "web_search" }],
          temperature: 0.2,
          top_p: 0.9,
          max_output_tokens: 200,
          ...({ max_tool_calls: 3 } as {}) // the API's field; the SDK's types lack it
        })
      )
      assert.strictEqual(response.output_text, "Be brief.\n\nYou are terse. | temperature=0.2, topP=0.9, maxTokens=200 | 3 | get_weather")
      const bare = yield* post(`${url}/v1/responses`, JSON.stringify({ model: "m", input: "hi" }))
      assert.strictEqual(JSON.parse(bare.text).output[0].content[0].text, "(none) | (none) | (none) | (none)")
    }))

  it.scopedLive("served under a scenario too; GET is a 405 naming POST", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script, scenarios: new Map([["s", { profile, script }]]) })
      const response = yield* Effect.promise(() => clientOf(`${url}/scenarios/s`).responses.create({ model: "m", input: answered }))
      assert.strictEqual(response.output_text, "It is sunny in Paris.")
      const get = yield* Effect.promise(() => fetch(`${url}/v1/responses`, { signal: AbortSignal.timeout(5_000) }))
      assert.strictEqual(get.status, 405)
      assert.strictEqual(get.headers.get("allow"), "POST")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { StreamEvent } from "@toolgate/runtime"
import { collect, data, provider, replay, start } from "./OpenAiCompatible.support.js"

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => data({ choices: [{ index: 0, delta, finish_reason: null }], ...extra })
const finish = (reason = "stop", usage?: unknown) => data({ choices: [{ index: 0, delta: {}, finish_reason: reason }], ...(usage === undefined ? {} : { usage }) })
const call = (index: number, id: string, name: string, args: string) => ({ index, id, type: "function", function: { name, arguments: args } })
const piece = (index: number, args: string) => ({ index, function: { arguments: args } })

const isEvent = Schema.is(StreamEvent.StreamEvent)

/** Plays `body` (served in 64 KiB pieces) and returns the round's events. */
const play = (body: string) =>
  Effect.gen(function*() {
    const server = yield* start(replay(body, { max: 65_536 }))
    return yield* collect(yield* provider(server, { timeout: "20 seconds" }))
  })

describe("OpenAiCompatible: hostile streams", () => {
  it.scopedLive("5 MB of content arrives whole, as valid events", () =>
    Effect.gen(function*() {
      const piece = "0123456789abcdef".repeat(256)
      const got = yield* play(`${chunk({ role: "assistant", content: "" })}${chunk({ content: piece }).repeat(1280)}${finish()}data: [DONE]\n\n`)
      const text = got.map((e) => e._tag === "TextDelta" ? e.text : "").join("")
      assert.strictEqual(text.length, 5 * 1024 * 1024)
      assert.strictEqual(text, piece.repeat(1280))
      assert.deepStrictEqual(got.at(-1), { _tag: "Done" })
      assert.isTrue(got.every(isEvent))
    }), 60_000)

  // One 1 MB event, not 5: sse.ts rescans an unfinished event from its start on every piece (quadratic; reported).
  it.scopedLive("10,000 chunks of arguments (and a 1 MB argument text in one event) assemble into their calls", () =>
    Effect.gen(function*() {
      const parts = Array.from({ length: 10_000 }, (_, i) => `${i === 0 ? "" : ","}${i}`)
      const big = "y".repeat(1024 * 1024)
      const body = chunk({ tool_calls: [call(0, "call_many", "sum", "{\"xs\":[")] }) +
        parts.map((p) => chunk({ tool_calls: [piece(0, p)] })).join("") +
        chunk({ tool_calls: [piece(0, "]}")] }) +
        chunk({ tool_calls: [call(1, "call_big", "echo", `{"text":"${big}"}`)] }) +
        finish("tool_calls", { prompt_tokens: 10, completion_tokens: 20_004 }) + "data: [DONE]\n\n"
      const got = yield* play(body)
      const completes = got.filter((e) => e._tag === "ToolCallComplete")
      assert.deepStrictEqual(completes[0], { _tag: "ToolCallComplete", id: "call_many", name: "sum", arguments: `{"xs":[${parts.join("")}]}` })
      assert.strictEqual(JSON.parse(completes[0]!.arguments as string).xs.length, 10_000)
      assert.strictEqual(completes[1]?.arguments, `{"text":"${big}"}`)
      assert.strictEqual(got.filter((e) => e._tag === "ToolCallPartial").length, 10_003)
      assert.deepStrictEqual(got.slice(-2), [{ _tag: "Usage", inputTokens: 10, outputTokens: 20_004 }, { _tag: "Done" }])
    }), 60_000)

  it.scopedLive("`__proto__` and `constructor` as tool names, ids and argument keys stay data", () =>
    Effect.gen(function*() {
      const args = "{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"polluted\":true}}}"
      const got = yield* play(
        chunk({ tool_calls: [call(0, "__proto__", "__proto__", args.slice(0, 20))] }) +
          chunk({ tool_calls: [call(1, "constructor", "constructor", "{}")] }) +
          chunk({ tool_calls: [piece(0, args.slice(20))] }) +
          finish("tool_calls") + "data: [DONE]\n\n"
      )
      assert.deepStrictEqual(got.filter((e) => e._tag === "ToolCallComplete"), [
        { _tag: "ToolCallComplete", id: "__proto__", name: "__proto__", arguments: args },
        { _tag: "ToolCallComplete", id: "constructor", name: "constructor", arguments: "{}" }
      ])
      assert.isUndefined(({} as any).polluted)
      assert.isUndefined((Object.prototype as any).polluted)
    }), 30_000)

  it.scopedLive("odd indices, other choices, a 10,000-level unknown field and absurd usage are handled, not thrown", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(10_000) + "]".repeat(10_000)
      const got = yield* play(
        `data: {"id":"c","x":${deep},"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n` +
          data({ choices: [{ index: 1, delta: { content: "other choice", tool_calls: [call(0, "x", "ignored", "{}")] } }] }) +
          chunk({ tool_calls: [call(1e300, "late", "b", "{}")] }) +
          chunk({ tool_calls: [call(-3, "early", "a", "{}")] }) +
          chunk({ tool_calls: [{ index: 0.5, function: { name: "no_id", arguments: "{}" } }] }) +
          finish("length", { prompt_tokens: -5, completion_tokens: 1e300 }) + "data: [DONE]\n\n"
      )
      assert.strictEqual(got.map((e) => e._tag === "TextDelta" ? e.text : "").join(""), "ok")
      assert.deepStrictEqual(got.filter((e) => e._tag === "ToolCallComplete").map((e) => [e.id, e.name]), [["early", "a"], ["call_0.5", "no_id"], ["late", "b"]])
      assert.deepStrictEqual(got.slice(-2), [{ _tag: "Usage", inputTokens: 0, outputTokens: Number.MAX_SAFE_INTEGER }, { _tag: "Done" }])
      assert.isTrue(got.every(isEvent))
    }), 30_000)

  it.scopedLive("a stream of nothing but keep-alive comments, named ping events and blank lines ends without Done", () =>
    Effect.gen(function*() {
      const server = yield* start(replay(": ping\n\n\n\nevent: ping\ndata: not json\n\n".repeat(1000)))
      const result = yield* Effect.either(collect(yield* provider(server)))
      assert.deepStrictEqual(result, Either.right([]))
    }), 30_000)

  it.scopedLive("a call sent with an empty id, or none, gets one from the chunk id and its index", () =>
    Effect.gen(function*() {
      const body = chunk({ tool_calls: [call(0, "", "get_weather", "{}"), { index: 1, type: "function", function: { name: "get_time", arguments: "{}" } }] }, { id: "chatcmpl-9" }) +
        finish("tool_calls") + "data: [DONE]\n\n"
      const got = yield* play(body)
      assert.deepStrictEqual(got.flatMap((e) => e._tag === "ToolCallComplete" ? [[e.id, e.name]] : []), [["chatcmpl-9_0", "get_weather"], ["chatcmpl-9_1", "get_time"]])
    }), 30_000)
})

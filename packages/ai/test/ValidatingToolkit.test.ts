/**
 * `ValidatingToolkit.wrap` for apps that keep @effect/ai's own tool loop: arguments go through
 * `Arguments.prepare` (the prototype's `days: "15"` runs with 15), what does not fit comes back as an
 * `invalid_args` envelope instead of a fatal `MalformedOutput`, results and failures as envelopes. Over
 * `AnthropicLanguageModel` on loopback, and as a property of the handler itself.
 */
import { LanguageModel, Tool, Toolkit } from "@effect/ai"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck, Logger, LogLevel, Schema, Stream } from "effect"
import { ValidatingToolkit } from "../src/index.js"
import * as Anthropic from "./support/anthropic.js"
import { Forecasts, forecasts } from "./support/forecasts.js"
import { json, serve, sse } from "./support/loopback.js"

const { recorded, start, stop, textBlock, toolUse } = Anthropic

/** One (not streamed) message in which the model calls get_forecast with `input`. */
const calling = (input: string) =>
  json({
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_01", name: "get_forecast", input: JSON.parse(input) }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 }
  })

/** The same call streamed: `input_json_delta` pieces. */
const streamedCall = (input: string) => {
  const half = Math.floor(input.length / 2)
  return sse(...recorded(start("msg_1", 100), textBlock(0, "Checking."), toolUse(1, "toolu_01", "get_forecast", input.slice(0, half), input.slice(half)), stop("tool_use", 20)))
}

/** `generateText` over the loopback model with the wrapped toolkit, from the model's first round. */
const round = (input: string) =>
  Effect.gen(function*() {
    const server = yield* serve([calling(input)])
    const { layer, ran } = forecasts()
    const toolkit = ValidatingToolkit.wrap(yield* Forecasts.pipe(Effect.provide(layer)))
    const response = yield* LanguageModel.generateText({ prompt: "Forecast for Oslo?", toolkit }).pipe(Effect.provide(Anthropic.model(server.url)))
    return { response, ran, server }
  })

/** The same with @effect/ai's toolkit as it is. */
const unwrapped = (input: string) =>
  Effect.gen(function*() {
    const server = yield* serve([calling(input)])
    const { layer, ran } = forecasts()
    const toolkit = yield* Forecasts.pipe(Effect.provide(layer))
    const response = yield* LanguageModel.generateText({ prompt: "Forecast for Oslo?", toolkit }).pipe(Effect.provide(Anthropic.model(server.url)))
    return { response, ran }
  })

describe("ValidatingToolkit over AnthropicLanguageModel's own tool loop", () => {
  it.scopedLive("unwrapped, @effect/ai fails the whole request on days: \"15\" (MalformedOutput) and the model hears nothing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(unwrapped("{\"city\":\"Oslo\",\"days\":\"15\"}"))
      assert.strictEqual(error._tag, "MalformedOutput")
    }))

  it.scopedLive("wrapped, days: \"15\" is coerced to 15, the handler runs, the result is a success envelope", () =>
    Effect.gen(function*() {
      const { ran, response, server } = yield* round("{\"city\":\"Oslo\",\"days\":\"15\"}")
      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }])
      const [result] = response.toolResults
      assert.strictEqual(result!.name, "get_forecast")
      assert.isFalse(result!.isFailure)
      assert.deepStrictEqual(result!.result, { ok: true, tool: "get_forecast", result: { city: "Oslo", days: 15, sky: "sunny" } })
      // the provider saw the tool's own JSON Schema, as @effect/ai would have sent it
      assert.deepStrictEqual(server.requests[0]!.body.tools[0].input_schema.required, ["city", "days"])
      assert.strictEqual(server.requests[0]!.body.tools[0].description, "Weather forecast for a city")
    }))

  it.scopedLive("streamed (streamText), the same: the call, then its result as a success envelope", () =>
    Effect.gen(function*() {
      const server = yield* serve([streamedCall("{\"city\":\"Oslo\",\"days\":\"15\"}")])
      const { layer, ran } = forecasts()
      const toolkit = ValidatingToolkit.wrap(yield* Forecasts.pipe(Effect.provide(layer)))
      const parts = yield* LanguageModel.streamText({ prompt: "Forecast for Oslo?", toolkit }).pipe(
        Stream.runCollect,
        Effect.provide(Anthropic.model(server.url))
      )
      const all = Chunk.toReadonlyArray(parts)
      assert.deepStrictEqual(ran, [{ city: "Oslo", days: 15 }])
      const call = all.find((p) => p.type === "tool-call")
      const result = all.find((p) => p.type === "tool-result")
      assert.deepStrictEqual(call?.type === "tool-call" ? call.params : undefined, { city: "Oslo", days: "15" })
      assert.deepStrictEqual(result?.type === "tool-result" ? result.result : undefined, { ok: true, tool: "get_forecast", result: { city: "Oslo", days: 15, sky: "sunny" } })
    }))

  it.scopedLive("arguments that still do not fit are an invalid_args envelope; the handler does not run", () =>
    Effect.gen(function*() {
      const { ran, response } = yield* round("{\"city\":\"Oslo\",\"days\":40}")
      assert.deepStrictEqual(ran, [])
      const [result] = response.toolResults
      assert.isTrue(result!.isFailure)
      const envelope = result!.result as any
      assert.strictEqual(envelope.kind, "invalid_args")
      assert.strictEqual(envelope.field, "days")
      assert.isTrue(envelope.retryable)
    }))

  it.scopedLive("a filter only the Effect Schema states (no Atlantis) is an invalid_args envelope too", () =>
    Effect.gen(function*() {
      const { ran, response } = yield* round("{\"city\":\"Atlantis\",\"days\":3}")
      assert.deepStrictEqual(ran, [])
      const envelope = response.toolResults[0]!.result as any
      assert.strictEqual(envelope.kind, "invalid_args")
      assert.include(envelope.message, "Atlantis is not a city")
    }))

  it.scopedLive("the handler's own failure is a failure envelope, not a failed request", () =>
    Effect.gen(function*() {
      const { ran, response } = yield* round("{\"city\":\"Mordor\",\"days\":2}")
      assert.deepStrictEqual(ran, [{ city: "Mordor", days: 2 }])
      const [result] = response.toolResults
      assert.isTrue(result!.isFailure)
      const envelope = result!.result as any
      assert.strictEqual(envelope.kind, "execution_error")
      assert.include(envelope.message, "No forecast for Mordor right now.")
    }))
})

describe("ValidatingToolkit.wrap's handler", () => {
  const handler = Effect.gen(function*() {
    const { layer, ran } = forecasts()
    const toolkit = ValidatingToolkit.wrap(yield* Forecasts.pipe(Effect.provide(layer)))
    return { toolkit, ran }
  })

  it.effect.prop(
    "days as a numeric string: 1–16 runs with the number, anything else is invalid_args on `days` and runs nothing",
    [FastCheck.integer({ min: -1000, max: 1000 })],
    ([days]) =>
      Effect.gen(function*() {
        const { ran, toolkit } = yield* handler
        const answer = yield* toolkit.handle("get_forecast", { city: "Oslo", days: String(days) })
        const envelope = answer.result as any
        if (days >= 1 && days <= 16) {
          assert.deepStrictEqual(ran, [{ city: "Oslo", days }])
          assert.deepStrictEqual(envelope, { ok: true, tool: "get_forecast", result: { city: "Oslo", days, sky: "sunny" } })
          assert.isFalse(answer.isFailure)
        } else {
          assert.deepStrictEqual(ran, [])
          assert.strictEqual(envelope.kind, "invalid_args")
          assert.strictEqual(envelope.field, "days")
          assert.isTrue(answer.isFailure)
        }
        assert.deepStrictEqual(answer.encodedResult, JSON.parse(JSON.stringify(envelope)))
      }),
    { timeout: 60_000, fastCheck: { numRuns: 50 } }
  )

  it.effect("strict policy: \"15\" is not coerced", () =>
    Effect.gen(function*() {
      const { layer, ran } = forecasts()
      const toolkit = ValidatingToolkit.wrap(yield* Forecasts.pipe(Effect.provide(layer)), { policy: "strict" })
      const answer = yield* toolkit.handle("get_forecast", { city: "Oslo", days: "15" })
      assert.deepStrictEqual(ran, [])
      assert.strictEqual((answer.result as any).kind, "invalid_args")
    }))

  it.effect("a handler that dies answers execution_error (and logs the defect)", () =>
    Effect.gen(function*() {
      const Dies = Tool.make("dies", { parameters: { n: Schema.Int }, success: Schema.Number })
      const kit = Toolkit.make(Dies)
      const toolkit = ValidatingToolkit.wrap(yield* kit.pipe(Effect.provide(kit.toLayer({ dies: () => Effect.dieMessage("boom") }))))
      const answer = yield* toolkit.handle("dies", { n: "2" })
      assert.isTrue(answer.isFailure)
      assert.strictEqual((answer.result as any).kind, "execution_error")
    }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))

  it.effect("a call to a tool the toolkit does not have is tool_not_found", () =>
    Effect.gen(function*() {
      const { toolkit } = yield* handler
      const answer = yield* (toolkit.handle as any)("get_tides", {}) as Effect.Effect<{ result: any; isFailure: boolean }>
      assert.isTrue(answer.isFailure)
      assert.strictEqual(answer.result.kind, "tool_not_found")
    }))

  it.effect("hostile params (wrong types, 100,000 levels, __proto__, a throwing getter, bigint, a cycle) are invalid_args envelopes; the handler never runs", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = yield* handler
      let deep: unknown = 1
      for (let i = 0; i < 100_000; i++) deep = { a: deep }
      const cycle: Record<string, unknown> = { city: "Oslo", days: 2 }
      cycle["self"] = cycle
      const hostile: ReadonlyArray<readonly [unknown, RegExp]> = [
        [5, /must be object, got integer 5/],
        [[1], /must be object, got an array/],
        [{ city: "Oslo", days: deep }, /`days` must be integer/],
        [JSON.parse("{\"__proto__\":{\"polluted\":true},\"city\":\"Oslo\",\"days\":2}"), /Unknown argument `__proto__`/],
        [Object.defineProperty({ city: "Oslo" }, "days", { enumerable: true, get: () => { throw new Error("boom") } }), /could not be read as JSON: boom/],
        [{ city: "Oslo", days: 2n }, /not JSON: found a bigint at `days`/],
        [cycle, /not JSON: found a cycle/]
      ]
      for (const [params, message] of hostile) {
        const answer = yield* toolkit.handle("get_forecast", params as never)
        const envelope = answer.result as any
        assert.isTrue(answer.isFailure)
        assert.strictEqual(envelope.kind, "invalid_args")
        assert.match(envelope.message, message)
      }
      assert.deepStrictEqual(ran, [])
      assert.isFalse("polluted" in {})
    }))

  it.effect("a name the toolkit lacks but Object.prototype has (__proto__, constructor, toString) is tool_not_found", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = yield* handler
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const answer = yield* (toolkit.handle as any)(name, {}) as Effect.Effect<{ result: any; isFailure: boolean }>
        assert.isTrue(answer.isFailure, name)
        assert.deepInclude(answer.result, { kind: "tool_not_found", tool: name })
      }
      assert.deepStrictEqual(ran, [])
    }))

  it.effect("a handler result that is not JSON (bigint, a cycle, NaN, a function) is an execution_error envelope, not a defect", () =>
    Effect.gen(function*() {
      const Odd = Tool.make("odd", { parameters: { n: Schema.Int }, success: Schema.Unknown })
      const kit = Toolkit.make(Odd)
      const cycle: Record<string, unknown> = {}
      cycle["self"] = cycle
      for (const value of [10n, cycle, Number.NaN, () => 1]) {
        const toolkit = ValidatingToolkit.wrap(yield* kit.pipe(Effect.provide(kit.toLayer({ odd: () => Effect.succeed(value) }))))
        const answer = yield* toolkit.handle("odd", { n: 1 })
        assert.isTrue(answer.isFailure, typeof value)
        assert.deepInclude(answer.result as any, { kind: "execution_error", message: "Tool `odd` returned a value that is not JSON." })
      }
    }))
})

/**
 * The span attributes on hostile input: names and ids such as `__proto__` (a model picks call ids) stay values
 * under the fixed GenAI keys and never reach a prototype; absent numbers stay out; `span` leaves the effect's
 * outcome as it is, with or without a tracer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Telemetry } from "@toolgate/runtime"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"

const hostile = ["__proto__", "constructor", "", "x".repeat(1_000_000)] as const

/** Whether `record` has exactly `keys`, as own properties, on a plain object's prototype. */
const ownKeysAre = (record: object, keys: ReadonlyArray<string>) => {
  assert.deepStrictEqual(Object.keys(record).sort(), [...keys].sort())
  assert.strictEqual(Object.getPrototypeOf(record), Object.prototype)
}

describe("Telemetry", () => {
  it("toolCall keeps hostile names and call ids as values under its three keys", () => {
    for (const s of hostile) {
      const attributes = Telemetry.toolCall(s, s)
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id"])
      assert.strictEqual(attributes["gen_ai.tool.name"], s)
      assert.strictEqual(attributes["gen_ai.tool.call.id"], s)
    }
  })

  it("chat leaves out a model and URL given as undefined and keeps hostile ones as values", () => {
    ownKeysAre(Telemetry.chat("__proto__", { model: undefined, url: undefined }), ["gen_ai.operation.name", "gen_ai.provider.name"])
    for (const s of hostile) {
      const attributes = Telemetry.chat(s, { model: s, url: s })
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "url.full"])
      assert.deepStrictEqual([attributes["gen_ai.provider.name"], attributes["gen_ai.request.model"], attributes["url.full"]], [s, s, s])
    }
  })

  it("invokeAgent keeps hostile provider names and session ids as values under its three keys", () => {
    for (const s of hostile) {
      const attributes = Telemetry.invokeAgent(s, s)
      ownKeysAre(attributes, ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.conversation.id"])
      assert.strictEqual(attributes["gen_ai.conversation.id"], s)
    }
  })

  it("usage leaves out token counts the provider did not report, whatever the turn number", () => {
    ownKeysAre(Telemetry.usage(Number.NaN, undefined, undefined), ["toolgate.turn"])
    assert.deepStrictEqual(Telemetry.usage(3, 0, Number.MAX_SAFE_INTEGER), {
      "toolgate.turn": 3,
      "gen_ai.usage.input_tokens": 0,
      "gen_ai.usage.output_tokens": Number.MAX_SAFE_INTEGER
    })
  })

  it.effect("span: the effect's success, failure and defect pass through, without a tracer and with one that records hostile attributes", () =>
    Effect.gen(function*() {
      const outcomes = [Effect.succeed(1), Effect.fail("typed"), Effect.die("defect")] as const
      const { spans, tracer } = RecordingTracer.make()
      for (const outcome of outcomes) {
        const expected = yield* Effect.exit(outcome)
        const traced = outcome.pipe(Telemetry.span("__proto__", Telemetry.toolCall("__proto__", "constructor")))
        assert.deepStrictEqual(yield* Effect.exit(traced), expected)
        assert.deepStrictEqual(yield* Effect.exit(traced.pipe(Effect.withTracer(tracer))), expected)
      }
      assert.deepStrictEqual(spans.map((s) => s.name), ["__proto__", "__proto__", "__proto__"])
      assert.strictEqual(spans[0]!.attributes.get("gen_ai.tool.call.id"), "constructor")
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(Effect.void.pipe(Telemetry.span("", undefined), Effect.withTracer(tracer)))))
      assert.isUndefined(({} as Record<string, unknown>)["gen_ai.tool.name"])
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as Toolkit from "../src/Toolkit.js"
import { answer, make, session, text, done } from "./support/scriptedProvider.js"

const toolkit = Either.getOrThrow(Toolkit.make())
const Weather = Schema.Struct({ city: Schema.String, celsius: Schema.Number })

describe("AgentSession.generate", () => {
  it.effect("decodes the model's JSON answer with the caller's schema; the request carries its JSON Schema", () =>
    Effect.gen(function*() {
      const provider = make([[text("{\"city\":"), text("\"Oslo\",\"celsius\":4}"), done]])
      const s = yield* session(provider, toolkit)
      const value = yield* s.generate(Weather, "weather as JSON")
      assert.deepStrictEqual(value, { city: "Oslo", celsius: 4 })
      const schema = provider.requests[0]!.structuredOutput as { required: ReadonlyArray<string> }
      assert.deepStrictEqual([...schema.required].sort(), ["celsius", "city"])
      assert.strictEqual((yield* s.history).length, 2)
    }))

  it.effect("StructuredOutputUnsupported before the provider is called", () =>
    Effect.gen(function*() {
      const provider = make([answer("{}")], { supportsStructuredOutput: false })
      const s = yield* session(provider, toolkit)
      const error = yield* Effect.flip(s.generate(Weather, "x"))
      assert.strictEqual(error._tag, "StructuredOutputUnsupported")
      assert.strictEqual(provider.requests.length, 0)
      assert.deepStrictEqual(yield* s.history, [])
    }))

  it.effect("an answer that does not decode is StructuredOutputInvalid and the turn rolls back", () =>
    Effect.gen(function*() {
      for (const bad of ["not json", "{\"city\":1}", "", "{\"__proto__\":{\"city\":\"x\"}}"]) {
        const s = yield* session(make([answer(bad)]), toolkit)
        const error = yield* Effect.flip(s.generate(Weather, "x"))
        assert.strictEqual(error._tag, "StructuredOutputInvalid", bad)
        assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "x" }])
        assert.isUndefined(({} as Record<string, unknown>)["city"])
      }
    }))

  it.effect("a schema without a JSON Schema form is StructuredOutputInvalid before any request", () =>
    Effect.gen(function*() {
      const provider = make([answer("{}")])
      const s = yield* session(provider, toolkit)
      const opaque = Schema.declare((u): u is symbol => typeof u === "symbol")
      const error = yield* Effect.flip(s.generate(opaque, "x"))
      assert.strictEqual(error._tag, "StructuredOutputInvalid")
      assert.strictEqual(provider.requests.length, 0)
    }))
})

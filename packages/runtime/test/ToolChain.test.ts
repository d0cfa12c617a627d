import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import type { JsonValue } from "@toolgate/json-schema"
import { ToolEnvelope, Tool } from "@toolgate/runtime"
import * as ToolChain from "../src/ToolChain.js"
import { assertRefIssue, chain, cityRef, counted, invalidOf, loose, ok, oslo, referencing, results, validator, weather, weatherSchema } from "./support/toolChain.js"

describe("ToolChain.resolve", () => {
  it.effect("the seed's ref resolves, the base schema validates the resolved value, and the tool runs with it", () =>
    Effect.gen(function*() {
      const { runs, tool } = counted("get_weather", weatherSchema)
      const raw = "{\"city\":{\"$tool\":\"call_1\",\"$path\":\"result.city\"},\"days\":2}"
      const outcome = yield* chain(tool, raw, oslo)
      assert.isTrue(Either.isRight(outcome))
      if (Either.isLeft(outcome)) return
      const prepared = outcome.right
      assert.deepStrictEqual(prepared.value, { city: "Oslo", days: 2 })
      assert.deepStrictEqual(prepared.args, { city: "Oslo", days: 2 })
      assert.strictEqual(prepared.raw, raw, "raw stays what the model sent")
      assert.deepStrictEqual([prepared.tool, prepared.callId], ["get_weather", "call_2"])
      const envelope = yield* Tool.run(tool, prepared)
      assert.deepStrictEqual([envelope.ok, runs.count, runs.last], [true, 1, { city: "Oslo", days: 2 }])
    }))

  it.effect("an Effect Schema tool gets decoded arguments; the lenient pass repairs a resolved near miss", () =>
    Effect.gen(function*() {
      const tool = Tool.make("forecast", {
        description: "forecast",
        parameters: Schema.Struct({ city: Schema.String, days: Schema.Int }),
        execute: (args) => Effect.succeed(args.days)
      })
      const map = results([["call_1", ok({ city: "Bergen", days: "4" })]])
      const outcome = yield* chain(tool, { city: { $tool: "call_1", $path: "result.city" }, days: { $tool: "call_1", $path: "result.days" } }, map)
      assert.isTrue(Either.isRight(outcome))
      if (Either.isLeft(outcome)) return
      assert.deepStrictEqual(outcome.right.args, { city: "Bergen", days: 4 })
      assert.deepStrictEqual(outcome.right.coercions.map((c) => c.rule), ["string-to-integer"])
    }))

  it.effect("dotted and bracket indices, and a path-less ref meaning the whole result", () =>
    Effect.gen(function*() {
      for (const path of ["result.items.1.name", "result.items[1].name", "result.items[1]", "result"]) {
        const outcome = yield* chain(loose, { pick: { $tool: "call_1", $path: path } }, oslo)
        const expected = path === "result" ? { city: "Oslo", temp: 3, items: [{ name: "a" }, { name: "b" }] } : path.endsWith("]") ? { name: "b" } : "b"
        assert.deepStrictEqual(Either.getOrThrow(outcome).value, { pick: expected }, path)
      }
      const whole = yield* chain(loose, { pick: { $tool: "call_1" } }, oslo)
      assert.deepStrictEqual(Either.getOrThrow(whole).value, { pick: (oslo.get("call_1") as ToolEnvelope.Success).result })
    }))

  it.effect("a ref standing for the whole arguments is replaced by the value it points at", () =>
    Effect.gen(function*() {
      const tool = counted("city_only", { type: "object", properties: { city: { type: "string" } } }).tool
      const map = results([["call_1", ok({ city: "Oslo" })], ["call_3", ok({ city: 7 })]])
      const outcome = yield* chain(tool, { $tool: "call_1", $path: "result" }, map)
      assert.deepStrictEqual(Either.getOrThrow(outcome).value, { city: "Oslo" })
      const rejected = invalidOf(yield* chain(tool, { $tool: "call_3" }, map))
      assert.strictEqual(rejected.issues[0]!.field, "city")
      const unknown = invalidOf(yield* chain(tool, { $tool: "call_9" }, map))
      assertRefIssue(unknown, "", "$tool", "The ref that stands for the whole arguments")
    }))

  it.effect("an unknown call id is invalid and names the ids that have answered", () =>
    Effect.gen(function*() {
      const e = invalidOf(yield* chain(weather, cityRef("result.city", "call_9"), oslo))
      assertRefIssue(e, "city", "$tool", "`call_9`")
      assert.include(e.envelope.message, "call_1")
      const none = invalidOf(yield* chain(weather, cityRef("result.city", "call_9"), results([])))
      assert.include(none.envelope.message, "none has answered yet")
    }))

  it.effect("a missing path, a path through a string and an index out of range are invalid at $path", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["result.town", "`result` has no `town` (it has: city, temp, items)"],
        ["city", "the envelope has no `city`"],
        ["result.city.name", "`result.city` is string \"Oslo\", not an object or an array"],
        ["result.items.2.name", "index 2 is out of range: `result.items` has 2 items"],
        ["result.items[5]", "index 5 is out of range"],
        ["result.items.first", "`result.items` is an array, and `first` is not an index"],
        ["result.items.01", "is not an index"],
        ["result.toString", "`result` has no `toString`"]
      ]
      for (const [path, fragment] of cases) {
        const e = invalidOf(yield* chain(weather, cityRef(path), oslo))
        assertRefIssue(e, "city", "$path", fragment)
      }
    }))

  it.effect("malformed paths are invalid, each with a reason", () =>
    Effect.gen(function*() {
      const bad = ["", ".", "result.", ".result", "result..city", "result[", "result[]", "result[01]", "result[-1]", "result]", "result.items[0]name", "result.[0]", "result.items[0]]"]
      for (const path of bad) {
        const e = invalidOf(yield* chain(weather, cityRef(path), oslo))
        assertRefIssue(e, "city", "$path", "cannot be resolved")
      }
    }))

  it.effect("each forbidden segment is invalid wherever it appears, even as an own key of the result", () =>
    Effect.gen(function*() {
      const map = results([["call_1", ok(JSON.parse("{\"__proto__\":{\"city\":\"x\"},\"constructor\":{\"city\":\"x\"},\"prototype\":{\"city\":\"x\"},\"a\":{\"__proto__\":\"x\"}}"))]])
      for (const segment of ["__proto__", "constructor", "prototype"]) {
        for (const path of [`result.${segment}.city`, `${segment}`, `result.a.${segment}`, `result.${segment}`, `${segment}.result`]) {
          const e = invalidOf(yield* chain(weather, cityRef(path), map))
          assertRefIssue(e, "city", "$path", `goes through \`${segment}\``)
        }
      }
      assert.isUndefined(({} as Record<string, unknown>)["city"])
    }))

  it.effect("a ref to a failure envelope is invalid and carries the failure's message", () =>
    Effect.gen(function*() {
      const map = results([["call_1", ToolEnvelope.failure("not_found", "No such city: Osloo")]])
      const e = invalidOf(yield* chain(weather, cityRef("result.city"), map))
      assertRefIssue(e, "city", "$tool", "call_1 failed: No such city: Osloo")
      assert.isTrue(Either.isLeft(ToolChain.valueAt(map.get("call_1")!, undefined)))
      const spaces = results([["call_1", ToolEnvelope.failure("not_found", "gone" + " ".repeat(1_000_000) + "x...")], ["call_2", ToolEnvelope.failure("not_found", " .")]])
      const huge = invalidOf(yield* chain(weather, cityRef("result.city"), spaces))
      assert.isBelow(huge.envelope.message.length, 1_000)
      const blank = invalidOf(yield* chain(weather, cityRef("result.city", "call_2"), spaces))
      assert.include(blank.envelope.message, "call_2 failed: (no message). A ref")
    }))

  it.effect("an $artifact ref reads the artifact the call saved, $path from its root; a missing one names those saved", () =>
    Effect.gen(function*() {
      const v = yield* validator
      const artifacts = new Map([["call_1", new Map([["places", { rows: [{ city: "Bergen" }] } as JsonValue.JsonValue]])]])
      const call = yield* referencing(weather, { city: { $tool: "call_1", $artifact: "places", $path: "rows[0].city" } })
      const resolved = yield* ToolChain.resolve(v, weather, call, oslo, { artifacts })
      assert.deepStrictEqual(resolved.value, { city: "Bergen" })
      const unknown = yield* referencing(weather, { city: { $tool: "call_1", $artifact: "art_1" } })
      const e = invalidOf(yield* Effect.either(ToolChain.resolve(v, weather, unknown, oslo, { artifacts })))
      assertRefIssue(e, "city", "$artifact", "which saved only these: places")
      const none = invalidOf(yield* chain(weather, { city: { $tool: "call_1", $artifact: "art_1" } }, oslo))
      assertRefIssue(none, "city", "$artifact", "which saved no artifacts")
      const badPath = yield* referencing(weather, { city: { $tool: "call_1", $artifact: "places", $path: "rows[3].city" } })
      assertRefIssue(invalidOf(yield* Effect.either(ToolChain.resolve(v, weather, badPath, oslo, { artifacts }))), "city", "$path", "out of range")
      const strict = yield* v.prepare(weather, { city: { $tool: "call_1", $path: "result.city", $artifact: null } }, { callId: "c", fromStrictProvider: true })
      assert.strictEqual(strict._tag, "Referencing")
      if (strict._tag !== "Referencing") return
      const nulls = yield* Effect.either(ToolChain.resolve(v, weather, strict, oslo, { fromStrictProvider: true }))
      assert.deepStrictEqual(Either.getOrThrow(nulls).value, { city: "Oslo" }, "a strict provider's null $artifact is absent")
    }))

  it.effect("a resolved value the base schema rejects names the argument", () =>
    Effect.gen(function*() {
      const map = results([["call_1", ok({ city: 42, code: { zip: "0150" } })]])
      const number = invalidOf(yield* chain(weather, cityRef("result.city"), map))
      assertRefIssue(number, "city", "type", "city")
      const object = invalidOf(yield* chain(weather, cityRef("result.code"), map))
      assert.strictEqual(object.envelope.field, "city")
    }))

  it.effect("a ref resolving to a ref (or to a value holding one) is invalid", () =>
    Effect.gen(function*() {
      const map = results([
        ["call_0", ok({ city: "Oslo" })],
        ["call_1", ok({ city: { $tool: "call_0", $path: "result.city" }, nested: { deep: [{ $tool: "call_0" }] } })]
      ])
      const direct = invalidOf(yield* chain(weather, cityRef("result.city"), map))
      assertRefIssue(direct, "city", "$path", "refs are resolved once")
      const nested = invalidOf(yield* chain(loose, { x: { $tool: "call_1", $path: "result.nested" } }, map))
      assertRefIssue(nested, "x", "$path", "holds one")
    }))

  it.effect("a Referencing whose refs miss one is caught by the second prepare", () =>
    Effect.gen(function*() {
      const v = yield* validator
      const call = yield* referencing(loose, { a: { $tool: "call_1", $path: "result.city" }, b: { $tool: "call_1" } })
      const e = invalidOf(yield* Effect.either(ToolChain.resolve(v, loose, { ...call, refs: call.refs.slice(0, 1) }, oslo)))
      assertRefIssue(e, "b", "$tool", "still a ref")
    }))

  it.effect("every broken ref is reported at once; the envelope's field is the first", () =>
    Effect.gen(function*() {
      const e = invalidOf(yield* chain(loose, { a: { $tool: "call_9" }, b: { ok: { $tool: "call_1", $path: "result.city" } }, c: [{ $tool: "call_1", $path: "nope" }] }, oslo))
      assert.deepStrictEqual(e.issues.map((i) => [i.field, i.path, i.keyword]), [["a", "/a", "$tool"], ["c.0", "/c/0", "$path"]])
      assert.strictEqual(e.envelope.field, "a")
      assert.include(e.envelope.message, "2 arguments are invalid")
    }))

  it.effect("only the results map given is consulted: an id answered in another session's map is unknown", () =>
    Effect.gen(function*() {
      const v = yield* validator
      const consulted: Array<string> = []
      class Recording extends Map<string, ToolEnvelope.Envelope> {
        override get(id: string) {
          consulted.push(id)
          return super.get(id)
        }
      }
      const otherSession = new Recording([["call_1", ok({ city: "Oslo" })]])
      const thisSession = new Recording([["call_7", ok({ city: "Rome" })]])
      const call = yield* referencing(weather, cityRef("result.city"))
      const e = invalidOf(yield* Effect.either(ToolChain.resolve(v, weather, call, thisSession)))
      assertRefIssue(e, "city", "$tool", "`call_1`")
      assert.notInclude(e.envelope.message, "Oslo")
      assert.strictEqual(consulted.length, 1)
      assert.strictEqual(otherSession.size, 1)
    }))

  it.effect("an unusable tool schema passes through as InvalidToolSchema", () =>
    Effect.gen(function*() {
      const v = yield* validator
      const call = yield* referencing(loose, { x: { $tool: "call_1", $path: "result.city" } })
      const broken = counted("broken", { type: "object", properties: { x: { type: "string", pattern: "(" } } }).tool
      const outcome = yield* Effect.either(ToolChain.resolve(v, broken, call, oslo))
      assert.strictEqual(Either.isLeft(outcome) ? outcome.left._tag : "Right", "InvalidToolSchema")
    }))
})

describe("ToolChain.valueAt", () => {
  it("reads from the envelope's root; a path-less ref is the result", () => {
    const envelope = ok({ city: "Oslo" })
    assert.deepStrictEqual(ToolChain.valueAt(envelope, undefined), Either.right({ city: "Oslo" }))
    assert.deepStrictEqual(ToolChain.valueAt(envelope, "tool"), Either.right("lookup"))
    assert.deepStrictEqual(ToolChain.valueAt(envelope, "ok"), Either.right(true))
    assert.deepStrictEqual(ToolChain.valueAt(envelope, "result.town"), Either.left("`result` has no `town` (it has: city)"))
    assert.deepStrictEqual(
      ToolChain.valueAt(ToolEnvelope.failure("timeout", "Too slow.", { tool: "lookup" }), "result"),
      Either.left("the call failed: Too slow")
    )
  })
})

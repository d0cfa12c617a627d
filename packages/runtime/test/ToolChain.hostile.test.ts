import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { JsonValue } from "@toolgate/json-schema"
import { ArgumentValidator } from "@toolgate/runtime"
import * as ToolChain from "../src/ToolChain.js"
import { assertRefIssue, chain, cityRef, counted, invalidOf, loose, ok, oslo, results, validator, weather } from "./support/toolChain.js"

/** `{ a: { a: … { leaf } } }` nested `depth` levels, built without recursion. */
const nested = (depth: number, leaf: JsonValue.JsonValue, key = "a"): JsonValue.JsonValue => {
  let v: JsonValue.JsonValue = leaf
  for (let i = 0; i < depth; i++) v = { [key]: v }
  return v
}

describe("ToolChain hostile input", () => {
  it.effect("a 10,000-segment path into a 10,000-level result, found and missing", () =>
    Effect.gen(function*() {
      const map = results([["call_1", ok(nested(10_000, { city: "Deep" }))]])
      const path = "result" + ".a".repeat(10_000) + ".city"
      assert.deepStrictEqual(ToolChain.valueAt(map.get("call_1")!, path), Either.right("Deep"))
      const outcome = yield* chain(weather, cityRef(path), map)
      assert.deepStrictEqual(Either.getOrThrow(outcome).value, { city: "Deep" })
      const e = invalidOf(yield* chain(weather, cityRef("result" + ".a".repeat(10_000) + ".town"), map))
      assertRefIssue(e, "city", "$path", "has no `town` (it has: city)")
      assert.isBelow(e.envelope.message.length, 1_000, "a long path is clipped in the message")
    }))

  it.effect("a 10,000-level value is substituted, and a ref 10,000 levels deep in the arguments is resolved, when the depth limit allows", () =>
    Effect.gen(function*() {
      const deepValidator = yield* ArgumentValidator.make({ toolChaining: true, maxArgumentDepth: 20_000 })
      const resolveWith = (v: ArgumentValidator.Service, raw: JsonValue.JsonValue, map: ToolChain.Results) =>
        Effect.gen(function*() {
          const call = yield* v.prepare(loose, raw, { callId: "call_2" })
          assert.strictEqual(call._tag, "Referencing")
          return yield* Effect.either(ToolChain.resolve(v, loose, call as ArgumentValidator.Referencing, map))
        })
      const deep = nested(10_000, "bottom")
      const map = results([["call_1", ok({ deep, city: "Oslo" })]])
      const whole = yield* resolveWith(deepValidator, { payload: { $tool: "call_1", $path: "result.deep" } }, map)
      assert.isTrue(JsonValue.equals(Either.getOrThrow(whole).value, { payload: deep }))
      const raw = nested(10_000, { $tool: "call_1", $path: "result.city" }, "n")
      const snapshot = JsonValue.stringify(raw)
      const call = yield* deepValidator.prepare(loose, raw, { callId: "call_2" })
      assert.strictEqual(call._tag === "Referencing" && call.refs[0]!.field.length, "n.".repeat(10_000).length - 1)
      const outcome = yield* resolveWith(deepValidator, raw, map)
      assert.isTrue(JsonValue.equals(Either.getOrThrow(outcome).value, nested(10_000, "Oslo", "n")))
      assert.strictEqual(JsonValue.stringify(raw), snapshot, "the model's arguments are not mutated")
      // with the default limit (64 levels) the same arguments, and the same substituted value, are invalid_args
      const refused = invalidOf(yield* chain(loose, { payload: { $tool: "call_1", $path: "result.deep" } }, map))
      assert.strictEqual(refused.issues[0]?.keyword, "maxDepth")
      const tooDeep = yield* Effect.flip(Effect.flatMap(validator, (v) => v.prepare(loose, raw, { callId: "call_2" })))
      assert.strictEqual(tooDeep._tag === "InvalidToolArguments" && tooDeep.issues[0]?.keyword, "maxDepth")
    }))

  it.effect("own __proto__ keys in results are plain data: copied as own properties, never a prototype", () =>
    Effect.gen(function*() {
      const result = JSON.parse("{\"safe\":{\"__proto__\":{\"polluted\":true},\"city\":\"Oslo\"},\"__proto__\":{\"polluted\":true}}")
      const map = results([["call_1", ok(result)]])
      const outcome = yield* chain(loose, JSON.parse("{\"__proto__\":{\"x\":{\"$tool\":\"call_1\",\"$path\":\"result.safe\"}},\"y\":{\"$tool\":\"call_1\"}}"), map)
      const value = Either.getOrThrow(outcome).value as Record<string, any>
      assert.isTrue(Object.hasOwn(value, "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
      const x = Object.getOwnPropertyDescriptor(value, "__proto__")!.value.x
      assert.isTrue(Object.hasOwn(x, "__proto__") && Object.hasOwn(x, "city"))
      assert.strictEqual(Object.getPrototypeOf(x), Object.prototype)
      assert.isTrue(Object.hasOwn(value["y"], "__proto__"))
      invalidOf(yield* chain(weather, cityRef("result.__proto__.polluted"), map))
      invalidOf(yield* chain(weather, cityRef("result.safe.__proto__.polluted"), map))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      assert.isUndefined((Object.prototype as Record<string, unknown>)["polluted"])
    }))

  it.effect("huge arrays: an index at the end, one past it, and a ref among 100,000 items", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 1_000_000 }, (_, i) => i)
      const map = results([["call_1", ok({ items, city: "Oslo" })]])
      assert.deepStrictEqual(ToolChain.valueAt(map.get("call_1")!, "result.items.999999"), Either.right(999_999))
      assert.deepStrictEqual(ToolChain.valueAt(map.get("call_1")!, "result.items[999999]"), Either.right(999_999))
      const e = invalidOf(yield* chain(loose, { n: { $tool: "call_1", $path: "result.items[1000000]" } }, map))
      assertRefIssue(e, "n", "$path", "has 1000000 items")
      const listTool = counted("list", { type: "object", properties: { list: { type: "array", items: { type: "string" } } } }).tool
      const list: Array<unknown> = Array.from({ length: 100_000 }, (_, i) => `s${i}`)
      list[54_321] = { $tool: "call_1", $path: "result.city" }
      const outcome = yield* chain(listTool, { list }, map)
      const resolved = (Either.getOrThrow(outcome).value as { list: ReadonlyArray<string> }).list
      assert.deepStrictEqual([resolved.length, resolved[54_321], resolved[54_322]], [100_000, "Oslo", "s54322"])
      assert.deepStrictEqual(list[54_321], { $tool: "call_1", $path: "result.city" })
    }))

  it.effect("huge and odd $path and call id strings are answered, clipped, never thrown", () =>
    Effect.gen(function*() {
      const long = "x".repeat(1_000_000)
      for (const path of [long, `result.${long}`, "result." + "a.".repeat(200_000) + "b", "result[" + "9".repeat(400) + "]", "result\u0000.city"]) {
        const e = invalidOf(yield* chain(weather, cityRef(path), oslo))
        assert.isBelow(e.envelope.message.length, 2_000)
      }
      const e = invalidOf(yield* chain(weather, cityRef("result.city", long), oslo))
      assert.isBelow(e.envelope.message.length, 2_000)
      const many = results(Array.from({ length: 50_000 }, (_, i) => [`call_${i}`, ok(i)] as const))
      const unknown = invalidOf(yield* chain(weather, cityRef("result", "call_x"), many))
      assert.include(unknown.envelope.message, "call_0, call_1")
      assert.isBelow(unknown.envelope.message.length, 2_000)
    }))
})

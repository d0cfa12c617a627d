import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { JsonValue } from "@toolgate/json-schema"
import { ArgumentValidator, Tool, ToolEnvelope } from "@toolgate/runtime"
import * as ToolChain from "../src/ToolChain.js"

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city"],
  additionalProperties: false
} as const

/** A JSON Schema tool that counts its executions. */
const counted = (name: string, parameters: Tool.JsonSchemaOptions<never>["parameters"]) => {
  const runs = { count: 0, last: undefined as unknown }
  const tool = Tool.make(name, {
    description: name,
    parameters,
    execute: (args) => Effect.sync(() => ((runs.last = args), ++runs.count))
  })
  return { runs, tool }
}

const weather = counted("get_weather", weatherSchema).tool
const loose = counted("loose", { type: "object" }).tool

const ok = (result: JsonValue.JsonValue) => ToolEnvelope.success(result, { tool: "lookup" })
const results = (entries: ReadonlyArray<readonly [string, ToolEnvelope.Envelope]>): ToolChain.Results => new Map(entries)
const oslo = results([["call_1", ok({ city: "Oslo", temp: 3, items: [{ name: "a" }, { name: "b" }] })]])

const validator = ArgumentValidator.make({ toolChaining: true })

/** The `Referencing` outcome of preparing `raw` for `tool` (the first half of what the session does). */
const referencing = <A>(tool: Tool.Tool<A>, raw: unknown) =>
  Effect.gen(function*() {
    const v = yield* validator
    const outcome = yield* v.prepare(tool, raw, { callId: "call_2" })
    assert.strictEqual(outcome._tag, "Referencing", JsonValue.stringify(raw)?.slice(0, 200))
    return outcome as ArgumentValidator.Referencing
  })

/** Prepares `raw`, resolves its refs against `map`, and answers the outcome as an Either. */
const chain = <A>(tool: Tool.Tool<A>, raw: unknown, map: ToolChain.Results) =>
  Effect.gen(function*() {
    const call = yield* referencing(tool, raw)
    return yield* Effect.either(ToolChain.resolve(yield* validator, tool, call, map))
  })

/** The `InvalidToolArguments` a resolve failed with. */
const invalidOf = <A>(outcome: Either.Either<Tool.Prepared<A>, ArgumentValidator.InvalidToolArguments | ArgumentValidator.InvalidToolSchema>) => {
  assert.isTrue(Either.isLeft(outcome), "expected a failure")
  const e = Either.isLeft(outcome) ? outcome.left : undefined
  if (e?._tag !== "InvalidToolArguments") throw new Error(`expected InvalidToolArguments, got ${e?._tag}`)
  assert.deepStrictEqual([e.envelope.ok, e.envelope.kind, e.envelope.retryable], [false, "invalid_args", true])
  return e
}

/** Asserts a single-ref failure: the envelope's field, the issue's pointer and keyword, and a message fragment. */
const assertRefIssue = (
  e: ArgumentValidator.InvalidToolArguments,
  field: string,
  keyword: string,
  fragment: string
) => {
  assert.strictEqual(e.envelope.field, field === "" ? undefined : field)
  assert.strictEqual(e.issues[0]!.field, field)
  assert.strictEqual(e.issues[0]!.path, field === "" ? "" : `/${field.split(".").join("/")}`)
  assert.strictEqual(e.issues[0]!.keyword, keyword)
  assert.isAbove(e.issues[0]!.expected.length, 0)
  assert.include(e.envelope.message, fragment)
}

const cityRef = (path: string | undefined, tool = "call_1") => ({ city: path === undefined ? { $tool: tool } : { $tool: tool, $path: path } })

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

  it.effect("an $artifact ref is not supported and says so", () =>
    Effect.gen(function*() {
      const e = invalidOf(yield* chain(weather, { city: { $tool: "call_1", $artifact: "art_1" } }, oslo))
      assertRefIssue(e, "city", "$artifact", "`$artifact` refs are not supported")
      const v = yield* validator
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
      const throwing = new Map<string, ToolEnvelope.Envelope>()
      throwing.get = () => {
        throw new Error("boom")
      }
      invalidOf(yield* Effect.either(ToolChain.resolve(v, weather, call, throwing)))
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
    assert.isTrue(Either.isLeft(ToolChain.valueAt({ nope: 1 } as unknown as ToolEnvelope.Envelope, "result")))
    assert.isTrue(Either.isLeft(ToolChain.valueAt(envelope, 5 as unknown as string)))
  })
})

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

  it.effect("a 10,000-level value is substituted, and a ref 10,000 levels deep in the arguments is resolved", () =>
    Effect.gen(function*() {
      const deep = nested(10_000, "bottom")
      const map = results([["call_1", ok({ deep, city: "Oslo" })]])
      const whole = yield* chain(loose, { payload: { $tool: "call_1", $path: "result.deep" } }, map)
      assert.isTrue(JsonValue.equals(Either.getOrThrow(whole).value, { payload: deep }))
      const raw = nested(10_000, { $tool: "call_1", $path: "result.city" }, "n")
      const snapshot = JsonValue.stringify(raw)
      const call = yield* referencing(loose, raw)
      assert.strictEqual(call.refs[0]!.field.length, "n.".repeat(10_000).length - 1)
      const outcome = yield* Effect.either(ToolChain.resolve(yield* validator, loose, call, map))
      assert.isTrue(JsonValue.equals(Either.getOrThrow(outcome).value, nested(10_000, "Oslo", "n")))
      assert.strictEqual(JsonValue.stringify(raw), snapshot, "the model's arguments are not mutated")
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

  it.effect("getters, inherited values, class instances and throwing proxies are never read", () =>
    Effect.gen(function*() {
      let getterRuns = 0
      const withGetter = { city: "Oslo" }
      Object.defineProperty(withGetter, "secret", { enumerable: true, get: () => ++getterRuns })
      const inherited = Object.create({ city: "Inherited" }) as JsonValue.JsonValue
      const proxy = new Proxy({}, {
        get: () => {
          throw new Error("trap")
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("trap")
        },
        getPrototypeOf: () => {
          throw new Error("trap")
        },
        ownKeys: () => {
          throw new Error("trap")
        }
      }) as JsonValue.JsonValue
      const map = results([["call_1", ok({ withGetter, inherited, proxy, date: new Date(0) as unknown as JsonValue.JsonValue })]])
      const paths = ["result.withGetter.secret", "result.withGetter", "result.inherited.city", "result.proxy.city", "result.proxy", "result.date"]
      for (const path of paths) invalidOf(yield* chain(loose, { x: { $tool: "call_1", $path: path } }, map))
      assert.strictEqual(getterRuns, 0)
      const hostileEnvelope = new Proxy({}, { getOwnPropertyDescriptor: () => {
        throw new Error("trap")
      } }) as unknown as ToolEnvelope.Envelope
      invalidOf(yield* chain(weather, cityRef("result.city"), results([["call_1", hostileEnvelope]])))
      assert.isTrue(Either.isLeft(ToolChain.valueAt(hostileEnvelope, undefined)))
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

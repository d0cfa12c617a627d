import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, FastCheck as fc, Layer, Schema } from "effect"
import { Validator } from "@toolgate/json-schema"
import { ArgumentValidator, Errors, Tool, type ToolEnvelope } from "@toolgate/runtime"

/** A JSON Schema tool that counts its executions. */
const counted = (name: string, parameters: Tool.JsonSchemaOptions<never>["parameters"]) => {
  const runs = { count: 0 }
  const tool = Tool.make(name, { description: name, parameters, execute: () => Effect.sync(() => ++runs.count) })
  return { runs, tool }
}

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" }, units: { type: "string", enum: ["metric", "imperial"] } },
  required: ["city"],
  additionalProperties: false
} as const

/** Prepares and, when ready, runs: the gate the session applies to every call. */
const gate = <A>(tool: Tool.Tool<A>, raw: unknown, options: ArgumentValidator.PrepareOptions = { callId: "c" }) =>
  Effect.gen(function*(): Effect.fn.Return<ArgumentValidator.Referencing | ToolEnvelope.Envelope, Errors.InvalidToolArguments | Errors.InvalidToolSchema, ArgumentValidator.ArgumentValidator> {
    const validator = yield* ArgumentValidator.ArgumentValidator
    const prepared = yield* validator.prepare(tool, raw, options)
    if (prepared._tag === "Referencing") return prepared
    return yield* Tool.run(tool, prepared)
  })

const withConfig = (entries: ReadonlyArray<readonly [string, string]>) =>
  ArgumentValidator.layerEnv.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))))

describe("ArgumentValidator", () => {
  it.effect("invalid arguments never reach execute; the error carries the envelope to feed back", () =>
    Effect.gen(function*() {
      const { runs, tool } = counted("get_weather", weatherSchema)
      const cases: ReadonlyArray<readonly [unknown, Array<Array<string>>]> = [
        [{}, [["/city", "required"]]],
        [{ city: 3 }, [["/city", "type"]]],
        [{ city: "Oslo", extra: 1 }, [["/extra", "additionalProperties"]]],
        ["[1]", [["", "type"]]],
        [{ city: "Oslo", units: "kelvin" }, [["/units", "enum"]]]
      ]
      for (const [raw, issues] of cases) {
        const e = yield* Effect.flip(gate(tool, raw, { callId: "call_x" }))
        assert.strictEqual(e._tag, "InvalidToolArguments", JSON.stringify(raw))
        if (e._tag !== "InvalidToolArguments") continue
        assert.deepStrictEqual([e.tool, e.callId, e.envelope.ok, e.envelope.kind, e.envelope.retryable], ["get_weather", "call_x", false, "invalid_args", true])
        assert.deepStrictEqual(e.issues.map((i) => [i.path, i.keyword]), issues, JSON.stringify(raw))
        assert.include(e.message, "get_weather")
      }
      assert.strictEqual(runs.count, 0)
      const missing = yield* Effect.flip(gate(tool, {}))
      assert.deepStrictEqual(missing._tag === "InvalidToolArguments" ? [missing.envelope.field, missing.issues[0]!.keyword] : [], ["city", "required"])
      yield* gate(tool, { city: "Oslo" })
      assert.strictEqual(runs.count, 1)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("lenient by default: near misses are repaired and reported", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.ArgumentValidator
      const { tool } = counted("get_weather", weatherSchema)
      const prepared = yield* validator.prepare(tool, "{\"city\":\"Oslo\",\"days\":\"3\",\"units\":\"Metric\"}", { callId: "c" })
      assert.deepStrictEqual(prepared.value, { city: "Oslo", days: 3, units: "metric" })
      assert.deepStrictEqual(prepared.coercions.map((c) => c.rule).sort(), ["enum-case", "string-to-integer"])
      assert.strictEqual(validator.policyFor("get_weather"), "lenient")
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("strict and lenient from config, and a per-tool override", () =>
    Effect.gen(function*() {
      const { runs, tool: weather } = counted("get_weather", weatherSchema)
      const { tool: search } = counted("search", { type: "object", properties: { limit: { type: "integer" } } })
      const run = (entries: ReadonlyArray<readonly [string, string]>, tool: Tool.Tool<any>) =>
        Effect.either(gate(tool, tool === weather ? { city: "Oslo", days: "3" } : { limit: "5" }).pipe(Effect.provide(withConfig(entries))))
      assert.isTrue(Either.isRight(yield* run([], weather)))
      assert.isTrue(Either.isLeft(yield* run([["TOOLGATE_ARGUMENT_POLICY", "strict"]], weather)))
      const overrides: ReadonlyArray<readonly [string, string]> = [
        ["TOOLGATE_ARGUMENT_POLICY", "strict"],
        ["TOOLGATE_ARGUMENT_POLICY_OVERRIDES", "get_weather=lenient, other=strict"]
      ]
      assert.isTrue(Either.isRight(yield* run(overrides, weather)))
      assert.isTrue(Either.isLeft(yield* run(overrides, search)))
      assert.strictEqual(runs.count, 2)
      const lenientButStrictWeather = yield* run([["TOOLGATE_ARGUMENT_POLICY_OVERRIDES", "get_weather=strict"]], weather)
      assert.isTrue(Either.isLeft(lenientButStrictWeather))
    }))

  it.effect("layerEnv: a malformed policy in config fails the layer with a typed error", () =>
    Effect.gen(function*() {
      for (const entries of [
        [["TOOLGATE_ARGUMENT_POLICY", "loose"]],
        [["TOOLGATE_ARGUMENT_POLICY_OVERRIDES", "get_weather"]],
        [["TOOLGATE_ARGUMENT_POLICY_OVERRIDES", "=strict"]],
        [["TOOLGATE_ARGUMENT_POLICY_OVERRIDES", "a=STRICT"]],
        [["TOOLGATE_TOOL_CHAINING", "maybe"]]
      ] as const) {
        const built = yield* Effect.either(Effect.provide(ArgumentValidator.ArgumentValidator, withConfig(entries)))
        assert.isTrue(Either.isLeft(built) && built.left._tag !== undefined, JSON.stringify(entries))
      }
    }))

  it.effect("options given directly: per-tool policies as a map or a record, __proto__ only a name, a bogus entry InvalidOptions", () =>
    Effect.gen(function*() {
      const fromRecord = yield* ArgumentValidator.make({ policy: "strict", policies: JSON.parse("{\"__proto__\":\"lenient\",\"a\":\"lenient\"}") })
      assert.deepStrictEqual(["a", "b", "__proto__", "constructor"].map(fromRecord.policyFor), ["lenient", "strict", "lenient", "strict"])
      const fromMap = yield* ArgumentValidator.make({ policies: new Map([["a", "strict"]]) })
      assert.deepStrictEqual(["a", "b"].map(fromMap.policyFor), ["strict", "lenient"])
      const bogus = yield* Effect.flip(ArgumentValidator.make({ policies: JSON.parse("{\"a\":\"lenient\",\"b\":\"bogus\"}") }))
      assert.strictEqual(bogus._tag, "InvalidOptions")
      const trapped = yield* Effect.flip(ArgumentValidator.make({ policies: new Proxy({}, { ownKeys: () => { throw new Error("trap") } }) }))
      assert.strictEqual(trapped._tag, "InvalidOptions")
      assert.isUndefined(({} as Record<string, unknown>)["lenient"])
    }))

  it.effect("fromStrictProvider drops a null for an optional property, under both policies", () =>
    Effect.gen(function*() {
      const { tool } = counted("get_weather", weatherSchema)
      for (const policy of ["lenient", "strict"] as const) {
        const validator = yield* ArgumentValidator.make({ policy })
        const prepared = yield* validator.prepare(tool, { city: "Oslo", days: null, units: null }, { callId: "c", fromStrictProvider: true })
        assert.deepStrictEqual(prepared.value, { city: "Oslo" }, policy)
      }
      // without the flag, a strict validator sees the null as the model's mistake
      const strict = yield* ArgumentValidator.make({ policy: "strict" })
      assert.isTrue(Either.isLeft(yield* Effect.either(strict.prepare(tool, { city: "Oslo", days: null }, { callId: "c" }))))
    }))

  it.effect("tool chaining widens the schema: a sentinel ref validates and comes back as Referencing", () =>
    Effect.gen(function*() {
      const { runs, tool } = counted("get_weather", weatherSchema)
      const raw = { city: { $tool: "call_1", $path: "result.city" } }
      const off = yield* Effect.either(gate(tool, raw).pipe(Effect.provide(ArgumentValidator.layer)))
      assert.isTrue(Either.isLeft(off))
      const on = yield* gate(tool, raw).pipe(Effect.provide(withConfig([["TOOLGATE_TOOL_CHAINING", "true"]])))
      assert.isTrue("refs" in on)
      if ("refs" in on) assert.deepStrictEqual(on.refs.map((r) => [r.path, r.ref.$tool]), [["/city", "call_1"]])
      const plain = yield* gate(tool, { city: "Oslo" }).pipe(Effect.provide(withConfig([["TOOLGATE_TOOL_CHAINING", "true"]])))
      assert.deepStrictEqual(plain, { ok: true, tool: "get_weather", result: 1 })
      assert.strictEqual(runs.count, 1)
    }))

  it.effect("tool chaining does not change what the model is told about a call without refs, nor blame a ref", () =>
    Effect.gen(function*() {
      const { runs, tool } = counted("get_weather", weatherSchema)
      const on = ArgumentValidator.make({ toolChaining: true })
      const envelopeOf = (validator: typeof on, raw: unknown) =>
        Effect.flatMap(validator, (v) => Effect.flip(v.prepare(tool, raw, { callId: "c" }))).pipe(
          Effect.map((e) => e._tag === "InvalidToolArguments" ? e.envelope : undefined)
        )
      for (const raw of ['{"days":3}', { city: "Oslo", days: "many" }, '{"city":"Oslo","units":"kelvin"}']) {
        const chained = yield* envelopeOf(on, raw)
        assert.deepStrictEqual(chained, yield* envelopeOf(ArgumentValidator.make(), raw))
        assert.notInclude(JSON.stringify(chained), "object")
      }
      // A ref plus a real mistake: only the mistake is reported, the ref is not called a wrong type.
      const mixed = yield* envelopeOf(on, { city: { $tool: "call_1", $path: "result.city" }, days: "many" })
      assert.strictEqual(mixed?.field, "days")
      assert.notInclude(mixed?.message ?? "", "city")
      assert.strictEqual(runs.count, 0)
    }))

  it.effect("a schema that cannot be used is InvalidToolSchema naming the tool, not the model's fault", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const { runs, tool } = counted("broken", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } })
      const e = yield* Effect.flip(validator.prepare(tool, { a: 1 }, { callId: "c" }))
      assert.deepStrictEqual([e._tag, e.tool], ["InvalidToolSchema", "broken"])
      const unreadable = Tool.make("big", { description: "", parameters: new Proxy({}, { ownKeys: () => { throw new Error("trap") } }) as never, execute: () => Effect.void })
      const e2 = yield* Effect.flip(validator.prepare(unreadable, {}, { callId: "c" }))
      assert.deepStrictEqual([e2._tag, e2.tool], ["InvalidToolSchema", "big"])
      const noJson = Tool.make("bigint", { description: "", parameters: Schema.Struct({ n: Schema.BigIntFromSelf }), execute: () => Effect.void })
      const e3 = yield* Effect.flip(validator.prepare(noJson, { n: 1 }, { callId: "c" }))
      assert.deepStrictEqual([e3._tag, e3.tool], ["InvalidToolSchema", "bigint"])
      assert.include(e3.message, "no JSON Schema form")
      assert.strictEqual(runs.count, 0)
    }))

  it.effect.prop(
    "whatever the raw arguments, what reaches execute is valid against the local schema",
    [fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.string()), fc.constantFrom("lenient" as const, "strict" as const)],
    ([raw, policy]) =>
      Effect.gen(function*() {
        const { runs, tool } = counted("get_weather", weatherSchema)
        const seen: Array<unknown> = []
        const spy = Tool.make("get_weather", { description: "", parameters: weatherSchema, execute: (args) => Effect.sync(() => seen.push(args)) })
        const validator = yield* ArgumentValidator.make({ policy })
        const prepared = yield* Effect.either(validator.prepare(spy, raw, { callId: "p" }))
        if (Either.isRight(prepared) && prepared.right._tag === "Prepared") yield* Tool.run(spy, prepared.right)
        if (Either.isLeft(prepared)) assert.strictEqual(prepared.left._tag, "InvalidToolArguments")
        const compiled = Either.getOrThrow(Validator.compile(tool.jsonSchema))
        for (const args of seen) assert.isTrue(compiled.isValid(args), JSON.stringify(args))
        assert.strictEqual(seen.length, Either.isRight(prepared) ? 1 : 0)
        assert.strictEqual(runs.count, 0)
      })
  )

  it.effect("hostile raw arguments: truncated JSON, 10,000 levels, __proto__ keys, throwing getters", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const { runs, tool } = counted("get_weather", weatherSchema)
      const { tool: open } = counted("open", { type: "object" })
      let deep: unknown = "x"
      for (let i = 0; i < 10_000; i++) deep = { city: deep }
      const deepText = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000)
      const hostile: ReadonlyArray<unknown> = [
        "{\"city\":\"Os",
        deep,
        deepText,
        JSON.parse("{\"city\":\"Oslo\",\"__proto__\":{\"polluted\":true}}"),
        "{\"city\":\"Oslo\",\"__proto__\":{\"polluted\":true}}",
        { get city(): string { throw new Error("getter") } },
        new Proxy({}, { ownKeys: () => { throw new Error("trap") } }),
        Symbol("s"),
        () => 1,
        1n
      ]
      const chaining = yield* ArgumentValidator.make({ toolChaining: true })
      for (const [i, raw] of hostile.entries()) {
        for (const v of [validator, chaining]) {
          const e = yield* Effect.flip(v.prepare(tool, raw, { callId: `c${i}` }))
          assert.strictEqual(e._tag, "InvalidToolArguments", `case ${i}, tool chaining ${v.toolChaining}`)
        }
      }
      const deepOpen = yield* Effect.either(validator.prepare(open, deepText, { callId: "d" }))
      assert.isTrue(Either.isLeft(deepOpen) || deepOpen.right._tag === "Prepared")
      const hostileCallId = yield* Effect.flip(validator.prepare(tool, "{", { callId: 7 as never }))
      assert.strictEqual(hostileCallId._tag === "InvalidToolArguments" ? hostileCallId.callId : "?", "")
      assert.strictEqual(runs.count, 0)
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }))

  it.effect("the depth limit holds for the value given, the text parsed and what coercion built from a string", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make({ maxArgumentDepth: 5 })
      const { runs, tool } = counted("nest", { type: "object", properties: { opts: { type: "object" } } })
      const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } }
      const depthOf = (raw: unknown) =>
        Effect.flip(validator.prepare(tool, raw, { callId: "c" })).pipe(
          Effect.map((e) => e._tag === "InvalidToolArguments" ? e.issues.map((i) => i.keyword) : [])
        )
      assert.deepStrictEqual(yield* depthOf({ opts: deep }), ["maxDepth"])
      assert.deepStrictEqual(yield* depthOf(JSON.stringify({ opts: deep })), ["maxDepth"])
      // lenient coercion decodes a string that holds an object: the object it built is checked too
      assert.deepStrictEqual(yield* depthOf({ opts: JSON.stringify(deep) }), ["maxDepth"])
      const shallow = yield* validator.prepare(tool, { opts: JSON.stringify({ a: 1 }) }, { callId: "c" })
      assert.deepStrictEqual(shallow._tag === "Prepared" ? shallow.value : undefined, { opts: { a: 1 } })
      assert.strictEqual(runs.count, 0)
    }))

  it.effect("a lone surrogate is named where it first stands in document order, in a key or a value, at any depth", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const { runs, tool } = counted("text", { type: "object" })
      const first = (raw: unknown) =>
        Effect.flip(validator.prepare(tool, raw, { callId: "c" })).pipe(
          Effect.map((e) => e._tag === "InvalidToolArguments" ? e.issues.map((i) => [i.keyword, i.path]) : [])
        )
      assert.deepStrictEqual(yield* first({ a: "ok", b: ["x", "\uD800"], "\uDC00": 1 }), [["wellFormed", "/b/1"]])
      assert.deepStrictEqual(yield* first({ a: "ok", "\uDC00": 1, b: ["x", "\uD800"] }), [["wellFormed", "/\uDC00"]])
      assert.deepStrictEqual(yield* first({ a: { "k/~": ["\uDFFF"] } }), [["wellFormed", "/a/k~1~0/0"]])
      // 40 levels of 500 keys each (20,000 strings) and the surrogate in the last one: found, with its whole path
      const wide = (depth: number): Record<string, unknown> => {
        const o: Record<string, unknown> = {}
        for (let i = 0; i < 500; i++) o[`k${i}`] = `v${i}`
        if (depth > 0) o.next = wide(depth - 1)
        else o.last = "\uD800"
        return o
      }
      assert.deepStrictEqual(yield* first(wide(39)), [["wellFormed", "/next".repeat(39) + "/last"]])
      assert.strictEqual(runs.count, 0)
    }))
})

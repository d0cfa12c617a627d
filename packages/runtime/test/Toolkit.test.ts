import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Option } from "effect"
import type { JsonValue as J } from "@toolgate/json-schema"
import { ArgumentValidator, Errors, Tool, Toolkit } from "@toolgate/runtime"

class Weather extends Context.Tag("test/Weather")<Weather, { readonly forecast: (city: string) => Effect.Effect<string> }>() {}
class Files extends Context.Tag("test/Files")<Files, { readonly read: (path: string) => Effect.Effect<string> }>() {}

const object = (properties: Record<string, { type: string }>) => ({ type: "object", properties, required: Object.keys(properties) })

const forecast = Tool.make("forecast", {
  description: "Forecast",
  parameters: object({ city: { type: "string" } }),
  execute: (args) => Effect.flatMap(Weather, (w) => w.forecast((args as { city: string }).city))
})

const readFile = Tool.make("read_file", {
  description: "Read",
  parameters: object({ path: { type: "string" } }),
  execute: (args) => Effect.flatMap(Files, (f) => f.read((args as { path: string }).path))
})

const pure = Tool.make("echo", { description: "Echo", parameters: true, execute: (args) => Effect.succeed(args) })

/** Prepares and runs one call of a toolkit that needs nothing. */
const runIn = (toolkit: Toolkit.Toolkit<never>, name: string, raw: unknown) =>
  Effect.gen(function*() {
    const tool = Option.getOrThrow(Toolkit.get(toolkit, name))
    const validator = yield* ArgumentValidator.make()
    const prepared = yield* validator.prepare(tool, raw, { callId: "c" })
    return prepared._tag === "Prepared" ? yield* Tool.run(tool, prepared) : prepared
  })

describe("Toolkit", () => {
  it("carries the union of its executors' requirements, and tools by name in order", () => {
    const made = Toolkit.make(forecast, readFile, pure)
    type Invalid = Errors.DuplicateToolName | Errors.NotATool
    const typed: Either.Either<Toolkit.Toolkit<Weather | Files>, Invalid> = made
    // @ts-expect-error the toolkit needs Files too
    const _narrow: Either.Either<Toolkit.Toolkit<Weather>, Invalid> = made
    assert.isTrue(Either.isRight(typed))
    const toolkit = Either.getOrThrow(made)
    assert.deepStrictEqual(Array.from(toolkit.tools.keys()), ["forecast", "read_file", "echo"])
    assert.strictEqual(Option.getOrNull(Toolkit.get(toolkit, "forecast")), forecast)
    assert.isTrue(Toolkit.isToolkit(toolkit))
    assert.isFalse(Toolkit.isToolkit({ tools: new Map() }))
    assert.strictEqual(toolkit.tools.get("read_file")!.jsonSchema, readFile.jsonSchema)
  })

  it("rejects a duplicate name with a typed DuplicateToolName; __proto__ and constructor are just names", () => {
    const again = Tool.make("forecast", { description: "other", parameters: true, execute: () => Effect.void })
    const dup = Toolkit.make(forecast, readFile, again)
    assert.isTrue(Either.isLeft(dup))
    if (Either.isLeft(dup)) {
      assert.strictEqual(dup.left.name, "forecast")
      assert.include(dup.left.message, "`forecast`")
    }
    const odd = ["__proto__", "constructor", "toString", ""].map((name) => Tool.make(name, { description: "", parameters: true, execute: () => Effect.void }))
    const toolkit = Either.getOrThrow(Toolkit.make(...odd))
    assert.strictEqual(toolkit.tools.size, 4)
    assert.strictEqual(Option.getOrNull(Toolkit.get(toolkit, "__proto__")), odd[0])
    assert.isTrue(Option.isNone(Toolkit.get(toolkit, "hasOwnProperty")))
    assert.isTrue(Either.isLeft(Toolkit.make(odd[0]!, odd[0]!)))
    assert.isTrue(Either.isRight(Toolkit.make()))
    for (const hostile of [null, undefined, { name: "x" }, JSON.parse("{\"__proto__\":{\"name\":\"p\"}}")]) {
      const r = Toolkit.make(forecast, hostile as never)
      assert.isTrue(Either.isLeft(r) && r.left._tag === "NotATool" && r.left.index === 1)
    }
    assert.isUndefined(({} as Record<string, unknown>)["forecast"])
  })

  it.scoped("provide builds the layer once; the provided toolkit needs nothing", () =>
    Effect.gen(function*() {
      let builds = 0
      const services = Layer.mergeAll(
        Layer.effect(Weather, Effect.sync(() => (builds++, { forecast: (city: string) => Effect.succeed(`sunny in ${city}`) }))),
        Layer.succeed(Files, { read: (path: string) => Effect.succeed(`contents of ${path}`) })
      )
      const toolkit = yield* Toolkit.provide(Either.getOrThrow(Toolkit.make(forecast, readFile, pure)), services)
      assert.deepStrictEqual(yield* runIn(toolkit, "forecast", { city: "Oslo" }), { ok: true, tool: "forecast", result: "sunny in Oslo" })
      assert.deepStrictEqual(yield* runIn(toolkit, "forecast", "{\"city\":\"Bergen\"}"), { ok: true, tool: "forecast", result: "sunny in Bergen" })
      assert.deepStrictEqual(yield* runIn(toolkit, "read_file", { path: "a" }), { ok: true, tool: "read_file", result: "contents of a" })
      assert.deepStrictEqual(yield* runIn(toolkit, "echo", [1]), { ok: true, tool: "echo", result: [1] })
      assert.strictEqual(builds, 1)
    }))

  it.effect("provideContext gives executors (and undo) their services from one context", () =>
    Effect.gen(function*() {
      const undone: Array<string> = []
      const undoable = Tool.make("write", {
        description: "",
        parameters: true,
        execute: () => Effect.flatMap(Files, (f) => f.read("w")),
        undo: (_args, ctx) => Effect.flatMap(Files, (f) => Effect.map(f.read(String(ctx.result)), (s) => void undone.push(s)))
      })
      const context = Context.make(Files, { read: (path: string) => Effect.succeed(`read ${path}`) })
      const toolkit = Toolkit.provideContext(Either.getOrThrow(Toolkit.make(undoable)), context)
      const tool = toolkit.tools.get("write")!
      assert.deepStrictEqual(yield* runIn(toolkit, "write", {}), { ok: true, tool: "write", result: "read w" })
      yield* tool.undo!({}, { tool: "write", callId: "c", raw: {}, prepared: {}, coercions: [], idempotencyKey: "k", saveArtifact: () => Effect.void, result: "x" })
      assert.deepStrictEqual(undone, ["read x"])
    }))
})

describe("Tool.make and Toolkit.make: hostile objects get typed answers, never a throw", () => {
  const trap = () => {
    throw new Error("trap")
  }
  const throwing = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap })
  const revoked = (() => {
    const r = Proxy.revocable({}, {})
    r.revoke()
    return r.proxy
  })()
  const throwingGetter = Object.defineProperty({ description: "d", execute: () => Effect.succeed(1) }, "parameters", { get: trap, enumerable: true })

  it.effect("Tool.make: unreadable options or parameters give a tool whose schemaError says why; preparing a call is InvalidToolSchema", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["options proxy", throwing],
        ["revoked options", revoked],
        ["throwing getter", throwingGetter],
        ["parameters proxy", { description: "d", parameters: throwing, execute: () => Effect.succeed(1) }],
        ["revoked parameters", { description: "d", parameters: revoked, execute: () => Effect.succeed(1) }],
        ["no options", null],
        ["execute not a function", { description: "d", parameters: { type: "object" }, execute: 1 }]
      ]
      for (const [label, options] of cases) {
        const tool = Tool.make("t", options as never)
        assert.isTrue(Tool.isTool(tool), label)
        assert.isString(tool.schemaError, label)
        assert.strictEqual(tool.jsonSchema, false, label)
        const error = yield* Effect.flip(validator.prepare(tool, {}, { callId: "c" }))
        assert.strictEqual(error._tag, "InvalidToolSchema", label)
        const ran = yield* Tool.run(tool, { _tag: "Prepared", tool: "t", callId: "c", raw: {}, value: {}, coercions: [], args: {} })
        assert.strictEqual(ran.ok, false, label)
      }
    }))

  it("Toolkit.make and Toolkit.domains: a proxy whose traps throw, a revoked proxy, a tool whose name getter throws are NotATool or InvalidOptions", () => {
    const ok = Tool.make("ok", { description: "d", parameters: { type: "object" }, execute: () => Effect.succeed(1) })
    const nameTrap = new Proxy(ok, { get: (o, k) => k === "name" ? trap() : (o as never)[k] })
    for (const [label, tools] of [["proxy", [throwing]], ["revoked", [ok, revoked]], ["name getter", [nameTrap]]] as const) {
      const made = Toolkit.make(...(tools as unknown as ReadonlyArray<Tool.Tool<unknown>>))
      assert.isTrue(Either.isLeft(made) && made.left._tag === "NotATool", label)
    }
    for (const [label, domains] of [["proxy", throwing], ["revoked", revoked], ["member proxy", { a: throwing }], ["null", null], ["not a list", { a: 3 }]] as const) {
      const made = Toolkit.domains(domains as never)
      assert.isTrue(Either.isLeft(made) && made.left._tag === "InvalidOptions", label)
    }
    assert.isTrue(Either.isLeft(Toolkit.domains({ a: [throwing as never] })))
    // a name that is a throwing proxy, with a schema that warns (its messages name the tool): a tool that cannot be used
    const named = Tool.make(throwing as never, { description: "d", parameters: { type: "object", propertes: {} }, execute: () => Effect.succeed(1) })
    assert.isString(named.schemaError)
    assert.isTrue(Either.isLeft(Toolkit.make(named)))
    assert.isTrue(Either.isRight(Toolkit.domains({ a: [ok] })))
  })
})

describe("Tool and Toolkit functions: hostile values past the types answer, never throw", () => {
  const trap = () => {
    throw new Error("trap")
  }
  const throwing = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap })
  const ok = Tool.make("ok", { description: "d", parameters: { type: "object" }, execute: () => Effect.succeed(1) })
  const prepared: Tool.Prepared<J.JsonValue> = { _tag: "Prepared", tool: "ok", callId: "c", raw: {}, value: {}, coercions: [], args: {} }

  it.effect("isTool/isToolkit are false for a throwing proxy; fail with throwing options still fails typed; run answers an envelope", () =>
    Effect.gen(function*() {
      assert.isFalse(Tool.isTool(throwing))
      assert.isFalse(Toolkit.isToolkit(throwing))
      const failed = yield* Effect.flip(Tool.fail("invalid_args", "m", throwing as never))
      assert.strictEqual(failed._tag, "ToolFailure")
      const failedMessage = yield* Effect.flip(Tool.fail("invalid_args", throwing as never))
      assert.strictEqual(failedMessage.kind, "execution_error")
      const withOptions = yield* Tool.run(ok, prepared, throwing as never)
      assert.strictEqual(withOptions.ok, false)
      const withPrepared = yield* Tool.run(ok, throwing as never)
      assert.strictEqual(withPrepared.ok, false)
      assert.strictEqual((yield* Tool.run(ok, prepared)).ok, true)
    }))
})

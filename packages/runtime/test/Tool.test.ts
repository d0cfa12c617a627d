import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Fiber, Logger, Ref, Schema } from "effect"
import { type JsonValue as J, Normalize } from "@toolgate/json-schema"
import { ArgumentValidator, Errors, Provider, Tool, Toolkit, ToolEnvelope } from "@toolgate/runtime"
import * as ToolDiscovery from "../src/internal/toolDiscovery.js"
import { defaults } from "./support/scriptedProvider.js"

/** A logger that keeps what it is given, to assert that a defect is logged. */
const captureLogs = () => {
  const entries: Array<{
    readonly level: string
    readonly message: unknown
    readonly cause: Cause.Cause<unknown>
    readonly annotations: Record<string, unknown>
  }> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, cause, logLevel, message }) => {
      entries.push({ level: logLevel.label, message, cause, annotations: Object.fromEntries(annotations) })
    })
  )
  return { entries, layer }
}

/** Prepares `raw` for `tool` with the default validator, then runs it: the path of one call. */
const call = <A>(tool: Tool.Tool<A>, raw: unknown, callId = "call_1") =>
  Effect.gen(function*() {
    const validator = yield* ArgumentValidator.make()
    const prepared = yield* validator.prepare(tool, raw, { callId })
    assert.strictEqual(prepared._tag, "Prepared")
    return yield* Tool.run(tool, prepared as Tool.Prepared<A>)
  })

const Forecast = Schema.Struct({
  city: Schema.String,
  days: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 14)), { default: () => 3 }),
  from: Schema.DateFromString
})

describe("Tool", () => {
  it.effect("an Effect Schema tool gets the decoded, typed value and a context with the coercions", () =>
    Effect.gen(function*() {
      const seen: Array<{ args: typeof Forecast.Type; ctx: Tool.CallContext }> = []
      const forecast = Tool.make("forecast", {
        description: "Weather forecast",
        parameters: Forecast,
        execute: (args, ctx) =>
          Effect.sync(() => {
            seen.push({ args, ctx })
            return { city: args.city.toUpperCase(), year: args.from.getUTCFullYear(), days: args.days }
          })
      })
      const local = forecast.jsonSchema as { type?: unknown; required?: unknown; $schema?: unknown }
      assert.deepStrictEqual([local.type, local.required, local.$schema], ["object", ["city", "from"], "https://json-schema.org/draft/2020-12/schema"])
      const raw = "{\"city\":\"oslo\",\"from\":\"2026-11-21T00:00:00Z\",\"days\":\"5\"}"
      const envelope = yield* call(forecast, raw, "call_9")
      assert.deepStrictEqual(envelope, { ok: true, tool: "forecast", result: { city: "OSLO", year: 2026, days: 5 } })
      const [{ args, ctx }] = seen as [typeof seen[number]]
      assert.instanceOf(args.from, Date)
      assert.deepStrictEqual([ctx.tool, ctx.callId, ctx.raw], ["forecast", "call_9", raw])
      assert.deepStrictEqual(ctx.prepared, { city: "oslo", from: "2026-11-21T00:00:00Z", days: 5 })
      assert.deepStrictEqual(ctx.coercions.map((c) => c.rule), ["string-to-integer"])
      const defaulted = yield* call(forecast, { city: "x", from: "2026-01-01" })
      assert.deepStrictEqual(defaulted, { ok: true, tool: "forecast", result: { city: "X", year: 2026, days: 3 } })
    }))

  it.effect("a decode failure after JSON validation passed is invalid_args, and execute never runs", () =>
    Effect.gen(function*() {
      let runs = 0
      const absolute = Tool.make("read", {
        description: "Read a file",
        parameters: Schema.Struct({ path: Schema.String.pipe(Schema.filter((s) => s.startsWith("/"), { message: () => "an absolute path" })), at: Schema.Date }),
        execute: () => Effect.sync(() => runs++)
      })
      const validator = yield* ArgumentValidator.make()
      const e = yield* Effect.flip(validator.prepare(absolute, { path: "etc/passwd", at: "not a date" }, { callId: "c1" }))
      assert.strictEqual(e._tag, "InvalidToolArguments")
      if (e._tag !== "InvalidToolArguments") return
      assert.deepStrictEqual([e.tool, e.callId, e.envelope.kind, e.envelope.tool], ["read", "c1", "invalid_args", "read"])
      assert.deepStrictEqual(e.issues.map((i) => [i.field, i.keyword]), [["path", "decode"], ["at", "decode"]])
      assert.include(e.envelope.message, "an absolute path")
      assert.strictEqual(runs, 0)
    }))

  it.effect("an executor's ToolFailure becomes its envelope", () =>
    Effect.gen(function*() {
      const read = Tool.make("read_file", {
        description: "Read a file",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        execute: (args) => Tool.fail("not_found", `No such file: ${(args as { path: string }).path}`, { field: "path", expected: "an existing file" })
      })
      assert.deepStrictEqual(yield* call(read, "{\"path\":\"a.txt\"}"), {
        ok: false,
        kind: "not_found",
        message: "No such file: a.txt",
        field: "path",
        expected: "an existing file",
        tool: "read_file",
        retryable: false
      })
      const hostileFail = Tool.make("h", {
        description: "",
        parameters: true,
        execute: () => Tool.fail("bogus" as never, 42 as never, { field: undefined, expected: 7, retryable: "yes" } as never)
      })
      assert.deepStrictEqual(yield* call(hostileFail, {}), ToolEnvelope.failure("execution_error", "42", { tool: "h" }))
      const retry = Tool.make("flaky", { description: "", parameters: true, execute: () => Tool.fail("unavailable", "busy", { retryable: false }) })
      assert.deepStrictEqual(yield* call(retry, null), ToolEnvelope.failure("unavailable", "busy", { tool: "flaky", retryable: false }))
    }))

  it.effect("a defect (die or a throw) becomes execution_error and is logged with its cause", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const dies = Tool.make("dies", { description: "", parameters: {}, execute: () => Effect.die(new TypeError("x is not a function")) })
      const throws = Tool.make("throws", { description: "", parameters: {}, execute: () => { throw new Error("sync boom") } })
      const died = yield* call(dies, {})
      assert.deepStrictEqual(died, ToolEnvelope.failure("execution_error", "The tool failed unexpectedly: TypeError: x is not a function", { tool: "dies" }))
      const thrown = yield* call(throws, {}, "call_2")
      assert.deepStrictEqual([thrown.ok, thrown.ok ? "" : thrown.kind], [false, "execution_error"])
      const errors = logs.entries.filter((e) => e.level === "ERROR")
      assert.strictEqual(errors.length, 2)
      assert.include(String(errors[0]!.message), "`dies`")
      assert.include(Cause.pretty(errors[0]!.cause), "x is not a function")
      assert.include(Cause.pretty(errors[1]!.cause), "sync boom")
      assert.deepStrictEqual(errors.map((e) => [e.annotations["tool"], e.annotations["callId"]]), [["dies", "call_1"], ["throws", "call_2"]])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("interruption stays interruption", () =>
    Effect.gen(function*() {
      const stops = Tool.make("stops", { description: "", parameters: {}, execute: () => Effect.interrupt })
      const exit = yield* Effect.exit(call(stops, {}))
      assert.isTrue(Exit.isInterrupted(exit))
      const hangs = Tool.make("hangs", { description: "", parameters: {}, execute: () => Effect.never })
      const fiber = yield* Effect.fork(call(hangs, {}))
      yield* Effect.yieldNow()
      assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(fiber)))
    }))

  it.effect("results: JSON is a success, an envelope passes through, undefined is null, non-JSON is an execution_error", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const returning = (name: string, value: unknown) => Tool.make(name, { description: "", parameters: {}, execute: () => Effect.succeed(value) })
      assert.deepStrictEqual(yield* call(returning("a", [1, "x"]), {}), { ok: true, tool: "a", result: [1, "x"] })
      assert.deepStrictEqual(yield* call(returning("b", ToolEnvelope.text("hi")), {}), { ok: true, tool: "b", result: { text: "hi" } })
      const denied = ToolEnvelope.failure("user_denied", "no", { tool: "other" })
      assert.deepStrictEqual(yield* call(returning("c", denied), {}), denied)
      assert.deepStrictEqual(yield* call(returning("d", undefined), {}), { ok: true, tool: "d", result: null })
      const weird = yield* call(returning("e", { n: 1n }), {})
      assert.deepStrictEqual([weird.ok, weird.ok ? "" : weird.kind], [false, "execution_error"])
      assert.strictEqual(logs.entries.filter((e) => e.level === "ERROR").length, 1)
    }).pipe(Effect.provide(logs.layer))
  })

  it("hostile parameters make a tool whose schema is unusable, never a throw", () => {
    const hostile: ReadonlyArray<unknown> = [
      null,
      42,
      "object",
      new Proxy({}, { get: () => { throw new Error("trap") }, ownKeys: () => { throw new Error("trap") } }),
      Schema.BigIntFromSelf
    ]
    for (const [i, parameters] of hostile.entries()) {
      const tool = Tool.make("__proto__", { description: "d", parameters: parameters as never, execute: () => Effect.void })
      assert.isTrue(Tool.isTool(tool), `case ${i}`)
      assert.strictEqual(tool.name, "__proto__")
      assert.strictEqual(typeof tool.schemaError === "string" || tool.jsonSchema !== false, true, `case ${i}`)
    }
    assert.isString(Tool.make("n", { description: "", parameters: Schema.BigIntFromSelf, execute: () => Effect.void }).schemaError)
    assert.isFalse(Tool.isTool({ name: "x" }))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("warningsOf: wrong types and throwing getters give none; __proto__ keys are reported as keywords; a misspelling 10,000 levels down is found", () => {
    const throwing = {
      get type(): unknown {
        throw new Error("getter")
      }
    }
    for (const schema of [null, 42, "object", [], throwing, new Proxy({}, { ownKeys: () => { throw new Error("trap") } })]) {
      assert.deepStrictEqual(Tool.warningsOf("t", schema as never), [], String(schema))
    }
    const proto = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"maxLenght\":3,\"format\":\"bogus\"}},\"__proto__\":{\"minimum\":1}}") as never
    assert.deepStrictEqual(Tool.warningsOf("t", proto).map((w) => [w.kind, w.name, w.path]), [
      ["keyword", "__proto__", "/__proto__"],
      ["keyword", "maxLenght", "/properties/__proto__/maxLenght"],
      ["format", "bogus", "/properties/__proto__/format"]
    ])
    assert.isUndefined(({} as Record<string, unknown>)["minimum"])
    const root: Record<string, unknown> = {}
    let at = root
    for (let i = 0; i < 10_000; i++) {
      const next: Record<string, unknown> = {}
      at["properties"] = { a: next }
      at = next
    }
    at["maxLenght"] = 3
    const [deep, ...rest] = Tool.warningsOf("t", root as never)
    assert.deepStrictEqual(rest, [])
    assert.strictEqual(deep?.name, "maxLenght")
    assert.strictEqual(deep?.path, `${"/properties/a".repeat(10_000)}/maxLenght`)
  })

  it.effect("contextOf: an artifact that is not JSON is a ToolFailure and never reaches the sink; a wrong-typed idempotency key falls back to the call id", () =>
    Effect.gen(function*() {
      const tool = Tool.make("t", { description: "", parameters: { type: "object" }, execute: () => Effect.void })
      const saved: Array<string> = []
      const prepared: Tool.Prepared<J.JsonValue> = { _tag: "Prepared", tool: "t", callId: "c1", raw: {}, value: {}, coercions: [], args: {} }
      const ctx = Tool.contextOf(tool, prepared, { idempotencyKey: 42 as never, onArtifact: (name) => void saved.push(name) })
      assert.strictEqual(ctx.idempotencyKey, "c1")
      const cycle: Record<string, unknown> = {}
      cycle["self"] = cycle
      for (const value of [cycle, 1n, () => 1, Number.NaN, undefined, Symbol("s")]) {
        const exit = yield* Effect.exit(ctx.saveArtifact("bad", value as never))
        assert.deepStrictEqual(exit, Exit.fail(new Errors.ToolFailure({ kind: "execution_error", message: "The tool's artifact `bad` is not JSON." })))
      }
      yield* ctx.saveArtifact("__proto__", JSON.parse("{\"__proto__\":{\"polluted\":true}}") as never)
      assert.deepStrictEqual(saved, ["__proto__"])
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }))

  it("a JSON Schema is upgraded to 2020-12 and its changes kept", () => {
    const tool = Tool.make("t", {
      description: "",
      parameters: { type: "object", properties: { n: { type: "integer", nullable: true } } },
      execute: () => Effect.void
    })
    assert.deepStrictEqual(tool.changes, [{ path: "/properties/n/nullable", change: "`nullable: true` became `\"null\"` in `type`" }])
    assert.notProperty((tool.jsonSchema as { properties: { n: object } }).properties.n, "nullable")
  })
})

describe("Tool: a tool without arguments", () => {
  const noArgs = Tool.make("now", { description: "The time.", parameters: Schema.Struct({}), execute: () => Effect.succeed("12:00") })

  it("Schema.Struct({}) becomes the plain object schema every struct becomes (strict-able), not any object or array", () => {
    assert.deepStrictEqual(noArgs.jsonSchema, {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {},
      additionalProperties: false
    })
    assert.isTrue(Normalize.openAiStrict(noArgs.jsonSchema).strict)
    const nested = Tool.make("list", { description: "d", parameters: Schema.Struct({ opts: Schema.optional(Schema.Struct({})) }), execute: () => Effect.succeed(1) })
    assert.deepStrictEqual((nested.jsonSchema as { properties: object }).properties, { opts: { type: "object", properties: {}, additionalProperties: false } })
    assert.isTrue(Normalize.openAiStrict(nested.jsonSchema).strict)
    const described = Tool.make("now", { description: "d", parameters: Schema.Struct({}).annotations({ description: "none" }), execute: () => Effect.succeed(1) })
    assert.strictEqual((described.jsonSchema as { description?: string }).description, "none")
    assert.strictEqual((described.jsonSchema as { type?: string }).type, "object")
  })

  it.effect("null, omitted, \"\" and \"null\" arguments are {} and never flagged; [] is not arguments", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      for (const raw of [null, undefined, "", "null", " ", {}, "{}"]) {
        const prepared = yield* validator.prepare(noArgs, raw, { callId: "c" })
        assert.strictEqual(prepared._tag, "Prepared", JSON.stringify(raw))
        assert.deepStrictEqual((prepared as Tool.Prepared<unknown>).value, {}, JSON.stringify(raw))
      }
      for (const raw of [[], "[]"]) {
        const refused = yield* Effect.flip(validator.prepare(noArgs, raw, { callId: "c" }))
        assert.include(refused.message, "must be object", JSON.stringify(raw))
      }
    }))

  it("the discovery tool toolgate_list_domains has the plain object schema", () => {
    const [list] = ToolDiscovery.tools(
      Either.getOrThrow(Toolkit.make(noArgs)),
      { ...defaults, toolDiscovery: Provider.dynamicPerRequest },
      Effect.runSync(Ref.make(ToolDiscovery.initial(Either.getOrThrow(Toolkit.make(noArgs)), defaults)))
    )
    assert.strictEqual(list!.name, "toolgate_list_domains")
    assert.deepStrictEqual((list!.jsonSchema as { anyOf?: unknown }).anyOf, undefined)
    assert.deepStrictEqual({ ...(list!.jsonSchema as object), $schema: undefined }, { $schema: undefined, type: "object", properties: {}, additionalProperties: false })
  })
})

describe("Tool: keepEmptyStrings", () => {
  const updateIssue = {
    type: "object",
    properties: { number: { type: "integer" }, body: { type: "string" } },
    required: ["number"]
  } as const

  it.effect("a tool made with keepEmptyStrings receives body: \"\"; one made without gets the field dropped", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      const keeping = Tool.make("update_issue", { description: "d", parameters: updateIssue, keepEmptyStrings: true, execute: () => Effect.succeed(1) })
      const dropping = Tool.make("update_issue", { description: "d", parameters: updateIssue, execute: () => Effect.succeed(1) })
      assert.strictEqual(keeping.keepEmptyStrings, true)
      const kept = yield* validator.prepare(keeping, "{\"number\": \"3\", \"body\": \"\"}", { callId: "c" })
      assert.deepStrictEqual((kept as Tool.Prepared<unknown>).value, { number: 3, body: "" })
      const dropped = yield* validator.prepare(dropping, { number: 3, body: "" }, { callId: "c" })
      assert.deepStrictEqual((dropped as Tool.Prepared<unknown>).value, { number: 3 })
    }))

  it("a keepEmptyStrings that is not a boolean makes an unusable tool, not a silent default", () => {
    const tool = Tool.make("t", { description: "d", parameters: updateIssue, keepEmptyStrings: "yes" as never, execute: () => Effect.succeed(1) })
    assert.include(tool.schemaError, "keepEmptyStrings")
  })
})

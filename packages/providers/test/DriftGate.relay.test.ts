import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { JsonSchema, Validator } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import { Effect, Either, Layer, Logger, LogLevel, Schema, TestClock } from "effect"
import { DriftGate, RelayProfile, Tool, Toolkit } from "@toolgate/runtime"
import * as RelayProfileClient from "../src/RelayProfileClient.js"
import { answer, envelope, profileClient, start } from "./support/relayDouble.js"
import type { Handler } from "./support/relayDouble.js"

const weather = { type: "object", properties: { city: { type: "string" }, units: { enum: ["c", "f"] } }, required: ["city"] }
const search = { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query"] }
const narrowedWeather = { ...weather, required: ["city", "units"], additionalProperties: false }
const loosenedWeather = { ...weather, required: [] }
const loosenedSearch = { ...search, properties: { ...search.properties, limit: { type: ["integer", "string"] } } }

/** A toolkit as the gate reads it: tools by name with their local schemas. */
const toolkit = (tools: Record<string, unknown>): DriftGate.Checkable => ({
  tools: new Map(Object.entries(tools).map(([name, schema]) => [name, { name, jsonSchema: JsonSchema.upgrade(schema).schema }]))
})

const local = toolkit({ get_weather: weather, search, local_only: { type: "object" } })

/** A gate over a loopback relay, with a prover that counts its calls and a logger that keeps warnings. */
const gateFor = (handler: Handler, options: Omit<RelayProfileClient.Options, "baseUrl"> = {}) =>
  Effect.gen(function*() {
    const relay = yield* start(handler)
    const service = yield* profileClient(relay.url, options)
    let proofs = 0
    const prove: typeof Subschema.check = (cloud, schema) => {
      proofs++
      return Subschema.check(cloud, schema)
    }
    const gate = yield* DriftGate.makeWith({ prove }).pipe(Effect.provideService(RelayProfile.RelayProfile, service))
    const logs: Array<{ readonly level: string; readonly message: string; readonly annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ annotations, logLevel, message }) => {
      logs.push({
        level: logLevel.label,
        message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
        annotations: Object.fromEntries(annotations)
      })
    })
    const check = (kit: DriftGate.Checkable) =>
      Effect.either(gate.check(kit)).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.All))
    return { check, relay, proofs: () => proofs, logs }
  })

const failure = (outcome: Either.Either<DriftGate.Verdict, DriftGate.GateError>): DriftGate.GateError => {
  assert.isTrue(Either.isLeft(outcome), JSON.stringify(outcome))
  return (outcome as Either.Left<DriftGate.GateError, never>).left
}

describe("DriftGate", () => {
  it.scopedLive("Proven: every exported tool is narrower than its local schema; a local-only tool is fine", () =>
    Effect.gen(function*() {
      const { check, logs, proofs, relay } = yield* gateFor(answer(envelope({ get_weather: narrowedWeather, search })))
      const outcome = yield* check(local)
      assert.deepStrictEqual(outcome, Either.right(DriftGate.Verdict.Proven({ tools: ["get_weather", "search"] })))
      assert.strictEqual(proofs(), 2)
      assert.strictEqual(relay.requests(), 1)
      assert.deepStrictEqual(logs.filter((l) => l.level === "WARN"), [])
    }))

  it.scopedLive("Drift: the first drifted tool with reasons and a real witness, and every drifted tool", () =>
    Effect.gen(function*() {
      const profile = envelope({ search: loosenedSearch, get_weather: loosenedWeather, ok: { type: "object" } })
      const { check, proofs } = yield* gateFor(answer(profile))
      const error = failure(yield* check(toolkit({ get_weather: weather, search, ok: {} })))
      assert.strictEqual(error._tag, "SchemaDriftError")
      if (error._tag !== "SchemaDriftError") return
      assert.strictEqual(error.tool, "search")
      assert.deepStrictEqual(error.drifted, ["search", "get_weather"])
      assert.deepStrictEqual(error.reasons, [{
        cloudPath: "/properties/limit",
        localPath: "/properties/limit/type",
        message: "the cloud schema allows a string here; the local schema does not"
      }])
      const cloud = Either.getOrThrow(Validator.compile(loosenedSearch))
      const mine = Either.getOrThrow(Validator.compile(search))
      assert.isTrue(cloud.isValid(error.witness), JSON.stringify(error.witness))
      assert.isFalse(mine.isValid(error.witness), JSON.stringify(error.witness))
      assert.include(error.message, "search")
      assert.strictEqual(proofs(), 3)
    }))

  it.scopedLive("unknown-tool: a tool the relay exports that the toolkit cannot execute is drift", () =>
    Effect.gen(function*() {
      const { check } = yield* gateFor(answer(envelope({ get_weather: weather, delete_everything: { type: "object" } })))
      const error = failure(yield* check(local))
      assert.strictEqual(error._tag, "SchemaDriftError")
      if (error._tag !== "SchemaDriftError") return
      assert.strictEqual(error.tool, "delete_everything")
      assert.deepStrictEqual(error.drifted, ["delete_everything"])
      assert.strictEqual(error.reasons.length, 1)
      assert.include(error.reasons[0]!.message, "unknown-tool")
      assert.strictEqual(error.reasons[0]!.cloudPath, "")
      assert.strictEqual(error.reasons[0]!.localPath, "")
      assert.deepStrictEqual(error.witness, {})
    }))

  it.scopedLive("Unsupported: a construct the prover cannot model fails closed with tool, construct and path", () =>
    Effect.gen(function*() {
      const external = { ...weather, properties: { ...weather.properties, city: { $ref: "https://example.com/city.json" } } }
      const { check } = yield* gateFor(answer(envelope({ search, get_weather: external })))
      const error = failure(yield* check(local))
      assert.strictEqual(error._tag, "UnsupportedCloudToolSchema")
      if (error._tag !== "UnsupportedCloudToolSchema") return
      assert.strictEqual(error.tool, "get_weather")
      assert.include(error.construct, "external $ref")
      assert.strictEqual(error.path, "/properties/city/$ref")
    }))

  it.scopedLive("a proven drift wins over an unsupported construct elsewhere", () =>
    Effect.gen(function*() {
      const external = { ...weather, properties: { city: { $ref: "https://example.com/city.json" } } }
      const { check } = yield* gateFor(answer(envelope({ get_weather: external, search: loosenedSearch })))
      const error = failure(yield* check(local))
      assert.strictEqual(error._tag, "SchemaDriftError")
    }))

  it.scopedLive("Degraded (predates): exactly one warning naming the reason", () =>
    Effect.gen(function*() {
      const { check, logs, proofs } = yield* gateFor(answer({ documents: { pdf: true } }))
      const outcome = yield* check(local)
      assert.isTrue(Either.isRight(outcome) && outcome.right._tag === "Degraded" && outcome.right.reason === "predates")
      const warnings = logs.filter((l) => l.level === "WARN")
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.message, "predates")
      assert.strictEqual(warnings[0]!.annotations["drift_gate.reason"], "predates")
      assert.strictEqual(proofs(), 0)
    }))

  it.scopedLive("Degraded (unreachable): exactly one warning naming the reason and the cause", () =>
    Effect.gen(function*() {
      const { check, logs } = yield* gateFor(answer("down", 503))
      const outcome = yield* check(local)
      assert.isTrue(Either.isRight(outcome) && outcome.right._tag === "Degraded" && outcome.right.reason === "unreachable")
      const warnings = logs.filter((l) => l.level === "WARN")
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.message, "unreachable")
      assert.include(warnings[0]!.message, "HTTP 503")
    }))

  it.scopedLive("a relay profile contract error passes through unchanged", () =>
    Effect.gen(function*() {
      const { check, logs } = yield* gateFor(answer(envelope({ get_weather: weather }, "2.0")))
      const error = failure(yield* check(local))
      assert.strictEqual(error._tag, "RelayProfileContractError")
      assert.isTrue(error._tag === "RelayProfileContractError" && error.reason === "unsupported_version")
      assert.strictEqual(logs.filter((l) => l.level === "WARN").length, 0)
    }))

  // TestClock: the time to live is crossed by adjusting the clock, not by waiting (the HTTP stays real).
  it.scoped("a second session against the same profile costs no proving (cached by content, not identity)", () =>
    Effect.gen(function*() {
      // Past the time to live, the second check fetches again and decodes new objects with the same content.
      const { check, proofs, relay } = yield* gateFor(answer(envelope({ get_weather: narrowedWeather, search })), { timeToLive: "1 minute" })
      yield* check(local)
      assert.strictEqual(proofs(), 2)
      yield* TestClock.adjust("1 minute")
      const again = yield* check(toolkit({ search, get_weather: weather }))
      assert.isTrue(Either.isRight(again) && again.right._tag === "Proven")
      assert.strictEqual(relay.requests(), 2)
      assert.strictEqual(proofs(), 2)
    }))

  it.scoped("property order does not change the content key; a changed schema is proved again", () =>
    Effect.gen(function*() {
      const reordered = { required: ["city", "units"], additionalProperties: false, properties: weather.properties, type: "object" }
      const handler: Handler = (req, res, n) =>
        answer(envelope({ get_weather: n === 1 ? narrowedWeather : n === 2 ? reordered : { ...narrowedWeather, minProperties: 1 } }))(req, res, n)
      const { check, proofs, relay } = yield* gateFor(handler, { timeToLive: "1 minute" })
      yield* check(local)
      yield* TestClock.adjust("1 minute")
      yield* check(local)
      assert.strictEqual(proofs(), 1)
      yield* TestClock.adjust("1 minute")
      yield* check(local)
      assert.strictEqual(proofs(), 2)
      assert.strictEqual(relay.requests(), 3)
    }))

  it.scopedLive("a drift is never retried: one check, one probe, one proof per tool, and the same answer again", () =>
    Effect.gen(function*() {
      const { check, proofs, relay } = yield* gateFor(answer(envelope({ search: loosenedSearch })))
      const first = failure(yield* check(local))
      assert.strictEqual(relay.requests(), 1)
      assert.strictEqual(proofs(), 1)
      const second = failure(yield* check(local))
      assert.deepStrictEqual(second, first)
      assert.strictEqual(relay.requests(), 1)
      assert.strictEqual(proofs(), 1)
    }))

  it.scopedLive("hostile names and schemas: __proto__ / constructor tools, 10,000-level nesting", () =>
    Effect.gen(function*() {
      const deep = `${"{\"not\":".repeat(10_000)}{"type":"object"}${"}".repeat(10_000)}`
      const raw = `{"capabilities_version":"1.0","tool_schemas":{"__proto__":{"type":"object","required":["a"]},` +
        `"deep":${deep}}}`
      const { check } = yield* gateFor(answer(raw))
      const kit = toolkit({ deep: { type: "object" } })
      const tools = new Map(kit.tools).set("__proto__", { name: "__proto__", jsonSchema: { type: "object" } })
      const error = failure(yield* check({ tools }))
      assert.strictEqual(error._tag, "UnsupportedCloudToolSchema")
      assert.isTrue(error._tag === "UnsupportedCloudToolSchema" && error.tool === "deep")
      assert.isUndefined(({} as Record<string, unknown>)["required"])
      const { check: check2 } = yield* gateFor(answer(`{"capabilities_version":"1.0","tool_schemas":{"constructor":{}}}`))
      const unknown = failure(yield* check2(toolkit({})))
      assert.isTrue(unknown._tag === "SchemaDriftError" && unknown.tool === "constructor")
    }))

  it.scopedLive("an empty export proves nothing and is Proven", () =>
    Effect.gen(function*() {
      const { check } = yield* gateFor(answer(envelope({})))
      assert.deepStrictEqual(yield* check(local), Either.right(DriftGate.Verdict.Proven({ tools: [] })))
    }))

  it.scopedLive("the layer composes: DriftGate.layer over RelayProfileClient.layer over an HttpClient", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(envelope({ search })))
      const live = DriftGate.layer.pipe(
        Layer.provide(RelayProfileClient.layerWith({ baseUrl: relay.url })),
        Layer.provide(FetchHttpClient.layer)
      )
      const verdict = yield* Effect.flatMap(DriftGate.DriftGate, (gate) => gate.check(local)).pipe(Effect.provide(live))
      assert.deepStrictEqual(verdict, DriftGate.Verdict.Proven({ tools: ["search"] }))
    }))

  it.scopedLive("a real Toolkit (JSON Schema and Effect Schema tools) is what the gate checks", () =>
    Effect.gen(function*() {
      const kit = yield* Toolkit.make(
        Tool.make("get_weather", { description: "Weather for a city.", parameters: weather, execute: () => Effect.succeed("sunny") }),
        Tool.make("search", {
          description: "Search.",
          parameters: Schema.Struct({ query: Schema.String, limit: Schema.optional(Schema.Int) }),
          execute: ({ query }) => Effect.succeed(query)
        })
      )
      const { check } = yield* gateFor(answer(envelope({ get_weather: narrowedWeather, search: { ...search, required: ["query", "limit"], additionalProperties: false } })))
      const proven = yield* check(kit)
      assert.deepStrictEqual(proven, Either.right(DriftGate.Verdict.Proven({ tools: ["get_weather", "search"] })))
      // Effect Schema structs are closed: a cloud schema that leaves them open drifts.
      const { check: drifted } = yield* gateFor(answer(envelope({ search })))
      const error = failure(yield* drifted(kit))
      assert.isTrue(error._tag === "SchemaDriftError" && error.tool === "search")
      assert.isTrue(error._tag === "SchemaDriftError" && error.reasons.some((r) => r.localPath === "/additionalProperties"))
    }))
})

describe("DriftGate options", () => {
  it.effect("a cache size below 1 or fractional, or an onUnreachable that is neither, is InvalidOptions while the gate is built", () =>
    Effect.gen(function*() {
      const none: RelayProfile.Service = { probe: () => Effect.die("not probed") }
      for (const options of [{ cacheSize: 0 }, { cacheSize: 2.5 }, { cacheSize: Number.NaN }, { onUnreachable: "ignore" as never }]) {
        const e = yield* Effect.flip(DriftGate.makeWith(options).pipe(Effect.provideService(RelayProfile.RelayProfile, none)))
        assert.deepStrictEqual([e._tag, e.of], ["InvalidOptions", "DriftGate"], JSON.stringify(options))
      }
      const built = yield* DriftGate.makeWith({ cacheSize: 1, onUnreachable: "fail" }).pipe(Effect.provideService(RelayProfile.RelayProfile, none))
      assert.isFunction(built.check)
    }))
})

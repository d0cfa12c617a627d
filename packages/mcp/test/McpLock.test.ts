import { assert, describe, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { type JsonSchema, Validator } from "@toolgate/json-schema"
import { Effect, Either, Option } from "effect"
import * as fc from "fast-check"
import { McpConnection, McpLock } from "../src/index.js"
import { type FixtureTool, fixture, weather } from "./support.js"

const listingOf = (tools: ReadonlyArray<FixtureTool>) =>
  Effect.gen(function*() {
    const connection = yield* McpConnection.make({ server: fixture(tools) })
    const { tools: listed } = yield* connection.listTools
    return { info: connection.serverInfo, tools: listed }
  }).pipe(Effect.scoped)

const sdk = new AjvJsonSchemaValidator()
/** Whether `schema` accepts `value`, by toolgate's validator and by the SDK's, which must agree. */
const accepts = (schema: Record<string, unknown>, value: unknown): boolean => {
  const ours = Either.getOrThrow(Validator.compile(schema as JsonSchema.JsonSchema)).isValid(value)
  assert.strictEqual(sdk.getValidator(schema)(value).valid, ours)
  return ours
}

const withInput = (inputSchema: Record<string, unknown>, extra: Partial<FixtureTool> = {}): FixtureTool => ({ ...weather, ...extra, inputSchema })
const props = weather.inputSchema["properties"] as Record<string, unknown>

describe("McpLock against a live server", () => {
  it.live("a lock written from a server proves against the same server, and round-trips as text", () =>
    Effect.gen(function*() {
      const { info, tools } = yield* listingOf([weather])
      const lock = McpLock.put(undefined, info.name, McpLock.defaultScope, McpLock.fromListing(info, tools))
      const again = Either.getOrThrow(McpLock.parse(McpLock.stringify(lock), "lock"))
      assert.deepStrictEqual(again, lock)
      const entry = Option.getOrThrow(McpLock.get(again, "toolgate-fixture", "default"))
      const proof = McpLock.prove(entry, tools)
      assert.deepStrictEqual(proof.rows, [{ _tag: "Subtype", tool: "get_weather" }])
      assert.isTrue(Either.isRight(McpLock.gate(proof)))
    }))

  it.live("widening passes; a new required field, a narrowed bound and a removed tool drift with witnesses", () =>
    Effect.gen(function*() {
      const before = yield* listingOf([weather, { ...weather, name: "other" }])
      const entry = McpLock.fromListing(before.info, before.tools)
      const widened = yield* listingOf([
        withInput({ type: "object", properties: { ...props, days: { type: "integer", minimum: 0, maximum: 14 } }, required: ["city"] }),
        { ...weather, name: "other" },
        { ...weather, name: "brand_new" }
      ])
      const wide = McpLock.prove(entry, widened.tools)
      assert.deepStrictEqual(wide.rows.map((r) => r._tag), ["Subtype", "Subtype"])
      assert.deepStrictEqual(wide.added, ["brand_new"])

      const narrowed = yield* listingOf([
        withInput({ type: "object", properties: { ...props, days: { type: "integer", minimum: 1, maximum: 3 } }, required: ["city", "units"] }, {
          description: "A changed description."
        })
      ])
      const proof = McpLock.prove(entry, narrowed.tools)
      assert.deepStrictEqual(proof.rows.map((r) => [r.tool, r._tag]), [["get_weather", "Drift"], ["other", "Drift"]])
      assert.deepStrictEqual(proof.described, ["get_weather"])
      // the prover's sides are named for what they are here: the lock and the live server
      const words = proof.rows[0]!._tag === "Drift" ? proof.rows[0]!.reasons.map((r) => r.message).join(" ") : ""
      assert.match(words, /the (locked|live)/)
      assert.notMatch(words, /the (cloud|local)/)
      const drift = proof.rows[0]!
      assert(drift._tag === "Drift")
      // the witness is a call the locked schema accepts and the live one rejects
      assert.isTrue(accepts(weather.inputSchema, drift.witness))
      assert.isFalse(accepts(narrowed.tools[0]!.inputSchema, drift.witness))
      assert.include(proof.rows[1]!._tag === "Drift" ? proof.rows[1]!.reasons[0]!.message : "", "removed")
      const error = Either.getLeft(McpLock.gate(proof)).pipe(Option.getOrThrow)
      assert.strictEqual(error._tag, "SchemaDriftError")
      assert.deepStrictEqual(error._tag === "SchemaDriftError" ? error.drifted : [], ["get_weather", "other"])
    }))

  it.live("an output schema that widens is drift; one that narrows passes", () =>
    Effect.gen(function*() {
      const out = (max: number) => ({ type: "object", properties: { temp: { type: "number", maximum: max } } })
      const before = yield* listingOf([{ ...weather, outputSchema: out(60) }])
      const entry = McpLock.fromListing(before.info, before.tools)
      const narrower = yield* listingOf([{ ...weather, outputSchema: out(50) }])
      assert.strictEqual(McpLock.prove(entry, narrower.tools).rows[0]!._tag, "Subtype")
      const wider = yield* listingOf([{ ...weather, outputSchema: out(70) }])
      const row = McpLock.prove(entry, wider.tools).rows[0]!
      assert.strictEqual(row._tag, "Drift")
      assert.include(row._tag === "Drift" ? row.reasons[0]!.message : "", "output")
    }))

  it.live("a draft-07 schema is read in its dialect", () =>
    Effect.gen(function*() {
      const draft7 = {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false } },
        required: ["pair"]
      }
      const before = yield* listingOf([withInput(draft7)])
      const entry = McpLock.fromListing(before.info, before.tools)
      assert.strictEqual(McpLock.prove(entry, before.tools).rows[0]!._tag, "Subtype")
      const longer = { ...draft7, properties: { pair: { ...draft7.properties.pair, additionalItems: true } } }
      assert.strictEqual(McpLock.prove(entry, (yield* listingOf([withInput(longer)])).tools).rows[0]!._tag, "Subtype")
      const shorter = { ...draft7, properties: { pair: { type: "array", items: [{ type: "string" }], additionalItems: false } } }
      assert.strictEqual(McpLock.prove(entry, (yield* listingOf([withInput(shorter)])).tools).rows[0]!._tag, "Drift")
    }))
})

describe("McpLock", () => {
  it.effect("a file that is not a lock is InvalidLock", () =>
    Effect.sync(() => {
      for (const text of ["{", "{}", JSON.stringify({ version: 2, servers: {} }), JSON.stringify({ version: 1, servers: { a: { b: { tools: {} } } } })]) {
        const error = Either.getLeft(McpLock.parse(text, "x.json")).pipe(Option.getOrThrow)
        assert.strictEqual(error._tag, "InvalidLock")
      }
    }))

  const bounds = fc.record({ lo: fc.integer({ min: -50, max: 50 }), span: fc.integer({ min: 0, max: 50 }) })
  const tool = (lo: number, hi: number) => ({
    name: "t",
    inputSchema: { type: "object", properties: { n: { type: "integer", minimum: lo, maximum: hi } }, required: ["n"] }
  })
  const entryOf = (lo: number, hi: number) => McpLock.fromListing({ name: "s", version: "1" }, [tool(lo, hi)])

  it.prop("a widened range always passes", [bounds, fc.nat(20), fc.nat(20)], ([{ lo, span }, down, up]) => {
    const proof = McpLock.prove(entryOf(lo, lo + span), [tool(lo - down, lo + span + up)])
    assert.strictEqual(proof.rows[0]!._tag, "Subtype")
  })

  it.prop("a narrowed range always gives a witness both validators confirm", [bounds, fc.integer({ min: 1, max: 20 })], ([{ lo, span }, cut]) => {
    const locked = tool(lo, lo + span + cut)
    const live = tool(lo, lo + span)
    const row = McpLock.prove(entryOf(lo, lo + span + cut), [live]).rows[0]!
    assert(row._tag === "Drift")
    assert.isTrue(accepts(locked.inputSchema, row.witness))
    assert.isFalse(accepts(live.inputSchema, row.witness))
  })

  const enumTool = (values: ReadonlyArray<string>) => ({
    name: "t",
    inputSchema: { type: "object", properties: { unit: { enum: [...values] } }, required: ["unit"] }
  })
  const units = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 })

  it.prop("an enum that loses a value always gives a witness both validators confirm; one that gains values passes", [units, fc.nat()], ([values, drop]) => {
    const locked = enumTool(values)
    const entry = McpLock.fromListing({ name: "s", version: "1" }, [locked])
    const narrowed = enumTool(values.filter((_, i) => i !== drop % values.length))
    const row = McpLock.prove(entry, [narrowed]).rows[0]!
    assert(row._tag === "Drift")
    assert.isTrue(accepts(locked.inputSchema, row.witness))
    assert.isFalse(accepts(narrowed.inputSchema, row.witness))
    assert.strictEqual(McpLock.prove(entry, [enumTool([...values, "added-value"])]).rows[0]!._tag, "Subtype")
  })

  it.prop("a lock round-trips through its text", [fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string(), { maxKeys: 4 })], ([descriptions]) => {
    const tools = Object.entries(descriptions).map(([name, description]) => ({ name: name.replace(/[^A-Za-z0-9_.-]/g, "_"), description, inputSchema: { type: "object" } }))
    const lock = McpLock.put(McpLock.put(undefined, "a", "default", McpLock.fromListing({ name: "a", version: "1" }, tools)), "a", "admin", McpLock.fromListing({ name: "a", version: "2" }, []))
    assert.deepStrictEqual(Either.getOrThrow(McpLock.parse(McpLock.stringify(lock), "lock")), lock)
  })

  it("a live schema the same as the locked one (keys in any order) is proven by identity, even past what the prover reads", () => {
    // nested deeper than the prover's canonical text goes (it would answer Unsupported): identity still proves it
    const deep = (order: "ab" | "ba") => {
      let schema: Record<string, unknown> = { type: "string" }
      for (let i = 0; i < 2_100; i++) schema = order === "ab" ? { type: "object", properties: { a: schema } } : { properties: { a: schema }, type: "object" }
      return schema
    }
    const output = { type: "object", properties: { n: { type: "integer" } } }
    const entry = McpLock.fromListing({ name: "s", version: "1" }, [{ name: "deep", inputSchema: deep("ab"), outputSchema: output }])
    const live = [{ name: "deep", inputSchema: deep("ba"), outputSchema: { properties: { n: { type: "integer" } }, type: "object" } }]
    assert.deepStrictEqual(McpLock.prove(entry, live).rows, [{ _tag: "Subtype", tool: "deep" }])
    // one change deep down is no longer the same: the prover decides (here it cannot, so the gate refuses)
    const changed = deep("ab")
    let inner = changed
    for (let i = 0; i < 2_000; i++) inner = (inner["properties"] as { a: Record<string, unknown> }).a
    inner["required"] = ["a"]
    const verdict = McpLock.prove(entry, [{ name: "deep", inputSchema: changed, outputSchema: output }]).rows[0]!
    assert.notStrictEqual(verdict._tag, "Subtype")
  })

  it.prop("a listing proves against its own lock, whatever order its keys come in", [fc.jsonValue({ maxDepth: 4 })], ([value]) => {
    const inputSchema = { type: "object", properties: { v: { const: value } } }
    const reordered = JSON.parse(JSON.stringify({ properties: { v: { const: value } }, type: "object" }))
    const entry = McpLock.fromListing({ name: "s", version: "1" }, [{ name: "t", inputSchema }])
    assert.deepStrictEqual(McpLock.prove(entry, [{ name: "t", inputSchema: reordered }]).rows, [{ _tag: "Subtype", tool: "t" }])
  })

  it("keywords beside a locked draft-07 $ref are read as ignored (what the server may accept), a live one's as applied", () => {
    const draft07 = (siblings: Record<string, unknown>) => ({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { list: { type: "array" } },
      properties: { ids: { $ref: "#/definitions/list", ...siblings } }
    })
    const plain = { type: "object", properties: { ids: { type: "array", maxItems: 0 } } }
    const entry = McpLock.fromListing({ name: "s", version: "1" }, [{ name: "t", inputSchema: draft07({ maxItems: 0 }) }])
    // the lock's maxItems may never have been enforced: a live schema that enforces it is drift, with a witness
    const row = McpLock.prove(entry, [{ name: "t", inputSchema: plain }]).rows[0]!
    assert(row._tag === "Drift", JSON.stringify(row))
    assert.isAbove((row.witness as { ids: Array<unknown> }).ids.length, 0)
    // a live draft-07 schema with the same sibling is read as its narrowest: the plain locked schema proves
    const reverse = McpLock.fromListing({ name: "s", version: "1" }, [{ name: "t", inputSchema: plain }])
    assert.strictEqual(McpLock.prove(reverse, [{ name: "t", inputSchema: draft07({ maxItems: 0, description: "d" }) }]).rows[0]!._tag, "Subtype")
  })
})


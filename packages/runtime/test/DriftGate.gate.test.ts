import { assert, describe, it } from "@effect/vitest"
import { JsonSchema } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import { Effect, Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import * as DriftGate from "../src/DriftGate.js"
import * as RelayProfile from "../src/RelayProfile.js"

type Obj = Record<string, unknown>
const corpus = path.resolve(import.meta.dirname, "../../../corpus")

/** 30 corpus tools with a required property: (name, upgraded local schema). */
const tools: ReadonlyArray<{ readonly name: string; readonly local: Obj }> = (() => {
  const byName = new Map<string, Obj>()
  for (const line of readFileSync(path.join(corpus, "tools.jsonl"), "utf8").split("\n")) {
    if (byName.size === 30 || line.trim() === "") continue
    const raw = JSON.parse(line) as { name: string; parameters: unknown }
    const local = JsonSchema.upgrade(raw.parameters).schema
    if (typeof local !== "object" || !Array.isArray(local["required"]) || local["required"].length === 0) continue
    if (!byName.has(raw.name)) byName.set(raw.name, local as Obj)
  }
  return [...byName].map(([name, local]) => ({ name, local }))
})()

/** What the relay does to a tool. */
type Variant = "narrowed" | "loosened" | "unknown" | "external" | "local-only"

const cloudOf = (local: Obj, variant: Variant): Obj => {
  const copy = JSON.parse(JSON.stringify(local)) as Obj
  switch (variant) {
    case "loosened":
      return { ...copy, required: [] }
    case "external":
      return { ...copy, properties: { ...(copy["properties"] as Obj), [(local["required"] as Array<string>)[0]!]: { $ref: "https://example.com/x" } } }
    default:
      return { ...copy, additionalProperties: false }
  }
}

/** A prover that counts its calls. */
const counting = () => {
  let n = 0
  const prove: DriftGate.Prove = (cloud, local) => {
    n++
    return Subschema.check(cloud, local)
  }
  return { prove, proofs: () => n }
}

/** A gate with a verdict cache of `cacheSize`; `check(cloud, local)` runs it over one tool the relay exports. */
const gateWith = (prove: DriftGate.Prove, cacheSize: number) => {
  let exported = new Map<string, JsonSchema.JsonSchema>()
  const gate = Effect.runSync(DriftGate.makeWith({ prove, cacheSize }).pipe(
    Effect.provideService(RelayProfile.RelayProfile, {
      probe: () => Effect.succeed(RelayProfile.Probe.Exported({ version: "1.0", toolSchemas: exported }))
    })
  ))
  return (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => {
    exported = new Map([["t", cloud]])
    return Effect.runSync(Effect.either(gate.check({ tools: new Map([["t", { name: "t", jsonSchema: local }]]) })))
  }
}

describe("DriftGate.gate (properties over corpus tools)", () => {
  it("the corpus gives enough tools", () => assert.strictEqual(tools.length, 30))

  it.prop(
    "the outcome is exactly predicted by what the relay did to each tool",
    [fc.array(fc.constantFrom<Variant>("narrowed", "loosened", "unknown", "external", "local-only"), { minLength: 30, maxLength: 30 })],
    ([variants]) => {
      const exported = new Map<string, JsonSchema.JsonSchema>()
      const local = new Map<string, { name: string; jsonSchema: JsonSchema.JsonSchema }>()
      tools.forEach((tool, i) => {
        const variant = variants[i]!
        if (variant !== "local-only") exported.set(tool.name, cloudOf(tool.local, variant) as JsonSchema.JsonSchema)
        if (variant !== "unknown") local.set(tool.name, { name: tool.name, jsonSchema: tool.local as JsonSchema.JsonSchema })
      })
      const { proofs, prove } = counting()
      const schemas = new Map([...local].map(([name, tool]) => [name, tool.jsonSchema]))
      const outcome = DriftGate.fold(DriftGate.verdicts(exported, schemas, prove))
      const drifted = tools.filter((_, i) => variants[i] === "loosened" || variants[i] === "unknown").map((t) => t.name)
      const external = tools.filter((_, i) => variants[i] === "external").map((t) => t.name)
      if (drifted.length > 0) {
        const error = Either.isLeft(outcome) ? outcome.left : undefined
        assert.strictEqual(error?._tag, "SchemaDriftError")
        if (error?._tag !== "SchemaDriftError") return
        assert.deepStrictEqual(error.drifted, drifted)
        assert.strictEqual(error.tool, drifted[0])
      } else if (external.length > 0) {
        assert.deepStrictEqual(Either.isLeft(outcome) && outcome.left._tag === "UnsupportedCloudToolSchema" && outcome.left.tool, external[0])
      } else {
        const proven = tools.filter((_, i) => variants[i] === "narrowed").map((t) => t.name)
        assert.deepStrictEqual(outcome, Either.right(DriftGate.Verdict.Proven({ tools: proven })))
      }
      assert.strictEqual(proofs(), tools.filter((_, i) => variants[i] !== "local-only" && variants[i] !== "unknown").length)
    },
    { fastCheck: { numRuns: 40 } }
  )

  it("the gate's cache keeps verdicts by content and is bounded: past its limit the oldest go and are proved again", () => {
    const { proofs, prove } = counting()
    const check = gateWith(prove, 2)
    const [a, b, c] = tools.map((t) => t.local as JsonSchema.JsonSchema)
    for (const s of [a!, b!, c!]) check(s, s)
    assert.strictEqual(proofs(), 3)
    check(JSON.parse(JSON.stringify(c)), c!)
    assert.strictEqual(proofs(), 3)
    check(a!, a!)
    assert.strictEqual(proofs(), 4)
  })

  it("the gate's cache is bounded by its keys' characters too: two huge schemas do not both stay", () => {
    const { proofs, prove } = counting()
    const check = gateWith(prove, 10_000)
    // each key holds both schemas' texts: two of these pass 32 Mi characters together
    const huge = (tag: string): JsonSchema.JsonSchema => ({ type: "object", description: tag.repeat(9 * 1024 * 1024) })
    const [x, y] = [huge("x"), huge("y")]
    check(x, x)
    check(x, x)
    assert.strictEqual(proofs(), 1)
    check(y, y)
    check(x, x)
    assert.strictEqual(proofs(), 3)
  })

  it("non-JSON or very deep schemas are proved without a cache key, never thrown on", () => {
    let deep: Obj = { type: "object" }
    for (let i = 0; i < 10_000; i++) deep = { not: deep }
    const { proofs, prove } = counting()
    const check = gateWith(prove, 10_000)
    const outcome = check(deep as JsonSchema.JsonSchema, { type: "object" })
    assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "UnsupportedCloudToolSchema")
    check(deep as JsonSchema.JsonSchema, { type: "object" })
    assert.strictEqual(proofs(), 2)
    const withGetter = Object.defineProperty({ type: "object" }, "properties", { get: () => { throw new Error("boom") }, enumerable: true })
    // a schema that throws when read fails closed, naming its tool: never Proven, never a throw
    const unreadable = check(withGetter as JsonSchema.JsonSchema, { type: "object" })
    assert.isTrue(Either.isLeft(unreadable) && "tool" in unreadable.left && unreadable.left.tool === "t", JSON.stringify(unreadable))
  })

  it("a cloud's keywords beside a draft-07 $ref are read as draft-07 reads them (ignored): a relay may send what they would forbid", () => {
    const cloud = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { list: { type: "array" } },
      properties: { ids: { $ref: "#/definitions/list", maxItems: 0 } }
    } as JsonSchema.JsonSchema
    const local = { type: "object", properties: { ids: { type: "array", maxItems: 0 } } } as JsonSchema.JsonSchema
    const [verdict] = DriftGate.verdicts(new Map([["t", cloud]]), new Map([["t", local]]))
    assert.strictEqual(verdict?._tag, "Drift", JSON.stringify(verdict))
    if (verdict?._tag === "Drift") assert.isTrue(Array.isArray((verdict.witness as { ids?: unknown }).ids) && ((verdict.witness as { ids: Array<unknown> }).ids).length > 0)
    // the same keywords in a 2020-12 cloud apply, and the cloud proves
    const modern = { type: "object", $defs: { list: { type: "array" } }, properties: { ids: { $ref: "#/$defs/list", maxItems: 0 } } } as JsonSchema.JsonSchema
    assert.strictEqual(DriftGate.verdicts(new Map([["t", modern]]), new Map([["t", local]]))[0]?._tag, "Subtype")
  })
})

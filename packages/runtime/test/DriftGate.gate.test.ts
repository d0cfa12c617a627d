import { assert, describe, it } from "@effect/vitest"
import { JsonSchema, Subschema } from "@toolgate/json-schema"
import { FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { gate, ProofCache } from "../src/internal/driftProofs.js"

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

const counting = () => {
  let n = 0
  const cache = new ProofCache(10_000, (cloud, local) => {
    n++
    return Subschema.check(cloud, local)
  })
  return { cache, proofs: () => n }
}

describe("DriftGate.gate (properties over corpus tools)", () => {
  it("the corpus gives enough tools", () => assert.strictEqual(tools.length, 30))

  it.prop(
    "the outcome is exactly predicted by what the relay did to each tool, and a second run proves nothing",
    [fc.array(fc.constantFrom<Variant>("narrowed", "loosened", "unknown", "external", "local-only"), { minLength: 30, maxLength: 30 })],
    ([variants]) => {
      const exported = new Map<string, JsonSchema.JsonSchema>()
      const local = new Map<string, { name: string; jsonSchema: JsonSchema.JsonSchema }>()
      tools.forEach((tool, i) => {
        const variant = variants[i]!
        if (variant !== "local-only") exported.set(tool.name, cloudOf(tool.local, variant) as JsonSchema.JsonSchema)
        if (variant !== "unknown") local.set(tool.name, { name: tool.name, jsonSchema: tool.local as JsonSchema.JsonSchema })
      })
      const { cache, proofs } = counting()
      const outcome = gate(exported, { tools: local }, cache)
      const drifted = tools.filter((_, i) => variants[i] === "loosened" || variants[i] === "unknown").map((t) => t.name)
      const external = tools.filter((_, i) => variants[i] === "external").map((t) => t.name)
      if (drifted.length > 0) {
        assert.strictEqual(outcome._tag, "Drift")
        if (outcome._tag !== "Drift") return
        assert.deepStrictEqual(outcome.drifted, drifted)
        assert.strictEqual(outcome.tool, drifted[0])
      } else if (external.length > 0) {
        assert.deepStrictEqual(outcome._tag === "Unsupported" && outcome.tool, external[0])
      } else {
        assert.deepStrictEqual(outcome, { _tag: "Proven", tools: tools.filter((_, i) => variants[i] === "narrowed").map((t) => t.name) })
      }
      const proved = proofs()
      assert.strictEqual(proved, tools.filter((_, i) => variants[i] !== "local-only" && variants[i] !== "unknown").length)
      const copy = new Map([...exported].map(([k, v]) => [k, JSON.parse(JSON.stringify(v)) as JsonSchema.JsonSchema]))
      assert.deepStrictEqual(gate(copy, { tools: local }, cache), outcome)
      assert.strictEqual(proofs(), proved)
    },
    { fastCheck: { numRuns: 40 } }
  )

  it("the cache is bounded: past its limit the oldest verdicts go and are proved again", () => {
    let n = 0
    const cache = new ProofCache(2, (cloud, local) => {
      n++
      return Subschema.check(cloud, local)
    })
    const [a, b, c] = tools.map((t) => t.local as JsonSchema.JsonSchema)
    for (const s of [a!, b!, c!]) cache.verdict(s, s)
    assert.strictEqual(n, 3)
    cache.verdict(c!, c!)
    assert.strictEqual(n, 3)
    cache.verdict(a!, a!)
    assert.strictEqual(n, 4)
  })

  it("non-JSON or very deep schemas are proved without a cache key, never thrown on", () => {
    let deep: Obj = { type: "object" }
    for (let i = 0; i < 10_000; i++) deep = { not: deep }
    const { cache, proofs } = counting()
    const verdict = cache.verdict(deep as JsonSchema.JsonSchema, { type: "object" })
    assert.strictEqual(verdict._tag, "Unsupported")
    cache.verdict(deep as JsonSchema.JsonSchema, { type: "object" })
    assert.strictEqual(proofs(), 2)
    const withGetter = Object.defineProperty({ type: "object" }, "properties", { get: () => { throw new Error("boom") }, enumerable: true })
    assert.doesNotThrow(() => cache.verdict(withGetter as JsonSchema.JsonSchema, { type: "object" }))
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Normalize from "../src/Normalize.js"
import * as RefAware from "../src/RefAware.js"
import * as Validator from "../src/Validator.js"
import { checkOpenAiStrict } from "./internal/providerRules.openAi.js"
import { corpus } from "./suite.js"

const accepts = (schema: JsonSchema.JsonSchema, value: unknown): boolean => {
  const c = Validator.compile(schema)
  if (Either.isLeft(c)) throw new Error(c.left.message)
  return c.right.isValid(value)
}

const base = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    days: { type: "integer", minimum: 1, default: 3, description: "How many days" },
    units: { anyOf: [{ type: "string", enum: ["metric", "imperial"] }, { type: "null" }], description: "Units" },
    stops: { type: "array", items: { type: "object", properties: { name: { type: "string" }, at: { type: "string", format: "date-time" } }, required: ["name"] } },
    pair: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] }
  },
  required: ["city"]
}
const strictRef = { $tool: "call_1", $path: "result.city", $artifact: null }

describe("RefAware.widen survives the provider dialects", () => {
  it("OpenAI strict: the widened schema stays strict, and a strict model's refs (nulls for the optional keys) are accepted and read", () => {
    const plain = Normalize.openAiStrict(base)
    const widened = Normalize.openAiStrict(RefAware.widen(base))
    assert.isTrue(plain.strict)
    assert.isTrue(widened.strict, JSON.stringify(widened.changes))
    const sent = {
      city: strictRef,
      days: null,
      units: { $tool: "call_2", $path: null, $artifact: null },
      stops: [{ name: { $tool: "call_3", $path: "result.name", $artifact: null }, at: null }, strictRef],
      pair: [strictRef, 2]
    }
    assert.isTrue(accepts(widened.schema, sent))
    assert.isFalse(accepts(plain.schema, sent))
    assert.isFalse(accepts(widened.schema, { ...sent, city: { $tool: "call_1" } }), "strict mode requires every key, $path included")
    assert.deepStrictEqual(RefAware.refs(sent).map((r) => [r.field, r.ref]), [
      ["city", { $tool: "call_1", $path: "result.city" }],
      ["units", { $tool: "call_2" }],
      ["stops.0.name", { $tool: "call_3", $path: "result.name" }],
      ["stops.1", { $tool: "call_1", $path: "result.city" }],
      ["pair.0", { $tool: "call_1", $path: "result.city" }]
    ])
  })

  it("Google: the ref branches are kept (closed-ness aside, which Google cannot express) and refs are accepted", () => {
    const g = Normalize.google(RefAware.widen(base))
    const sent = { city: { $tool: "call_1", $path: "result.city" }, stops: [{ name: { $tool: "call_3" } }], pair: [{ $tool: "call_4" }] }
    assert.isTrue(accepts(g.schema, sent))
    const city = (g.schema as any).properties.city
    assert.strictEqual(city.anyOf.length, 2)
    assert.deepStrictEqual(city.anyOf[1].required, ["$tool"])
    assert.deepStrictEqual(Object.keys(city.anyOf[1].properties), ["$tool", "$path", "$artifact"])
    assert.isFalse(accepts(Normalize.google(base).schema, sent))
  })

  it("on the corpus: every tool strict before widening is strict after (and keeps OpenAI's rules), and Google keeps a ref branch at each wrapped position", () => {
    const tools = fs.readFileSync(path.join(corpus, "tools.jsonl"), "utf8").split("\n").filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { source: string; name: string; parameters: unknown })
    const lost: Array<string> = []
    const broken: Array<string> = []
    const dropped: Array<string> = []
    let strictBefore = 0
    let wrapped = 0
    for (const t of tools) {
      const upgraded = JsonSchema.upgrade(t.parameters).schema
      const widened = RefAware.widen(upgraded)
      if (Normalize.openAiStrict(upgraded).strict) {
        strictBefore++
        const after = Normalize.openAiStrict(widened)
        if (!after.strict) lost.push(`${t.source}/${t.name}`)
        else for (const v of checkOpenAiStrict(after.schema as never)) broken.push(`${t.source}/${t.name} ${v.path}: ${v.rule}`)
      }
      const text = JSON.stringify(widened)
      const count = (u: unknown) => JSON.stringify(u).split(`"$tool":{"type":"string"`).length - 1
      wrapped += count(widened)
      // Google drops some positions (additionalProperties, patternProperties, prefixItems, $defs) with their
      // ref branches; every position it keeps still takes a ref: widening before or after Google agrees
      const kept = count(Normalize.google(widened).schema)
      const expected = count(RefAware.widen(Normalize.google(upgraded).schema))
      if (!text.includes(`"$ref"`) && kept !== expected) dropped.push(`${t.source}/${t.name}: ${expected} → ${kept}`)
    }
    assert.deepStrictEqual(lost, [])
    assert.deepStrictEqual(broken.slice(0, 5), [])
    assert.deepStrictEqual(dropped, [])
    assert.strictEqual(strictBefore, 7783)
    assert.isAbove(wrapped, 20_000)
  }, 120_000)
})

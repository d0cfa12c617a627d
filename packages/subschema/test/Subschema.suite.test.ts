/**
 * Soundness over the official JSON-Schema-Test-Suite (draft 2020-12): pairs of its schemas (neighbours in
 * file order, plus a fixed stride across files) are checked, and every `Subtype` is tested against the
 * suite's own instances (both groups' and a slice of all others'): none may be accepted by the cloud
 * validator and rejected by the local one. Every `Drift` witness is re-checked too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import { corpus } from "@toolgate/test-support/corpus"

interface Group {
  readonly schema: JsonSchema.JsonSchema
  readonly data: ReadonlyArray<JsonValue>
}

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : []
  )

const compiled = (s: JsonSchema.JsonSchema) => {
  const c = Validator.compile(s)
  return Either.isRight(c) ? c.right : undefined
}

const accepts = (c: Validator.Compiled, v: JsonValue): boolean | undefined => {
  try {
    return c.isValid(v)
  } catch {
    return undefined
  }
}

/**
 * Lets the event loop run: tens of seconds of proofs in one synchronous stretch starve the worker's messages
 * to vitest on a loaded machine ("Timeout calling onTaskUpdate").
 */
const breathe = () => new Promise((resolve) => setImmediate(resolve))

describe("Subschema over the JSON-Schema-Test-Suite", () => {
  it("pairs of suite schemas: Subtype never contradicted by a suite instance; Drift witnesses hold", { timeout: 300_000 }, async () => {
    const groups: Array<Group> = walk(path.join(corpus, "json-schema-test-suite", "tests", "draft2020-12")).flatMap((f) =>
      (JSON.parse(fs.readFileSync(f, "utf8")) as ReadonlyArray<{ schema: JsonSchema.JsonSchema; tests: ReadonlyArray<{ data: JsonValue }> }>)
        .map((g) => ({ schema: g.schema, data: g.tests.map((t) => t.data) }))
    )
    const all = groups.flatMap((g) => g.data)
    const tally = { pairs: 0, Subtype: 0, Drift: 0, Unsupported: 0 }
    const unsound: Array<string> = []
    for (let i = 0; i < groups.length; i++) {
      if (i % 20 === 0) await breathe()
      for (let j = 0; j < groups.length; j++) {
        if (i === j || (Math.abs(i - j) > 12 && (i * 7 + j * 13) % 41 !== 0)) continue
        const cloud = groups[i]!.schema, local = groups[j]!.schema
        const v = Subschema.check(cloud, local)
        tally.pairs++
        tally[v._tag]++
        const c = compiled(cloud), l = compiled(local)
        if (v._tag === "Drift" && !(c !== undefined && l !== undefined && c.isValid(v.witness) && !l.isValid(v.witness))) {
          unsound.push(`drift witness fails: ${JSON.stringify(cloud)} ⊑ ${JSON.stringify(local)}`)
        }
        if (v._tag !== "Subtype" || c === undefined || l === undefined) continue
        const values = [...groups[i]!.data, ...groups[j]!.data, ...all.filter((_, k) => k % 17 === (i + j) % 17)]
        const bad = values.find((x) => accepts(c, x) === true && accepts(l, x) === false)
        if (bad !== undefined) unsound.push(`${JSON.stringify(cloud)} ⊑ ${JSON.stringify(local)}: ${JSON.stringify(bad)}`)
      }
    }
    console.log("suite pairs", tally)
    assert.deepStrictEqual(unsound, [])
    assert.isAbove(tally.Subtype, 2_000)
    assert.isAbove(tally.Drift, 6_000)
  })

  for (const folder of ["draft2020-12", "draft7"]) {
    it(`${folder} containment schemas against mutated copies and neighbours, with the suite's instances`, { timeout: 300_000 }, async () => {
      const byText = new Map<string, { schema: JsonSchema.JsonSchema; data: Array<JsonValue> }>()
      for (const f of walk(path.join(corpus, "containment", folder, "valid"))) {
        for (const p of JSON.parse(fs.readFileSync(f, "utf8")) as ReadonlyArray<{ schema1: { const: JsonValue }; schema2: JsonSchema.JsonSchema }>) {
          const k = JSON.stringify(p.schema2)
          const g = byText.get(k) ?? { schema: p.schema2, data: [] }
          g.data.push(p.schema1.const)
          byText.set(k, g)
        }
      }
      const gs = [...byText.values()]
      const all = gs.flatMap((g) => g.data)
      const unsound: Array<string> = []
      let subtypes = 0
      const pair = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, values: ReadonlyArray<JsonValue>) => {
        const v = Subschema.check(cloud, local)
        const c = compiled(cloud), l = compiled(local)
        if (v._tag === "Drift" && !(c !== undefined && l !== undefined && c.isValid(v.witness) && !l.isValid(v.witness))) unsound.push(`witness: ${JSON.stringify([cloud, local])}`)
        if (v._tag !== "Subtype" || c === undefined || l === undefined) return
        subtypes++
        const bad = values.find((x) => accepts(c, x) === true && accepts(l, x) === false)
        if (bad !== undefined) unsound.push(`${JSON.stringify(cloud)} ⊑ ${JSON.stringify(local)}: ${JSON.stringify(bad)}`)
      }
      const edits: ReadonlyArray<readonly [string, JsonValue]> = [
        ["type", "string"], ["minimum", 2], ["maxLength", 2], ["additionalProperties", false], ["required", ["foo"]],
        ["items", { type: "integer" }], ["minItems", 2], ["uniqueItems", true]
      ]
      for (const [i, g] of gs.entries()) {
        if (i % 20 === 0) await breathe()
        const values = [...g.data, ...all.filter((_, k) => k % 7 === i % 7)]
        const s = g.schema
        const mutants = typeof s !== "object" ? [] : [
          ...Object.keys(s).map((k) => Object.fromEntries(Object.entries(s).filter(([x]) => x !== k))),
          ...edits.map(([k, v]) => ({ ...s, [k]: v }))
        ]
        for (const m of mutants) {
          pair(m, s, values)
          pair(s, m, values)
        }
        gs.forEach((h, j) => i !== j && Math.abs(i - j) < 30 && pair(s, h.schema, [...values, ...h.data]))
      }
      console.log(`${folder} mutants and neighbours: ${subtypes} Subtype verdicts checked`)
      assert.deepStrictEqual(unsound, [])
      assert.isAbove(subtypes, 1_000)
    })
  }
})

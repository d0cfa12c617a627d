import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { JsonSchema } from "../../src/JsonSchema.js"
import * as JsonSchemas from "../../src/JsonSchema.js"
import { makeAjv } from "../../src/internal/ajv.js"
import { metaError } from "../../src/internal/ajvMeta.js"
import { certainlyValid, keywords } from "../../src/internal/metaQuick.js"
import { corpus, tools } from "../suite.js"
import { mutate, rng, rootSchema } from "@toolgate/test-support/fuzzGenerate"

const require = createRequire(import.meta.url)

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : []
  )

/** Ajv's own reading of the 2020-12 meta-schema (dynamic references and all): the first error, or "ok". */
const real = makeAjv("2020-12", false, false)
const ajvSays = (s: JsonSchema): string =>
  real.validateSchema(s as object) === true ? "ok" : JSON.stringify([real.errors?.[0]?.instancePath ?? "", real.errors?.[0]?.message ?? "is invalid"])
const metaSays = (s: JsonSchema): string => {
  const e = metaError(s, "2020-12")
  return e === undefined ? "ok" : JSON.stringify([e.path, e.message])
}

describe("metaError (2020-12, the meta-schema's dynamic references read as references to the whole)", () => {
  it("gives Ajv's own answer and first error on the suite's and the containment corpus's schemas, and on broken ones", () => {
    const schemas: Array<JsonSchema> = [
      { minimum: "5" } as never, { type: "strin" } as never, { required: ["a", "a"] }, { properties: { a: { type: 3 } } } as never,
      { $defs: { x: { items: { minItems: -1 } } } }, { allOf: [] }, { $ref: 3 } as never, { not: { anyOf: [{ maxLength: 1.5 }] } },
      { dependentRequired: { a: [1] } } as never, { unevaluatedProperties: { $dynamicRef: 3 } } as never, { $schema: "https://json-schema.org/draft/2020-12/schema", $anchor: "1x" }
    ]
    for (const folder of [path.join(corpus, "json-schema-test-suite", "tests", "draft2020-12"), path.join(corpus, "containment", "draft2020-12")]) {
      if (!fs.existsSync(folder)) continue
      for (const file of walk(folder)) {
        for (const g of JSON.parse(fs.readFileSync(file, "utf8")) as ReadonlyArray<Record<string, JsonSchema>>) {
          for (const k of ["schema", "schema1", "schema2"]) if (k in g) schemas.push(g[k]!)
        }
      }
    }
    const read = schemas.filter((s) => typeof s !== "object" || s["$schema"] === undefined || s["$schema"] === "https://json-schema.org/draft/2020-12/schema")
    assert.isAbove(read.length, 1_000)
    const differ = read.filter((s) => ajvSays(s) !== metaSays(s)).map((s) => JSON.stringify(s).slice(0, 200))
    assert.deepStrictEqual(differ, [])
    assert.isAbove(read.filter((s) => metaSays(s) !== "ok").length, 9)
  })
})

const draft07Id = "http://json-schema.org/draft-07/schema#"
const ajv07 = makeAjv("draft-07", false, false)
/** Ajv's own answer for a dialect: 2020-12 with its dynamic references, or draft-07; "throws" when it cannot tell. */
const ajvAccepts = (s: JsonSchema, dialect: "2020-12" | "draft-07"): boolean | "throws" => {
  try {
    return (dialect === "2020-12" ? real : ajv07).validateSchema(s as object) === true
  } catch {
    return "throws"
  }
}
const formatsOf = (dialect: "2020-12" | "draft-07") => {
  const f = makeAjv(dialect, false, false).formats
  const regex = f["regex"] as (s: string) => boolean, uri = f["uri-reference"] as RegExp
  return { regex: (s: string) => regex(s) === true, uriReference: (s: string) => uri.test(s) }
}
const quick = { "2020-12": certainlyValid("2020-12", formatsOf("2020-12")), "draft-07": certainlyValid("draft-07", formatsOf("draft-07")) }

/** Schemas the quick reading must not pass where Ajv refuses them: each one shape a meta-schema forbids. */
const nearMisses: ReadonlyArray<JsonSchema> = [
  { enum: [] }, { enum: [0, -0] }, { enum: ["a", "a"] }, { enum: [{}, {}] }, { enum: "a" } as never, { type: ["string", "string"] }, { type: [] },
  { type: "strin" } as never, { type: 3 } as never, { required: ["a", "a"] }, { required: [1] } as never, { required: "a" } as never,
  { minLength: 1.5 }, { minLength: -1 }, { maxItems: "1" } as never, { multipleOf: 0 }, { multipleOf: -2 }, { minimum: "5" } as never,
  { pattern: "(" }, { pattern: "a\\Z" }, { pattern: 1 } as never, { patternProperties: { "(": {} } }, { patternProperties: { a: 1 } } as never,
  { $ref: "#/a b" }, { $ref: "http://x y" }, { $ref: "#/%zz" }, { $ref: "a#b#c" }, { $ref: 1 } as never, { $dynamicRef: "#a b" }, { $recursiveRef: "\\" }, { $anchor: "1x" }, { $dynamicAnchor: "a b" }, { $recursiveAnchor: true } as never,
  { items: [{}] }, { items: [] }, { items: 1 } as never, { prefixItems: [] }, { allOf: [] }, { anyOf: {} } as never, { not: 1 } as never,
  { dependencies: { a: ["b", "b"] } }, { dependencies: { a: 1 } } as never, { dependentRequired: { a: ["b", "b"] } }, { dependentSchemas: { a: 1 } } as never,
  { properties: [] } as never, { properties: { a: [] } } as never, { definitions: { a: "x" } } as never, { $defs: { a: 1 } } as never,
  { title: 1 } as never, { description: null } as never, { readOnly: "yes" } as never, { writeOnly: 1 } as never, { deprecated: 0 } as never,
  { examples: {} } as never, { format: 1 } as never, { uniqueItems: "true" } as never, { minContains: -1 }, { contentSchema: 2 } as never,
  { $schema: "http://json-schema.org/draft-07/schema" }, { $schema: "https://json-schema.org/draft/2019-09/schema" }, { $schema: 1 } as never,
  { $id: "http://x/#frag" }, { $vocabulary: { a: 1 } } as never, { $comment: 1 } as never, { additionalItems: "x" } as never
]

/** A schema nested `n` levels deep under `properties`. */
const deep = (n: number): JsonSchema => {
  let s: JsonSchema = { type: "string" }
  for (let i = 0; i < n; i++) s = { properties: { a: s } }
  return s
}

describe("the quick reading of the meta-schemas (metaQuick)", () => {
  const generated = (): Array<JsonSchema> => {
    const r = rng(20_261_126)
    const out: Array<JsonSchema> = []
    const ts = tools().map((t) => JsonSchemas.upgrade(t.parameters).schema)
    for (let i = 0; i < 3_000; i++) {
      const s = i % 3 === 0 && ts.length > 0 ? r.pick(ts) : rootSchema(r)
      out.push(s, mutate(r, s), mutate(r, mutate(r, s)))
    }
    return out
  }

  it("passes only schemas Ajv's own check of the meta-schema accepts, in both dialects", () => {
    const schemas = [...generated(), ...nearMisses, deep(40), deep(70), deep(200)]
    const wrong: Array<string> = []
    let passed = 0
    for (const s of schemas) {
      for (const d of ["2020-12", "draft-07"] as const) {
        const given = d === "draft-07" && typeof s === "object" && s["$schema"] === undefined ? { ...s, $schema: draft07Id } : s
        if (!quick[d](given)) continue
        passed++
        if (ajvAccepts(given, d) !== true) wrong.push(`${d} ${JSON.stringify(given).slice(0, 200)}`)
      }
    }
    assert.deepStrictEqual(wrong, [])
    assert.isAbove(passed, 6_000)
    for (const s of nearMisses) {
      for (const d of ["2020-12", "draft-07"] as const) if (ajvAccepts(s, d) === false) assert.isFalse(quick[d](s), `${d} ${JSON.stringify(s)}`)
    }
  })

  it("reads at a glance the schemas tools publish (so the prover's meta-schema checks cost microseconds)", () => {
    const ts = tools().map((t) => JsonSchemas.upgrade(t.parameters).schema)
    const read = ts.filter((s) => quick[JsonSchemas.dialect(s)](s))
    assert.isAbove(read.length / ts.length, 0.9)
  })

  it("knows every keyword each meta-schema defines, and the meta-schemas leave every other keyword free", () => {
    const d07 = JSON.parse(fs.readFileSync(require.resolve("ajv/dist/refs/json-schema-draft-07.json"), "utf8")) as Record<string, unknown>
    const parts = ["schema", ...["core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content"].map((p) => `meta/${p}`)]
      .map((p) => JSON.parse(fs.readFileSync(require.resolve(`ajv/dist/refs/json-schema-2020-12/${p}.json`), "utf8")) as Record<string, unknown>)
    for (const [d, metas] of [["draft-07", [d07]], ["2020-12", parts]] as const) {
      const known = new Set(keywords(d))
      for (const m of metas) {
        for (const k of ["additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties", "required", "dependentSchemas", "dependencies", "if", "not", "oneOf", "anyOf"]) {
          assert.notProperty(m, k, `${d}: the meta-schema constrains keywords through ${k}`)
        }
        assert.deepStrictEqual(Object.keys(m["properties"] as object).filter((k) => !known.has(k)), [], d)
      }
    }
  })
})

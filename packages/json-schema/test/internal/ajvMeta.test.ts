import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { JsonSchema } from "../../src/JsonSchema.js"
import { makeAjv, metaError } from "../../src/internal/ajv.js"
import { corpus } from "../suite.js"

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

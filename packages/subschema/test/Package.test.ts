/**
 * The package boundary: the prover depends on `@toolgate/json-schema`'s public modules and nothing of it
 * depends back, so an app that only validates installs neither the prover nor refa.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const packages = path.resolve(import.meta.dirname, "../..")

const sources = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.join(e.parentPath, e.name))

const specifiers = (file: string): ReadonlyArray<string> =>
  [...fs.readFileSync(file, "utf8").matchAll(/^(?:import|export)[^"]*from "([^"]+)"|import\("([^"]+)"\)/gm)].map((m) => m[1] ?? m[2]!)

describe("@toolgate/subschema's boundary", () => {
  it("reads json-schema through its public modules only", () => {
    const exported = new Set(fs.readdirSync(path.join(packages, "json-schema/src")).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)))
    const used = sources(path.join(packages, "subschema/src")).flatMap(specifiers).filter((s) => s.startsWith("@toolgate/json-schema"))
    assert.isAbove(used.length, 0)
    for (const s of used) assert.isTrue(s === "@toolgate/json-schema" || exported.has(s.slice("@toolgate/json-schema/".length)), s)
  })

  it("json-schema imports nothing of the prover and does not depend on refa", () => {
    for (const file of sources(path.join(packages, "json-schema/src"))) {
      for (const s of specifiers(file)) assert.isFalse(s.startsWith("@toolgate/subschema") || s === "refa" || /subschema|patternAutomata/i.test(path.basename(s)), `${file}: ${s}`)
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(packages, "json-schema/package.json"), "utf8")) as { readonly dependencies: Record<string, string> }
    assert.deepStrictEqual(Object.keys(manifest.dependencies).sort(), ["ajv", "ajv-formats"])
  })
})

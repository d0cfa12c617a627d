/**
 * `EnvConfig.names` is the one list of `TOOLGATE_*` names: every name a library or app source spells out
 * is in it, each service's names are distinct, and each names an option its `layerEnv` reads.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import * as EnvConfig from "../src/EnvConfig.js"

const root = path.resolve(import.meta.dirname, "../../..")

/** Every `.ts` file under `dir`, recursively. */
const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

const srcDirs = ["packages", "apps"].flatMap((top) =>
  readdirSync(path.join(root, top)).map((name) => path.join(root, top, name, "src")).filter((dir) => {
    try {
      return readdirSync(dir).length > 0
    } catch {
      return false
    }
  })
)

const listed = new Set<string>(Object.values(EnvConfig.names).flatMap((byOption) => Object.values(byOption)))

/** A name read on its own elsewhere, not an option of a service with `layerConfig`. */
const readElsewhere = new Set<string>()

describe("EnvConfig", () => {
  it("every TOOLGATE_* name spelled out in a src/ file is listed in EnvConfig.names", () => {
    const found = new Map<string, string>()
    for (const file of srcDirs.flatMap(sources)) {
      if (file.endsWith(path.join("runtime", "src", "EnvConfig.ts"))) continue
      for (const [name] of readFileSync(file, "utf8").matchAll(/TOOLGATE_[A-Z_]+[A-Z]/g)) found.set(name, path.relative(root, file))
    }
    const unlisted = Array.from(found).filter(([name]) => !listed.has(name) && !readElsewhere.has(name))
    assert.deepStrictEqual(unlisted, [])
    assert.isAbove(found.size, 10)
  })

  it("each service's names are distinct TOOLGATE_* names", () => {
    for (const [service, byOption] of Object.entries(EnvConfig.names)) {
      const names = Object.values(byOption)
      assert.strictEqual(new Set(names).size, names.length, service)
      for (const name of names) assert.match(name, /^TOOLGATE_[A-Z_]+$/, service)
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as RefAware from "../src/RefAware.js"
import * as Validator from "../src/Validator.js"
import { tools as loadTools } from "./suite.js"

const tools = loadTools()

type Obj = Record<string, unknown>

/** Every `anyOf` list in a schema. */
const anyOfs = (u: unknown, out: Array<ReadonlyArray<unknown>> = []): Array<ReadonlyArray<unknown>> => {
  if (typeof u !== "object" || u === null) return out
  if (!Array.isArray(u) && Array.isArray((u as Obj)["anyOf"])) out.push((u as Obj)["anyOf"] as ReadonlyArray<unknown>)
  for (const v of Object.values(u)) anyOfs(v, out)
  return out
}

/** The first value position of an object schema whose subschema is an object (a ref can stand there). */
const firstProperty = (s: JsonSchema.JsonSchema): string | undefined => {
  if (typeof s !== "object") return undefined
  const props = s["properties"]
  if (typeof props !== "object" || props === null || Array.isArray(props)) return undefined
  return Object.keys(props).find((k) => typeof (props as Obj)[k] === "object")
}

describe("RefAware.widen on the corpus (tools.jsonl, after JsonSchema.upgrade)", () => {
  const cases = tools.map((t) => {
    const base = JsonSchema.upgrade(t.parameters).schema
    return { tool: t, base, widened: RefAware.widen(base) }
  })

  it("is idempotent on every tool, keeps the root's keys, and never nests the ref branch", () => {
    const problems: Array<string> = []
    let positions = 0
    for (const { base, tool, widened } of cases) {
      const name = `${tool.source}/${tool.name}`
      if (JSON.stringify(RefAware.widen(widened)) !== JSON.stringify(widened)) problems.push(`${name}: not idempotent`)
      if (typeof base === "object" && JSON.stringify(Object.keys(base)) !== JSON.stringify(Object.keys(widened as Obj))) {
        problems.push(`${name}: root keys changed`)
      }
      for (const list of anyOfs(widened)) {
        const n = list.filter((b) => b === RefAware.refSchema).length
        positions += n
        if (n > 1) problems.push(`${name}: the ref branch twice in one anyOf`)
        if (list.some((b) => anyOfs(b).some((inner) => inner === (b as Obj)["anyOf"] && inner.includes(RefAware.refSchema)))) {
          problems.push(`${name}: a union holding the ref inside an anyOf branch`)
        }
      }
    }
    assert.deepStrictEqual(problems, [])
    assert.isAbove(positions, 20_000)
  })

  it("every widened schema with examples compiles; examples the base accepts stay valid; a ref in the first property is accepted", () => {
    const problems: Array<string> = []
    let kept = 0
    let refAccepted = 0
    for (const { base, tool, widened } of cases) {
      if (tool.examples.length === 0) continue
      const name = `${tool.source}/${tool.name}`
      const b = Validator.compile(base)
      const w = Validator.compile(widened)
      if (Either.isLeft(b)) continue
      if (Either.isLeft(w)) {
        problems.push(`${name}: ${w.left.message}`)
        continue
      }
      for (const example of tool.examples) {
        if (!b.right.isValid(example)) continue
        kept++
        if (!w.right.isValid(example)) problems.push(`${name}: lost ${JSON.stringify(example)}`)
        const key = firstProperty(base)
        if (key === undefined || typeof example !== "object" || example === null || Array.isArray(example)) continue
        const chained = { ...example, [key]: { $tool: "call_1", $path: "result.value" } }
        if (w.right.isValid(chained)) refAccepted++
        else problems.push(`${name}: refused a ref at ${key}`)
      }
    }
    assert.deepStrictEqual(problems, [])
    assert.isAbove(kept, 4000)
    assert.isAbove(refAccepted, 4000)
  }, 120_000)
})

import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Normalize from "../src/Normalize.js"
import * as Validator from "../src/Validator.js"
import { ccaViolations } from "./internal/providerRules.cca.js"
import { googleViolations } from "./internal/providerRules.google.js"
import { tools as loadTools, type Tool } from "./suite.js"

const tools = loadTools()

/** A change sentence with its specifics taken out, so it names the rule that made it. */
const kind = (change: string): string =>
  change.replace(/#\/\S+/g, "#…").replace(/property `[^`]*`/g, "property `…`").replace(/^(`anyOf`|`oneOf`): \d+/, "$1: N")

const tally = (changes: ReadonlyArray<JsonSchema.Change>, into: Record<string, number>): void => {
  for (const c of changes) into[kind(c.change)] = (into[kind(c.change)] ?? 0) + 1
}

const name = (t: Tool) => `${t.source}/${t.name}`

const run = () => {
  const out = {
    google: { violations: [] as Array<string>, changes: {} as Record<string, number> },
    cca: { violations: [] as Array<string>, fellBack: {} as Record<string, number>, lossyTools: 0, lossy: {} as Record<string, number> },
    mcp: { changes: {} as Record<string, number>, checked: 0, broken: [] as Array<string> }
  }
  for (const t of tools) {
    const up = JsonSchema.upgrade(t.parameters).schema
    const g = Normalize.google(up)
    if (googleViolations(g.schema).length > 0) out.google.violations.push(name(t))
    tally(g.changes, out.google.changes)
    const c = Normalize.cca(up)
    if (ccaViolations(c.schema).length > 0) out.cca.violations.push(name(t))
    const last = c.changes.at(-1)?.change ?? ""
    if (last.startsWith("Claude via CCA cannot take this schema")) tally([c.changes.at(-1)!], out.cca.fellBack)
    const lossy = c.changes.filter((x) => x.change.endsWith("(lossy)"))
    if (lossy.length > 0) out.cca.lossyTools++
    tally(lossy, out.cca.lossy)
    const m = Normalize.mcp(up)
    tally(m.changes, out.mcp.changes)
    const before = Validator.compile(up)
    if (Either.isLeft(before) || t.examples.length === 0) continue
    const after = Validator.compile(m.schema)
    for (const e of t.examples) {
      if (!before.right.isValid(e)) continue
      out.mcp.checked++
      if (Either.isLeft(after) || !after.right.isValid(e)) out.mcp.broken.push(name(t))
    }
  }
  return out
}

describe("Normalize over the corpus (tools.jsonl, after JsonSchema.upgrade)", () => {
  const result = run()

  it("reads all 8,031 tools", () => {
    assert.strictEqual(tools.length, 8031)
  })

  it("google: every output keeps Google's rules; changes pinned by kind", () => {
    assert.deepStrictEqual(result.google.violations, [])
    assert.deepStrictEqual(result.google.changes, {
      "`additionalProperties` removed (Google does not support it)": 798,
      "`$schema` removed (Google does not support it)": 555,
      "`minimum` removed (Google does not support it); kept in `description`": 210,
      "`$ref` #\u2026 inlined": 172,
      "`minLength` removed (Google does not support it); kept in `description`": 159,
      "`maximum` removed (Google does not support it); kept in `description`": 157,
      "object without `properties`: `properties: {}` added": 142,
      "`pattern` removed (Google does not support it); kept in `description`": 127,
      "`const` became `enum` with its one value": 123,
      "`maxLength` removed (Google does not support it); kept in `description`": 110,
      "`format` removed (Google does not support it); kept in `description`": 49,
      "`minItems` removed (Google does not support it); kept in `description`": 45,
      "`exclusiveMinimum` removed (Google does not support it); kept in `description`": 35,
      "`$defs` removed (Google does not support it)": 24,
      // a oneOf whose branches lost a keyword that may have kept them apart
      "`oneOf` became `anyOf`: keywords stripped inside its branches may make them overlap, and a value two branches accept would fail `oneOf`; exactly one branch is no longer required (lossy)": 10,
      "`maxItems` removed (Google does not support it); kept in `description`": 16,
      "`type` [\"string\",\"null\"] became `type: string` with `nullable: true`": 16,
      "`$ref` #\u2026 is recursive and Google takes no `$ref`: replaced by its type, unconstrained inside, described": 8,
      "no `type`: the `enum` values are all strings, so `type: string`": 4,
      "`type` [\"boolean\",\"string\"] became `anyOf` of one schema per type": 3,
      "`type` [\"object\",\"null\"] became `type: object` with `nullable: true`": 3,
      "`exclusiveMaximum` removed (Google does not support it); kept in `description`": 2,
      "`type` [\"integer\",\"null\"] became `type: integer` with `nullable: true`": 2,
      "`type` [\"string\",\"number\",\"boolean\"] became `anyOf` of one schema per type": 1
    })
  })

  it("cca: every output passes the residual gate and the 2020-12 meta-schema; fallbacks and lossy collapses pinned", () => {
    assert.deepStrictEqual(result.cca.violations, [])
    assert.deepStrictEqual(result.cca.fellBack, {})
    // object variants merged where the merged shape narrows one (MongoDB's pipelines and indexes, …), and the
    // oneOfs the Google pass made anyOf before the unions were collapsed
    assert.strictEqual(result.cca.lossyTools, 41)
    assert.deepStrictEqual(result.cca.lossy, {
      "`anyOf`: N object variants merged into one object shape; a property or keyword only some variants give now applies to every value (lossy)": 119,
      "`anyOf`: mixes object, string: only the variant of type string is kept (lossy)": 24,
      "`anyOf`: mixes array, string: only the variant of type string is kept (lossy)": 18,
      "`anyOf`: mixes string, integer: only the variant of type string is kept (lossy)": 12,
      "`oneOf` became `anyOf`: keywords stripped inside its branches may make them overlap, and a value two branches accept would fail `oneOf`; exactly one branch is no longer required (lossy)": 10,
      "`anyOf`: mixes boolean, string: only the variant of type boolean is kept (lossy)": 5,
      "`anyOf`: mixes string, array: only the variant of type string is kept (lossy)": 5,
      "`anyOf`: mixes string, object: only the variant of type string is kept (lossy)": 4,
      "`anyOf`: mixes string, number, boolean: only the variant of type string is kept (lossy)": 2,
      "`anyOf`: mixes boolean, object: only the variant of type boolean is kept (lossy)": 1,
      "`anyOf`: mixes number, untyped: only the variant of type number is kept (lossy)": 1,
      "property `\u2026`, given differently by the variants: 2 object variants merged into one object shape; a property or keyword only some variants give now applies to every value (lossy)": 1,
      "property `\u2026`, given differently by the variants: 3 object variants merged into one object shape; a property or keyword only some variants give now applies to every value (lossy)": 1
    })
  })

  it("mcp: examples valid against the upgraded schema stay valid (the pass is lossless); changes pinned", () => {
    assert.strictEqual(result.mcp.checked, 4345)
    assert.deepStrictEqual(result.mcp.broken, [])
    assert.deepStrictEqual(result.mcp.changes, {
      "`$schema` removed (MCP schemas are read as 2020-12)": 555,
      "`const` became `enum` with its one value": 263,
      "`$ref` #\u2026 inlined": 172,
      "`$defs` removed: every `$ref` into it was inlined": 24,
      "`$ref` #\u2026 kept (recursive)": 8
    })
  })
}, 300_000)

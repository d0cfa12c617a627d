import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Validator from "../src/Validator.js"
import { tools as loadTools } from "./suite.js"

const tools = loadTools()

/** A change sentence with its specific values taken out, so it names the rule that made it. */
const kind = (change: string): string => change.replace(/`[^`]*`/g, "`…`").replace(/https?:\/\/\S+/g, "<uri>")

describe("upgrade on the corpus (tools.jsonl)", () => {
  const upgraded = tools.map((t) => ({ tool: t, ...JsonSchema.upgrade(t.parameters) }))

  it("reads all 8,031 tools", () => {
    assert.strictEqual(tools.length, 8031)
  })

  it("every upgraded `parameters` compiles; most raw ones do not", () => {
    const failures = upgraded.filter((u) => Either.isLeft(Validator.compile(u.schema))).map((u) => `${u.tool.source}/${u.tool.name}`)
    assert.deepStrictEqual(failures, [])
    const rawFailures = tools.filter((t) => !JsonSchema.isSchema(t.parameters) || Either.isLeft(Validator.compile(t.parameters))).length
    assert.strictEqual(rawFailures, 4689)
  }, 120_000)

  it("pins the changes by kind", () => {
    const counts: Record<string, number> = {}
    for (const u of upgraded) for (const c of u.changes) counts[kind(c.change)] = (counts[kind(c.change)] ?? 0) + 1
    assert.deepStrictEqual(counts, {
      "type `…` is read as `…`": 6429,
      "`…` <uri> became <uri> (no draft-07-only form is left)": 389,
      "type `…` means any value; the type constraint is removed": 191,
      "type `…` is read as `…` of `…`": 5,
      "draft-04 `…` with `…` became `…`": 1
    })
    assert.strictEqual(upgraded.filter((u) => u.changes.length > 0).length, 5078)
  })

  it("pins which published type names were read as what", () => {
    const names: Record<string, number> = {}
    for (const u of upgraded) {
      for (const c of u.changes) {
        const m = /^type `([^`]*)` (?:is read as `([^`]*)`(?: of `([^`]*)`)?|means any value)/.exec(c.change)
        if (m !== null) {
          const key = `${m[1]} -> ${m[2] === undefined ? "(any)" : m[3] === undefined ? m[2] : `${m[2]} of ${m[3]}`}`
          names[key] = (names[key] ?? 0) + 1
        }
      }
    }
    assert.deepStrictEqual(names, {
      "dict -> object": 4902, "float -> number": 1179, "any -> (any)": 190, "str -> string": 149,
      "String -> string": 115, "tuple -> array": 33, "Array -> array": 13, "HashMap -> object": 7,
      "long -> integer": 7, "int -> integer": 7, "ArrayList -> array": 6, "list(str) -> array of string": 5,
      "Boolean -> boolean": 4, "list -> array": 4, "double -> number": 1, "char -> string": 1, " -> (any)": 1,
      "bool -> boolean": 1
    })
  })

  it("is idempotent and leaves its input alone on every tool", () => {
    for (const t of tools) {
      const before = JSON.stringify(t.parameters)
      const once = JsonSchema.upgrade(t.parameters)
      assert.strictEqual(JSON.stringify(t.parameters), before)
      assert.deepStrictEqual(JsonSchema.upgrade(once.schema).changes, [])
    }
  })

  it("leaves a schema that needs nothing as the very same object", () => {
    const clean = upgraded.filter((u) => u.changes.length === 0)
    assert.isTrue(clean.length > 2900)
    for (const u of clean) assert.strictEqual(u.schema, u.tool.parameters)
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as JsonSchema from "../src/JsonSchema.js"
import * as Normalize from "../src/Normalize.js"
import * as Validator from "../src/Validator.js"
import { deep, freeze, tool } from "./internal/normalizeArbitrary.js"
import { nodes } from "./internal/providerRules.google.js"

/** The answer, or "threw" (a schema like `{type: "object", $ref: "#"}` recurses forever on any object). */
const settles = (f: () => boolean): boolean | "threw" => {
  try {
    return f()
  } catch {
    return "threw"
  }
}

const mcp = (s: unknown) => Normalize.mcp(freeze(s) as never)

/** The MCP pass's own promise: no `$schema`, no `const`, and it compiles whenever the upgraded input does. */
const mcpViolations = (input: unknown, out: JsonSchema.JsonSchema): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const { node, path } of nodes(out)) {
    if (typeof node !== "object" || node === null) continue
    for (const k of ["$schema", "const"]) if (Object.prototype.hasOwnProperty.call(node, k)) found.push(`${path || "/"}: \`${k}\``)
  }
  const compiles = (s: JsonSchema.JsonSchema) => Either.isRight(Validator.compile(s))
  if (compiles(JsonSchema.upgrade(input).schema) && !compiles(out)) found.push("the output does not compile")
  return found
}

describe("Normalize.mcp", () => {
  it("drops `$schema` and upgrades draft-07 (tuples, definitions)", () => {
    const r = mcp({ $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }], additionalItems: false })
    assert.deepStrictEqual(r.schema, { type: "array", prefixItems: [{ type: "string" }], items: false })
    assert.isTrue(r.changes.some((c) => c.path === "/$schema" && c.change.startsWith("`$schema` removed")))
  })

  it("inlines local non-recursive refs and drops the `$defs` nothing needs any more", () => {
    const r = mcp({
      type: "object",
      definitions: { id: { type: "string", pattern: "^[a-z]+$" } },
      properties: { a: { $ref: "#/definitions/id", description: "An id." }, b: { type: "array", items: { $ref: "#/definitions/id" } } }
    })
    const id = { type: "string", pattern: "^[a-z]+$" }
    assert.deepStrictEqual(r.schema, { type: "object", properties: { a: { ...id, description: "An id." }, b: { type: "array", items: id } } })
    assert.isTrue(r.changes.some((c) => c.path === "/$defs" && c.change === "`$defs` removed: every `$ref` into it was inlined"))
  })

  it("keeps recursive refs as refs, with their `$defs`", () => {
    const s = {
      $defs: { tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/tree" } } } } },
      type: "object",
      properties: { root: { $ref: "#/$defs/tree" }, self: { $ref: "#" } }
    }
    const r = mcp(s)
    const tree = { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/tree" } } } }
    assert.deepStrictEqual(r.schema, { $defs: { tree }, type: "object", properties: { root: tree, self: { $ref: "#" } } })
    assert.deepStrictEqual(mcpViolations(s, r.schema), [])
  })

  it("keeps refs it must not inline: missing, external, to an `$id`, or under `$dynamicRef`", () => {
    const missing = mcp({ properties: { a: { $ref: "#/$defs/nope" } } })
    assert.deepStrictEqual(missing.schema, { properties: { a: { $ref: "#/$defs/nope" } } })
    assert.isTrue(missing.changes.some((c) => c.change === "`$ref` #/$defs/nope kept (missing)"))
    const identified = { $defs: { a: { $id: "https://x.test/a", type: "string" } }, properties: { a: { $ref: "#/$defs/a" } } }
    assert.deepStrictEqual(mcp(identified).schema, identified)
    const dyn = { $defs: { a: { type: "string" } }, properties: { a: { $ref: "#/$defs/a" }, b: { $dynamicRef: "#x" } } }
    assert.deepStrictEqual(mcp(dyn).schema, dyn)
  })

  it("keeps a ref's siblings apart from the target when they read each other (`additionalProperties` beside `properties`)", () => {
    const s = { $defs: { o: { type: "object", properties: { a: { type: "integer" } } } }, $ref: "#/$defs/o", additionalProperties: false }
    const r = mcp(s)
    assert.deepStrictEqual(r.schema, { additionalProperties: false, allOf: [{ type: "object", properties: { a: { type: "integer" } } }] })
    const compiled = Validator.compile(r.schema)
    assert.isTrue(Either.isRight(compiled) && !compiled.right.isValid({ a: 1 }) && compiled.right.isValid({}))
  })

  it("removes `$anchor` from inlined copies, so a kept `$defs` and the copies never clash", () => {
    const s = {
      $defs: { id: { $anchor: "Id", type: "string" }, tree: { type: "array", items: { $ref: "#/$defs/tree" } } },
      properties: { a: { $ref: "#Id" }, b: { $ref: "#/$defs/id" }, t: { $ref: "#/$defs/tree" } }
    }
    const r = mcp(s)
    const props = (r.schema as { properties: Record<string, unknown> }).properties
    assert.deepStrictEqual([props["a"], props["b"]], [{ type: "string" }, { type: "string" }])
    assert.deepStrictEqual(mcpViolations(s, r.schema), [])
  })

  it("stops inlining a ref graph that would explode, keeping the rest as refs with their `$defs`", () => {
    const defs: Record<string, unknown> = { d0: { type: "string", const: "x" } }
    for (let i = 1; i <= 30; i++) defs[`d${i}`] = { type: "object", properties: { l: { $ref: `#/$defs/d${i - 1}` }, r: { $ref: `#/$defs/d${i - 1}` } } }
    const s = { $defs: defs, $ref: "#/$defs/d30" }
    const r = mcp(s)
    assert.isTrue(r.changes.some((c) => c.change.endsWith("kept (too many nodes)")))
    assert.deepStrictEqual(Object.keys((r.schema as { $defs: object }).$defs).length, 31)
    assert.deepStrictEqual(mcpViolations(s, r.schema), [])
  }, 30_000)

  it("turns `const` into `enum` and keeps type lists, validation keywords and combinators", () => {
    const s = { type: "object", properties: { a: { type: ["string", "null"], minLength: 2, format: "email" }, b: { anyOf: [{ const: 1 }, { not: { type: "null" } }] } } }
    assert.deepStrictEqual(mcp(s).schema, { type: "object", properties: { a: { type: ["string", "null"], minLength: 2, format: "email" }, b: { anyOf: [{ enum: [1] }, { not: { type: "null" } }] } } })
  })

  it("reports upgrade's changes as well as its own", () => {
    const r = mcp({ type: "object", properties: { a: { type: "dict", nullable: true } } })
    assert.deepStrictEqual(r.schema, { type: "object", properties: { a: { type: ["object", "null"] } } })
    assert.strictEqual(r.changes.length, 2)
  })

  it("is total on hostile input", () => {
    assert.deepStrictEqual(Normalize.mcp(42 as never).schema, true)
    assert.deepStrictEqual(Normalize.mcp(false).schema, false)
    const tooDeep = mcp({ $schema: "https://json-schema.org/draft/2020-12/schema", ...deep(10_000) })
    assert.isUndefined((tooDeep.schema as Record<string, unknown>)["$schema"])
    assert.match(tooDeep.changes.at(-1)!.change, /nested deeper than 512 levels: only `\$schema` was removed/)
    const s = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"const\":\"x\"}}}")
    const out = mcp(s).schema as { properties: object }
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out.properties, "__proto__")?.value, { enum: ["x"] })
    assert.strictEqual(Object.getPrototypeOf(out.properties), Object.prototype)
  })

  it.prop("keeps its promise, is deterministic and leaves its input alone", [tool], ([s]) => {
    const before = JSON.stringify(s)
    const a = Normalize.mcp(s)
    assert.deepStrictEqual(mcpViolations(s, a.schema), [])
    assert.deepStrictEqual(Normalize.mcp(s), a)
    assert.strictEqual(JSON.stringify(s), before)
  }, { fastCheck: { numRuns: 200 } })

  const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.constantFrom("a", "b", "__proto__", "constructor", "anyOf"), fc.jsonValue({ maxDepth: 2 })))

  it.prop("is lossless: a value is valid against the output exactly when it is valid against the upgraded input", [tool, fc.array(value, { maxLength: 8 })], ([s, values]) => {
    const up = Validator.compile(JsonSchema.upgrade(s).schema)
    if (Either.isLeft(up)) return
    const out = Validator.compile(Normalize.mcp(s).schema)
    assert.isTrue(Either.isRight(out))
    if (Either.isLeft(out)) return
    for (const v of values) {
      const expected = settles(() => up.right.isValid(v))
      if (expected !== "threw") assert.strictEqual(out.right.isValid(v), expected, JSON.stringify(v))
    }
  }, { fastCheck: { numRuns: 200 } })

  it.prop("never throws, whatever it is given", [fc.anything()], ([u]) => {
    assert.isTrue(JsonSchema.isSchema(Normalize.mcp(u as never).schema))
  })
})

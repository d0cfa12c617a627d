import { assert, describe, it } from "@effect/vitest"
import { tools as loadTools } from "./suite.js"
import { Either } from "effect"
import * as Arguments from "../src/Arguments.js"
import * as JsonSchema from "../src/JsonSchema.js"
import type { JsonValue } from "../src/JsonValue.js"
import * as Normalize from "../src/Normalize.js"
import * as Validator from "../src/Validator.js"
import { checkOpenAiStrict } from "./internal/providerRules.openAi.js"

// The corpus is part of the repository (corpus/, with SOURCES.md and the licence files).
const tools = loadTools()
  .map((tool) => {
    const original = JsonSchema.upgrade(tool.parameters).schema
    return { tool, original, result: Normalize.openAiStrict(original) }
  })

/** A change sentence with its specific values taken out, so it names the rule that made it. */
const kind = (change: string): string =>
  change.replace(/^strict mode is off for this tool: (the schema|`[^`]*`) /, "").replace(/`[^`]*`/g, "`…`")
    .replace(/"[^"]*"/g, "\"…\"")

/** The rule a change of a strict result applied (removals keep their keyword). */
const rule = (change: string): string => {
  const removed = /^removed `([^`]+)`/.exec(change)
  if (removed !== null) return `removed ${removed[1]}`
  const rules: ReadonlyArray<readonly [RegExp, string]> = [
    [/^`default` .* moved into `description`/, "default moved into description"],
    [/^`const` /, "const became enum"],
    [/^closed with/, "object closed"],
    [/now required and nullable/, "optional: required, wrapped nullable"],
    [/branch appended/, "optional: required, null branch appended"],
    [/already accepts `null`/, "optional: required, already nullable"],
    [/^`oneOf` became `anyOf`/, "oneOf became anyOf"],
    [/spliced/, "nested anyOf spliced"],
    [/inferred from the `enum`/, "type inferred from enum"],
    [/gave way to the `const`/, "enum gave way to const"],
    [/now points at/, "$ref re-aimed at its moved target"],
    [/removed: no `\$ref` reaches it$/, "unused definition removed"]
  ]
  return rules.find(([re]) => re.test(change))?.[1] ?? change
}

const tally = (kinds: ReadonlyArray<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const k of kinds) out[k] = (out[k] ?? 0) + 1
  return out
}

const isNode = (u: unknown): u is { readonly [k: string]: JsonValue } => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * What a strict model sends for a value the original accepts: every optional property it left out comes
 * as `null`, in nested objects too (through `$ref`, items, tuples, and the union branch the value matches).
 */
const withStrictNulls = (root: JsonSchema.JsonSchema, pointer: string, value: JsonValue, depth = 0): JsonValue => {
  const schema = JsonSchema.Pointer.get(root as JsonValue, pointer)
  if (!isNode(schema) || depth > 50) return value
  if (typeof schema["$ref"] === "string") {
    const target = JsonSchema.resolveRef(root, schema["$ref"])
    if (target._tag === "Resolved") return withStrictNulls(root, target.pointer, value, depth + 1)
  }
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key]
    if (!Array.isArray(branches)) continue
    const i = branches.findIndex((_, j) => Either.getOrUndefined(Validator.compileAt(root, `${pointer}/${key}/${j}`))?.isValid(value) === true)
    if (i >= 0) return withStrictNulls(root, `${pointer}/${key}/${i}`, value, depth + 1)
  }
  if (Array.isArray(value)) {
    return value.map((v, i) =>
      Array.isArray(schema["prefixItems"]) && i < schema["prefixItems"].length
        ? withStrictNulls(root, `${pointer}/prefixItems/${i}`, v, depth + 1)
        : isNode(schema["items"]) ? withStrictNulls(root, `${pointer}/items`, v, depth + 1) : v
    )
  }
  const props = schema["properties"]
  if (!isNode(value) || !isNode(props)) return value
  const required = Array.isArray(schema["required"]) ? schema["required"] : []
  const out: Record<string, JsonValue> = {}
  for (const k of Object.keys(value)) out[k] = value[k]!
  for (const k of Object.keys(props)) {
    const at = JsonSchema.Pointer.append(`${pointer}/properties`, k)
    if (Object.prototype.hasOwnProperty.call(value, k)) out[k] = withStrictNulls(root, at, value[k]!, depth + 1)
    else if (!required.includes(k)) out[k] = null
  }
  return out
}

describe("openAiStrict on the corpus (tools.jsonl, after JsonSchema.upgrade)", () => {
  const strict = tools.filter((t) => t.result.strict)

  it("pins how many tools became strict and why the others fell open", () => {
    assert.strictEqual(tools.length, 8031)
    assert.strictEqual(strict.length, 7783)
    assert.deepStrictEqual(tally(tools.filter((t) => !t.result.strict).map((t) => kind(t.result.changes[0]!.change))), {
      // `{}` after upgrade read BFCL's `any` as "any value", and bare `{ description }` nodes
      "has no `…`, `…` or `…` once unsupported keywords are removed, so strict mode cannot describe it": 120,
      // nested `{ type: "object" }` with no properties (BFCL "dict" of anything)
      "is a free-form object (no `…`); strict mode would close it to `…` and the model could send nothing in it": 55,
      // Notion's `additionalProperties: true`, MCP maps (`additionalProperties: { … }`)
      "accepts undeclared keys (`…`); strict mode would close the object and the model could no longer send them": 69,
      "is an array without `…`: strict mode needs the item type": 4
    })
  })

  it("every strict result keeps OpenAI's published rules and compiles; every fall-back is the original", () => {
    const broken = strict.flatMap((t) => checkOpenAiStrict(t.result.schema as JsonValue).map((v) => `${t.tool.name} ${v.path}: ${v.rule}`))
    assert.deepStrictEqual(broken.slice(0, 5), [])
    assert.deepStrictEqual(strict.filter((t) => Either.isLeft(Validator.compile(t.result.schema))).map((t) => t.tool.name), [])
    for (const t of tools) if (!t.result.strict) assert.strictEqual(t.result.schema, t.original)
  }, 120_000)

  it("pins the changes by kind", () => {
    assert.deepStrictEqual(tally(strict.flatMap((t) => t.result.changes.map((c) => rule(c.change)))), {
      "object closed": 7628,
      "optional: required, wrapped nullable": 9131,
      "optional: required, null branch appended": 19,
      "optional: required, already nullable": 184,
      "default moved into description": 5072,
      "removed default": 359,
      "const became enum": 104,
      "oneOf became anyOf": 2,
      "$ref re-aimed at its moved target": 141,
      "removed $schema": 505,
      "removed title": 799,
      "removed minimum": 201,
      "removed maximum": 133,
      "removed exclusiveMinimum": 16,
      "removed exclusiveMaximum": 2,
      "removed minLength": 136,
      "removed maxLength": 92,
      "removed minItems": 39,
      "removed maxItems": 8,
      "removed pattern": 55,
      "removed format": 30,
      // Notion's nine definitions no `$ref` reaches, in each of the 13 tools that are strict once they go
      "unused definition removed": 117
    })
  })

  it("round trip: what a strict model sends for a valid example is strict-valid and prepares back to the example", () => {
    const counts = { examples: 0, validOriginal: 0, nullsAdded: 0, strictAccepts: 0, preparedBack: 0, nullKept: 0 }
    const rejected: Array<string> = []
    for (const t of strict) {
      const original = Either.getOrThrow(Validator.compile(t.original))
      const strictValidator = Either.getOrThrow(Validator.compile(t.result.schema))
      for (const example of t.tool.examples) {
        counts.examples++
        if (!original.isValid(example)) continue
        counts.validOriginal++
        const sent = withStrictNulls(t.original, "", example)
        if (JSON.stringify(sent) !== JSON.stringify(example)) counts.nullsAdded++
        if (!strictValidator.isValid(sent)) {
          rejected.push(`${t.tool.source}/${t.tool.name}: ${strictValidator.validate(sent)[0]?.message}`)
          continue
        }
        counts.strictAccepts++
        const back = Arguments.prepare(t.original, sent, { fromStrictProvider: true })
        const expected = Arguments.prepare(t.original, example)
        assert.strictEqual(back._tag, "Valid")
        if (back._tag === "Valid" && expected._tag === "Valid") {
          if (JSON.stringify(back.value) === JSON.stringify(expected.value)) counts.preparedBack++
          else counts.nullKept++
        }
      }
    }
    // Examples that send keys their (implicitly open) object does not declare: a strict model, writing
    // into the closed object, could not produce them. The contract closes such objects; these are the cost.
    assert.deepStrictEqual(rejected, [
      "bfcl:live_multiple/sendHttpRequest: Unknown argument `data.name`; allowed: param1, param2.",
      "bfcl:live_multiple/Trains_1_FindTrains: Unknown argument `journey_start_time`; allowed: _from, to, date_of_journey, _class, number_of_adults.",
      "bfcl:parallel_multiple/calculate_voltage_difference: Unknown argument `permeability`; allowed: electric_field, distance, charge.",
      "bfcl:parallel_multiple/bank.calculate_balance: Unknown argument `type`; allowed: account, transactions, starting_balance.",
      "api-bank/CancelTimedSwitch: Unknown argument `device_id`; allowed: name, time."
    ])
    assert.deepStrictEqual(counts, { examples: 4456, validOriginal: 4236, nullsAdded: 166, strictAccepts: 4231, preparedBack: 4231, nullKept: 0 })
  }, 120_000)
})

/**
 * `Arguments.prepare`'s promises over real schemas, not a handful: every corpus tool with examples that
 * compiles (2,376 of the 8,031), each call one of its examples bent
 * the way models bend arguments (scalars as strings, enum case, nulls, blanks, wrapped or stringified values,
 * dropped and extra keys, `__proto__`), or any JSON value at all, under each policy. Whatever comes back
 * `Valid` is JSON that the tool's validator and a stock Ajv both accept, and preparing it again changes
 * nothing; `raw` is never changed and nothing throws.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Ajv } from "ajv"
import { Arguments, JsonSchema, JsonValue, Validator } from "@toolgate/json-schema"
import { tools as loadTools } from "./suite.js"

// Stock Ajv with formats unchecked: it may accept more than the tool's validator, never less, on JSON it accepts
const stock = { "2020-12": new Ajv2020({ strict: false, logger: false }), "draft-07": new Ajv({ strict: false, logger: false }) }

interface Case {
  readonly schema: JsonSchema.JsonSchema
  readonly isValid: (u: unknown) => boolean
  readonly stock: (u: unknown) => boolean
  readonly examples: ReadonlyArray<unknown>
}

const cases: ReadonlyArray<Case> = loadTools().flatMap((t): Array<Case> => {
  if (t.examples.length === 0 || !JsonSchema.isSchema(t.parameters)) return []
  const { schema } = JsonSchema.upgrade(t.parameters)
  const compiled = Validator.compile(schema)
  if (Either.isLeft(compiled)) return []
  try {
    const other = stock[JsonSchema.dialect(schema)].compile(schema as object)
    return [{ schema, isValid: compiled.right.isValid, stock: (u) => other(u) as boolean, examples: t.examples }]
  } catch {
    return [] // a schema stock Ajv cannot compile (toolgate's own compile copes with more)
  }
})

/** `v` as a sloppy model might write it (often unchanged). */
const bent = (v: unknown, depth: number): fc.Arbitrary<unknown> => {
  const as = <A>(...xs: ReadonlyArray<A>) => xs.map((x) => fc.constant(x))
  if (typeof v === "number") return fc.oneof(...as<unknown>(v, v, String(v), null, [v], ""))
  if (typeof v === "boolean") return fc.oneof(...as<unknown>(v, v, String(v), v ? "TRUE" : "no", null))
  if (typeof v === "string") return fc.oneof(...as<unknown>(v, v, v.toUpperCase(), "", " ", null, [v], JSON.stringify(v), Number(v)))
  if (Array.isArray(v)) {
    if (depth > 4) return fc.constant(v)
    return fc.oneof(fc.tuple(...v.map((e) => bent(e, depth + 1))), ...as<unknown>(v, JSON.stringify(v), v[0] ?? null, null))
  }
  if (v !== null && typeof v === "object") {
    if (depth > 4) return fc.constant(v)
    const entries = Object.entries(v)
    const member = (k: string, e: unknown) =>
      fc.oneof(
        { weight: 6, arbitrary: bent(e, depth + 1).map((b) => [[k, b]]) },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.constantFrom([[k, null]], [[k, ""]], [[k.toUpperCase(), e]]) }
      )
    const extra = fc.option(fc.constantFrom<[string, unknown]>(["__proto__", { x: 1 }], ["constructor", "a"], ["extra", {}], ["toString", null]), { freq: 5 })
    const object = fc.tuple(fc.tuple(...entries.map(([k, e]) => member(k, e))), extra).map(([members, more]) => {
      const o: Record<string, unknown> = {}
      for (const [k, e] of [...members.flat(), ...(more === null ? [] : [more])] as Array<[string, unknown]>) {
        Object.defineProperty(o, k, { value: e, enumerable: true, writable: true, configurable: true })
      }
      return o
    })
    return fc.oneof({ weight: 8, arbitrary: object }, { weight: 1, arbitrary: fc.constant(JSON.stringify(v)) }, { weight: 1, arbitrary: fc.constant([v]) })
  }
  return fc.constant(v)
}

const call = fc.integer({ min: 0, max: cases.length - 1 }).chain((i) => {
  const c = cases[i]!
  return fc.tuple(
    fc.constant(i),
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...c.examples).chain((ex) => bent(ex, 0)) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }),
    fc.constantFrom<Arguments.Options | undefined>(undefined, { policy: "strict" }, { fromStrictProvider: true }, { policy: "strict", fromStrictProvider: true })
  )
})

describe("Arguments.prepare over the corpus's schemas", () => {
  it("runs over every corpus tool with examples that compiles (2,376)", () => {
    assert.isAbove(cases.length, 2_300)
  })

  it.prop("Valid is JSON both validators accept, prepared again it stays; raw is untouched; nothing throws", [call], ([[i, raw, options]]) => {
    const c = cases[i]! // by index, so a counterexample reads short
    const before = JSON.stringify(raw)
    const r = Arguments.prepare(c.schema, raw, options)
    assert.strictEqual(JSON.stringify(raw), before, "raw was changed")
    assert.notStrictEqual(r._tag, "SchemaError")
    if (r._tag === "Invalid") {
      assert.isAbove(r.issues.length, 0)
      return
    }
    if (r._tag !== "Valid") return
    assert.isTrue(JsonValue.isJsonValue(r.value))
    assert.isTrue(c.isValid(r.value), "the tool's validator rejects a Valid value")
    assert.isTrue(c.stock(r.value), "stock Ajv rejects a Valid value")
    if (options?.policy === "strict" && options.fromStrictProvider !== true && typeof raw !== "string" && raw !== null) {
      assert.strictEqual(r.value, raw)
    }
    const again = Arguments.prepare(c.schema, r.value, options)
    assert.strictEqual(again._tag, "Valid")
    assert.isTrue(JsonValue.equals((again as Arguments.Valid).value, r.value))
    assert.strictEqual((again as Arguments.Valid).coercions.length, 0)
  }, { fastCheck: { numRuns: 3_000 } })
})

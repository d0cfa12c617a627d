/**
 * Ajv's `const`, `enum`, `uniqueItems` and `multipleOf`, replaced. Ajv compares with fast-deep-equal,
 * which calls a value's own `valueOf`/`toString` (so `{"toString": true}` makes validation throw) and
 * reads `constructor` (so two equal `{"constructor": {}}` differ), and its `uniqueItems` fast path indexes a
 * plain object by the item (`"__proto__"` twice is not a duplicate). Its `multipleOf` divides doubles
 * (`5e21` is not a multiple of 5, `19.99` not of 0.01). These definitions keep Ajv's error shapes and use
 * JSON equality and exact decimal arithmetic instead.
 *
 * @internal
 */
import { _, str } from "ajv"
import type { CodeKeywordDefinition, KeywordCxt } from "ajv"
import type { JsonValue } from "../JsonValue.js"
import { equals } from "../JsonValue.js"
import { isMultipleOf } from "./decimal.js"

/** JSON equality that never throws (any own keys, any depth). */
const jsonEqual = (a: unknown, b: unknown): boolean => a === b || equals(a as JsonValue, b as JsonValue)

/**
 * The membership test of one `enum`, its scalars in a set (a lookup, not a scan of a million values per
 * call), its objects and arrays compared by JSON equality.
 */
const inList = (list: ReadonlyArray<unknown>): (x: unknown) => boolean => {
  const scalars = new Set(list.filter((v) => typeof v !== "object" || v === null))
  const composites = list.filter((v) => typeof v === "object" && v !== null)
  return (x) => typeof x !== "object" || x === null ? scalars.has(x) : composites.some((v) => jsonEqual(x, v))
}

/** The first pair of equal items `[i, j]` (`j < i`, as Ajv reports them), or undefined. */
export const duplicate = (xs: ReadonlyArray<unknown>): readonly [number, number] | undefined => {
  const scalars = new Map<unknown, number>()
  const rest: Array<number> = []
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]
    if (typeof x !== "object" || x === null) {
      const key = x === 0 ? 0 : x
      const j = scalars.get(key)
      if (j !== undefined) return [i, j]
      scalars.set(key, i)
      continue
    }
    for (const j of rest) if (jsonEqual(xs[j], x)) return [i, j]
    rest.push(i)
  }
  return undefined
}

const fn = (cxt: KeywordCxt, f: (...args: ReadonlyArray<never>) => unknown) => cxt.gen.scopeValue("func", { ref: f })

const constKeyword: CodeKeywordDefinition = {
  keyword: "const",
  error: { message: "must be equal to constant", params: ({ schemaCode }) => _`{allowedValue: ${schemaCode}}` },
  code(cxt) {
    const { data, schema, schemaCode } = cxt
    if (typeof schema === "object" && schema !== null) cxt.fail(_`!${fn(cxt, jsonEqual)}(${data}, ${schemaCode})`)
    else cxt.fail(_`${schemaCode} !== ${data}`)
  }
}

const enumKeyword: CodeKeywordDefinition = {
  keyword: "enum",
  schemaType: "array",
  error: { message: "must be equal to one of the allowed values", params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}` },
  code(cxt) {
    if (!Array.isArray(cxt.schema) || cxt.schema.length === 0) throw new Error("enum must have non-empty array")
    cxt.fail(_`!${fn(cxt, inList(cxt.schema))}(${cxt.data})`)
  }
}

const uniqueItemsKeyword: CodeKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`
  },
  code(cxt) {
    if (cxt.schema !== true) return
    const dup = cxt.gen.const("dup", _`${fn(cxt, duplicate)}(${cxt.data})`)
    cxt.setParams({ i: _`${dup}[0]`, j: _`${dup}[1]` })
    cxt.fail(_`${dup} !== undefined`)
  }
}

const multipleOfKeyword: CodeKeywordDefinition = {
  keyword: "multipleOf",
  type: "number",
  schemaType: "number",
  error: { message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`, params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}` },
  code(cxt) {
    cxt.fail(_`!${fn(cxt, isMultipleOf)}(${cxt.data}, ${cxt.schemaCode})`)
  }
}

/** The replaced keyword definitions, in the order Ajv registers them. */
export const safeKeywords: ReadonlyArray<CodeKeywordDefinition> = [multipleOfKeyword, uniqueItemsKeyword, constKeyword, enumKeyword]

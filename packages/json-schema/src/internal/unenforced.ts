/**
 * What a schema says that its validator will not enforce: keywords the dialect's Ajv does not know
 * (misspellings, the other dialect's keywords) and formats ajv-formats does not define. Annotations,
 * vendor `x-*` keys and the corpus's `optional`/`example_value`/`example` stay silent.
 *
 * @internal
 */
import type { Dialect, JsonSchema } from "../JsonSchema.js"
import { isObject } from "../JsonValue.js"
import * as K from "./keywords.js"
import * as P from "./pointer.js"
import { numberFormats, stringFormats } from "./subschemaKeywords.js"

/** One thing the validator will not enforce: where (a pointer into the schema), what kind, and its name. */
export interface Unenforced {
  readonly path: string
  readonly kind: "keyword" | "format"
  readonly name: string
}

/** Keys Ajv reads besides the vocabulary tables (OpenAPI `nullable`, content and format-range keywords, 2019's recursion). */
const alsoKnown: ReadonlySet<string> = new Set([
  "nullable", "contentSchema", "$recursiveRef", "$recursiveAnchor", "formatMinimum", "formatMaximum",
  "formatExclusiveMinimum", "formatExclusiveMaximum", "discriminator"
])

/** Keys that are annotations by convention in real tool schemas. */
const silent: ReadonlySet<string> = new Set(["optional", "example_value", "example", "id", "$async"])

const known = (d: Dialect, k: string): boolean =>
  K.applicators[d].has(k) || K.assertions[d].has(k) || K.annotations.has(k) || K.core.has(k) || alsoKnown.has(k) ||
  (d === "2020-12" && (k === "$dynamicAnchor" || k === "$vocabulary"))

/** Everything in `schema` (read as `dialect`) that its validator will not enforce, in document order. */
export const unenforced = (schema: JsonSchema, dialect: Dialect): ReadonlyArray<Unenforced> => {
  const out: Array<Unenforced> = []
  const stack: Array<readonly [JsonSchema, string]> = [[schema, ""]]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const [s, at] = stack.pop()!
    if (!isObject(s) || seen.has(s)) continue
    seen.add(s)
    for (const k of Object.keys(s)) {
      if (k.startsWith("x-") || silent.has(k)) continue
      if (!known(dialect, k)) out.push({ path: P.append(at, k), kind: "keyword", name: k })
      const f = s[k]
      if (k === "format" && typeof f === "string" && !stringFormats.has(f) && !numberFormats.has(f)) out.push({ path: P.append(at, k), kind: "format", name: f })
    }
    const children = K.children(s)
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!.schema as JsonSchema, children[i]!.tokens.reduce(P.append, at)])
  }
  return out
}

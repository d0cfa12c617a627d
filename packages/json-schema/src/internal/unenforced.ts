/**
 * What a schema says that its validator will not enforce: keywords the dialect's Ajv does not know
 * (misspellings, with the keyword each likely misspells, and the other dialect's keywords) and formats
 * ajv-formats does not define. Annotations, vendor `x-*` keys and the corpus's `optional`/`example_value`/
 * `example` stay silent.
 *
 * @internal
 */
import type { Dialect, JsonSchema } from "../JsonSchema.js"
import { isObject } from "../JsonValue.js"
import * as K from "./keywords.js"
import * as P from "./pointer.js"
import { numberFormats, stringFormats } from "./formats.js"

/** One thing the validator will not enforce: where (a pointer into the schema), what kind, and its name. */
export interface Unenforced {
  readonly path: string
  readonly kind: "keyword" | "format"
  readonly name: string
  /** For a keyword: the enforced keyword it is most likely a misspelling of (`propertes` → `properties`), if any. */
  readonly likely?: string
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

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), given up past `max`. */
const distance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev2: Array<number> = [], prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1)
      row.push(d)
    }
    prev2 = prev
    prev = row
  }
  return prev[b.length]!
}

/** How many edits a misspelling of a keyword of this length may hold. */
const editsFor = (keyword: string): number => keyword.length <= 5 ? 1 : keyword.length <= 12 ? 2 : 3

const commonPrefix = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/**
 * The keyword that changes what validates (an applicator, an assertion or a core keyword of the dialect)
 * that `name` most likely misspells: the same letters in another case, or a few edits away (one for a
 * keyword of up to five letters, two up to twelve, three beyond); the longer shared start breaks a tie.
 * Names of fewer than four letters are left alone (`if`, `not` and `id` are a letter apart from much).
 */
const likelyKeyword = (d: Dialect, name: string): string | undefined => {
  if (name.length < 4 || name.length > 64) return undefined
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestScore: readonly [number, number] = [Infinity, 0]
  for (const k of [...K.core, ...K.applicators[d], ...K.assertions[d]]) {
    const kl = k.toLowerCase()
    const dist = distance(lower, kl, editsFor(k))
    if (dist > editsFor(k)) continue
    const prefix = commonPrefix(lower, kl)
    if (dist < bestScore[0] || (dist === bestScore[0] && prefix > bestScore[1])) (best = k, bestScore = [dist, prefix])
  }
  return best
}

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
      if (!known(dialect, k)) {
        const likely = likelyKeyword(dialect, k)
        out.push({ path: P.append(at, k), kind: "keyword", name: k, ...(likely === undefined ? {} : { likely }) })
      }
      const f = s[k]
      if (k === "format" && typeof f === "string" && !stringFormats.has(f) && !numberFormats.has(f)) out.push({ path: P.append(at, k), kind: "format", name: f })
    }
    const children = K.children(s)
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!.schema as JsonSchema, children[i]!.tokens.reduce(P.append, at)])
  }
  return out
}

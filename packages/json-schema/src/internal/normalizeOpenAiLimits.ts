/**
 * OpenAI's published size limits for a strict schema, and the check that every `$ref` still resolves in
 * the rewritten schema. A strict schema that breaks either is never sent: the transform fails open.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import type { JsonObject, JsonValue } from "../JsonValue.js"
import { resolveRef } from "./resolve.js"
import { hasType, isObject, NotStrict, own } from "./normalizeOpenAiNode.js"

/** OpenAI's published limits for strict schemas (Structured Outputs, "supported schemas"). */
export const limits = {
  /** object properties in the whole schema */
  properties: 5000,
  /** levels of object nesting (the root object is level 1) */
  nesting: 10,
  /** enum values in the whole schema */
  enumValues: 1000,
  /** characters of all property names, definition names and enum values together */
  stringLength: 120_000,
  /** an enum with more string values than this … */
  longEnum: 250,
  /** … may hold at most this many characters of them */
  longEnumLength: 15_000
} as const

interface Tally {
  properties: number
  enumValues: number
  stringLength: number
}

/** The first limit a strict schema breaks, or `undefined` when it keeps them all (and its `$ref`s resolve). */
export const check = (root: JsonObject): NotStrict | undefined => {
  const tally: Tally = { properties: 0, enumValues: 0, stringLength: 0 }
  const stack: Array<{ readonly node: JsonValue; readonly level: number }> = [{ node: root, level: 0 }]
  while (stack.length > 0) {
    const { level, node } = stack.pop()!
    if (!isObject(node)) continue
    const here = hasType(node, "object") ? level + 1 : level
    if (here > limits.nesting) return new NotStrict("", `nests objects ${here} levels deep (OpenAI allows ${limits.nesting})`)
    const broken = count(node, tally) ?? unresolved(root, node)
    if (broken !== undefined) return broken
    for (const child of children(node)) stack.push({ node: child, level: here })
  }
  return undefined
}

const count = (node: JsonObject, tally: Tally): NotStrict | undefined => {
  const props = own(node, "properties")
  if (isObject(props)) {
    const names = Object.keys(props)
    tally.properties += names.length
    for (const n of names) tally.stringLength += n.length
  }
  for (const key of ["$defs", "definitions"]) {
    const defs = own(node, key)
    if (isObject(defs)) for (const n of Object.keys(defs)) tally.stringLength += n.length
  }
  const values = own(node, "enum")
  if (Array.isArray(values)) {
    tally.enumValues += values.length
    let strings = 0
    let length = 0
    for (const v of values) {
      if (typeof v !== "string") continue
      strings++
      length += v.length
    }
    tally.stringLength += length
    if (strings > limits.longEnum && length > limits.longEnumLength) {
      return new NotStrict("", `has an enum of ${strings} strings totalling ${length} characters (OpenAI allows ${limits.longEnumLength} past ${limits.longEnum} values)`)
    }
  }
  if (tally.properties > limits.properties) return new NotStrict("", `has more than ${limits.properties} properties in all`)
  if (tally.enumValues > limits.enumValues) return new NotStrict("", `has more than ${limits.enumValues} enum values in all`)
  if (tally.stringLength > limits.stringLength) {
    return new NotStrict("", `has more than ${limits.stringLength} characters of property names, definition names and enum values`)
  }
  return undefined
}

const unresolved = (root: JsonSchema, node: JsonObject): NotStrict | undefined => {
  const ref = own(node, "$ref")
  if (ref === undefined) return undefined
  if (typeof ref === "string" && resolveRef(root, ref)._tag === "Resolved") return undefined
  return new NotStrict("", `has a \`$ref\` ${JSON.stringify(ref)} that does not resolve inside the strict schema`)
}

const children = (node: JsonObject): Array<JsonValue> => {
  const out: Array<JsonValue> = []
  for (const key of ["properties", "$defs", "definitions"]) {
    const map = own(node, key)
    if (isObject(map)) for (const k of Object.keys(map)) out.push(map[k]!)
  }
  for (const key of ["anyOf", "prefixItems", "items", "additionalItems"]) {
    const v = own(node, key)
    if (Array.isArray(v)) for (const x of v) out.push(x)
    else if (v !== undefined) out.push(v)
  }
  return out
}

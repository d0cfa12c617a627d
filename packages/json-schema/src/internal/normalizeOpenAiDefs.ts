/**
 * Unused definitions out of the way of OpenAI strict mode: a root `$defs`/`definitions` entry that no
 * `$ref` reaches (from the schema's body, or from an entry that is reached, transitively) validates
 * nothing, yet one strict mode cannot describe would turn strict mode off for the whole tool. Only plain
 * local pointers are followed; a schema with any other kind of reference (an anchor, a dynamic reference,
 * an embedded `$id`) keeps every entry.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import type { JsonValue } from "../JsonValue.js"
import { type Changes, isObject, own } from "./normalizeOpenAiNode.js"
import { append, parse } from "./pointer.js"

const containers = ["$defs", "definitions"] as const

/** The schema without the root definitions no `$ref` reaches (a shallow copy when one goes), each removal reported. */
export const dropUnused = (schema: JsonSchema, changes: Changes): JsonSchema => {
  if (!isObject(schema) || containers.every((k) => !isObject(own(schema, k)))) return schema
  const used = new Set<string>()
  const pending: Array<JsonValue> = []
  const reach = (ref: string): boolean => {
    if (ref === "#" || (ref.startsWith("#/") && !containers.some((k) => ref.startsWith(`#/${k}/`)))) return true
    const tokens = parse(ref)
    const map = tokens[0] === undefined ? undefined : own(schema, tokens[0])
    if (tokens.length < 2 || !isObject(map) || !Object.prototype.hasOwnProperty.call(map, tokens[1]!)) return false
    const key = `${tokens[0]}/${tokens[1]}`
    if (!used.has(key)) {
      used.add(key)
      pending.push(map[tokens[1]!]!)
    }
    return true
  }
  for (const k of Object.keys(schema)) if (!containers.some((c) => c === k)) pending.push(schema[k]!)
  while (pending.length > 0) {
    const v = pending.pop()!
    if (Array.isArray(v)) {
      for (const x of v) pending.push(x)
      continue
    }
    if (!isObject(v)) continue
    for (const k of ["$dynamicRef", "$recursiveRef", "$id", "id", "$anchor"]) if (typeof own(v, k) === "string") return schema
    const ref = own(v, "$ref")
    if (typeof ref === "string" && !reach(ref)) return schema
    for (const k of Object.keys(v)) if (k !== "$ref") pending.push(v[k]!)
  }
  const out: Record<string, JsonValue> = { ...schema }
  for (const c of containers) {
    const map = own(schema, c)
    if (!isObject(map)) continue
    const kept: Record<string, JsonValue> = {}
    for (const name of Object.keys(map)) {
      if (used.has(`${c}/${name}`)) kept[name] = map[name]!
      else changes.push({ path: append(append("", c), name), change: `\`${c}/${name}\` removed: no \`$ref\` reaches it` })
    }
    if (Object.keys(kept).length > 0) out[c] = kept
    else delete out[c]
  }
  return out
}

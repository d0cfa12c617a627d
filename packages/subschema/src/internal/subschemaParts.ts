/**
 * Where a property or an array element is governed, on either side: `properties` with the matching
 * `patternProperties`, else `additionalProperties`; tuple positions (`prefixItems`, or draft-07 array
 * `items`) else the rest (`items`, or draft-07 `additionalItems`).
 *
 * @internal
 */
import type { Dialect } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { isObject } from "@toolgate/json-schema/JsonValue"
import type { Node } from "./subschemaModel.js"
import { child, isSchemaValue, kw, regex } from "./subschemaModel.js"

const own = (o: JsonValue | undefined, k: string): JsonValue | undefined =>
  isObject(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined

/** The nodes governing property `key` under one node; `"invalid"` when a `patternProperties` regex does not compile. */
export const forKey = (n: Node, key: string): ReadonlyArray<Node> | "invalid" => {
  const out: Array<Node> = []
  const p = own(kw(n, "properties"), key)
  if (isSchemaValue(p)) out.push(child(n, p, "properties", key))
  const pats = kw(n, "patternProperties")
  if (isObject(pats)) {
    for (const source of Object.keys(pats)) {
      const s = pats[source]
      if (!isSchemaValue(s)) continue
      const r = regex(source)
      if (r === undefined) return "invalid"
      if (r.test(key)) out.push(child(n, s, "patternProperties", source))
    }
  }
  if (out.length > 0 || p !== undefined) return out
  const ap = kw(n, "additionalProperties")
  return isSchemaValue(ap) ? [child(n, ap, "additionalProperties")] : []
}

/** Whether a node declares `key` by name in `properties`. */
export const declares = (n: Node, key: string): boolean => own(kw(n, "properties"), key) !== undefined

/** The property names a node names in `properties`. */
export const named = (n: Node): ReadonlyArray<string> => {
  const p = kw(n, "properties")
  return isObject(p) ? Object.keys(p) : []
}

/** The `patternProperties` sources of a node. */
export const patterns = (n: Node): ReadonlyArray<string> => {
  const p = kw(n, "patternProperties")
  return isObject(p) ? Object.keys(p) : []
}

/** The tuple part of a node's array keywords, for its dialect (`undefined` entries are non-schemas). */
export const tuple = (n: Node, dialect: Dialect): ReadonlyArray<JsonValue> => {
  const v = kw(n, dialect === "2020-12" ? "prefixItems" : "items")
  return Array.isArray(v) ? v : []
}

/** The node governing element `i` under one node, or undefined when nothing does. */
export const forIndex = (n: Node, i: number, dialect: Dialect): Node | undefined => {
  const t = tuple(n, dialect)
  const tupleKey = dialect === "2020-12" ? "prefixItems" : "items"
  if (i < t.length) {
    const s = t[i]
    return isSchemaValue(s) ? child(n, s, tupleKey, i) : undefined
  }
  return rest(n, dialect)
}

/** The node governing the elements after the tuple part. */
export const rest = (n: Node, dialect: Dialect): Node | undefined => {
  const items = kw(n, "items")
  if (dialect === "2020-12" || !Array.isArray(items)) {
    return isSchemaValue(items) ? child(n, items, "items") : undefined
  }
  const more = kw(n, "additionalItems")
  return isSchemaValue(more) ? child(n, more, "additionalItems") : undefined
}

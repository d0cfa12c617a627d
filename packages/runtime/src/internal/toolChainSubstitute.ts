/**
 * Putting resolved values where the refs stood. The arguments are never mutated: only the objects and
 * arrays on the way from the root to a ref are copied (every other part is shared, unchanged), objects
 * are rebuilt with `JsonValue.fromEntries` so a `__proto__` key stays an own property, and the work is a
 * loop over the positions, so a ref 10,000 levels deep costs no stack.
 *
 * @internal
 */
import { JsonSchema, JsonValue as J } from "@toolgate/json-schema"

/** A value to put at a JSON pointer into the arguments (`""` = the whole arguments). */
export interface Replacement {
  readonly path: string
  readonly value: J.JsonValue
}

/** A position on the way to one or more replacements. */
interface Node {
  readonly children: Map<string, Node>
  replacement: { readonly value: J.JsonValue } | undefined
}

const node = (): Node => ({ children: new Map(), replacement: undefined })

/** The positions of all replacements as one tree; the first replacement of a position wins. */
const treeOf = (replacements: ReadonlyArray<Replacement>): Node => {
  const root = node()
  for (const r of replacements) {
    let cur = root
    for (const token of JsonSchema.Pointer.parse(r.path)) {
      let next = cur.children.get(token)
      if (next === undefined) {
        next = node()
        cur.children.set(token, next)
      }
      cur = next
    }
    cur.replacement ??= { value: r.value }
  }
  return root
}

const indexPattern = /^(0|[1-9][0-9]*)$/

/** An own data property of a JSON object, or an item of an array; `undefined` for anything else (an array's `length`). */
const childOf = (u: J.JsonValue | undefined, token: string): J.JsonValue | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  if (Array.isArray(u) && !(indexPattern.test(token) && Number(token) < u.length)) return undefined
  const d = Object.getOwnPropertyDescriptor(u, token)
  return d !== undefined && "value" in d ? d.value as J.JsonValue : undefined
}

/** `original` with some members swapped: a new array or object, the other members shared. */
const rebuild = (original: J.JsonValue | undefined, swapped: ReadonlyMap<string, J.JsonValue>): J.JsonValue | undefined => {
  if (Array.isArray(original)) {
    const copy: Array<J.JsonValue> = original.slice()
    for (const [token, value] of swapped) copy[Number(token)] = value
    return copy
  }
  if (typeof original !== "object" || original === null) return original
  return J.fromEntries(Object.keys(original).map((k) => [k, swapped.has(k) ? swapped.get(k)! : (original as J.JsonObject)[k]!]))
}

interface Visit {
  readonly node: Node
  readonly original: J.JsonValue | undefined
  readonly parent: Visit | undefined
  readonly token: string
  readonly swapped: Map<string, J.JsonValue>
}

/**
 * `value` with each replacement put at its pointer. A pointer that does not lead to a member of
 * `value` (not one `RefAware.refs` would list) is left out.
 */
export const substitute = (value: J.JsonValue, replacements: ReadonlyArray<Replacement>): J.JsonValue => {
  const root: Visit = { node: treeOf(replacements), original: value, parent: undefined, token: "", swapped: new Map() }
  // pre-order list of the visited positions; walked backwards, every child is done before its parent
  const order: Array<Visit> = []
  const stack: Array<Visit> = [root]
  while (stack.length > 0) {
    const v = stack.pop()!
    order.push(v)
    if (v.node.replacement !== undefined) continue
    for (const [token, child] of v.node.children) {
      const original = childOf(v.original, token)
      if (original !== undefined) stack.push({ node: child, original, parent: v, token, swapped: new Map() })
    }
  }
  let result: J.JsonValue = value
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i]!
    const done = v.node.replacement !== undefined
      ? v.node.replacement.value
      : v.swapped.size === 0
      ? v.original
      : rebuild(v.original, v.swapped)
    if (done === undefined) continue
    if (v.parent === undefined) result = done
    else if (done !== v.original) v.parent.swapped.set(v.token, done)
  }
  return result
}

/**
 * `widen`: an iterative post-order rewrite (no recursion, so 10,000-level nesting is fine) that lets every
 * value position also accept a sentinel ref. Unchanged subtrees are shared with the input, which is never
 * mutated; the ref schema itself is one frozen object shared by every position. Local `$ref` pointers that
 * pass through a wrapped position are re-pointed, so they still name the same subschema.
 *
 * @internal
 */
import type { JsonSchema, JsonSchemaObject } from "../JsonSchema.js"
import { define, isPlain, isRefSchema, type Mode, type Obj, type Slot, slotsOf, translate, wrapNode } from "./refAwareSlots.js"

export { isRefSchema, refSchema } from "./refAwareSlots.js"

const copy = (o: Obj): Obj => {
  const out: Obj = {}
  for (const key of Object.keys(o)) define(out, key, o[key])
  return out
}

/** A copy of `node` with the rewritten slots put in (containers copied, never written through). */
const rebuild = (node: Obj, slots: ReadonlyArray<Slot>, results: ReadonlyArray<Obj>, ref: string | undefined): Obj => {
  const out = copy(node)
  if (ref !== undefined) define(out, "$ref", ref)
  const copied = new Map<string, Obj | Array<unknown>>()
  for (let j = 0; j < slots.length; j++) {
    const s = slots[j]!
    const r = results[j]!
    if (r === s.value) continue
    if (s.sub === undefined) {
      define(out, s.key, r)
      continue
    }
    let c = copied.get(s.key)
    if (c === undefined) {
      const orig = node[s.key]
      c = Array.isArray(orig) ? [...orig] : copy(orig as Obj)
      copied.set(s.key, c)
      define(out, s.key, c)
    }
    if (Array.isArray(c)) c[Number(s.sub)] = r
    else define(c, s.sub, r)
  }
  return out
}

interface Frame {
  readonly node: Obj
  readonly mode: Mode
  readonly owned: boolean
  readonly slots: Array<Slot>
  readonly results: Array<Obj>
}

const frame = (node: Obj, mode: Mode, active: Set<Obj>): Frame => {
  // a node already on the path is a cycle (only a hostile, non-JSON input has one): it is left as it is
  const owned = !active.has(node)
  const leaf = !owned || isRefSchema(node)
  active.add(node)
  return { node, mode: leaf ? "keep" : mode, owned, slots: leaf ? [] : slotsOf(node, mode), results: [] }
}

/** The node a finished frame becomes: rebuilt if a slot or its `$ref` changed, wrapped at a value position. */
const finish = (root: Obj, f: Frame): Obj => {
  const ref = typeof f.node["$ref"] === "string" ? translate(root, f.node["$ref"]) : undefined
  let changed = ref !== undefined
  for (let j = 0; j < f.slots.length && !changed; j++) changed = f.results[j] !== f.slots[j]!.value
  const body = changed ? rebuild(f.node, f.slots, f.results, ref) : f.node
  return f.mode === "wrap" ? wrapNode(body) : body
}

/** Widens a schema; see `RefAware.widen`. Throws only on an unreadable (hostile) object. */
export const widenUnsafe = (schema: JsonSchema): JsonSchema => {
  if (!isPlain(schema)) return schema
  const active = new Set<Obj>()
  const stack: Array<Frame> = [frame(schema, "same", active)]
  for (;;) {
    const f = stack[stack.length - 1]!
    const next = f.slots[f.results.length]
    if (next !== undefined) {
      stack.push(frame(next.value, next.mode, active))
      continue
    }
    stack.pop()
    if (f.owned) active.delete(f.node)
    const out = finish(schema, f)
    const parent = stack[stack.length - 1]
    if (parent === undefined) return out as JsonSchemaObject
    parent.results.push(out)
  }
}

/**
 * Equality modulo annotations: a cloud subschema and a local one that differ only in annotations
 * (`description`, `title`, `examples`, …), in `$defs` no reference reaches, in a reference where the other
 * side has its target inline, or in `const: c` against `enum: [c]` accept the same values. This proves a
 * schema against itself once anything else changed, whatever its `oneOf` branches share (the keyword
 * checks cannot prove overlapping branches), and the MCP pass's output against its input.
 *
 * References are followed on each side against its own root; a pair met again on the current path holds
 * only when a property or item lies between (a bisimulation, sound because each such cycle consumes part
 * of the instance). Every other keyword must be present on both sides with equal values (a set for `enum`,
 * `required` and `type`). Embedded resources and dynamic references are never equal. The work is bounded
 * by a step count per check; running out only means "not shown equal".
 *
 * @internal
 */
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import * as JsonSchemaNs from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals, isObject } from "@toolgate/json-schema/JsonValue"
import type { Ctx, Node } from "./subschemaModel.js"

const { annotations, schemaArray, schemaMap, singleSchema } = JsonSchemaNs.Keywords

/** Steps one check may spend on equality, apart from the prover's budget (most pairs differ at once). */
export const SAME_STEPS = 50_000

/** Keywords whose meaning depends on where the schema sits: a subtree holding one is never shown equal. */
const located: ReadonlySet<string> = new Set(["$id", "id", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"])

/** Keywords that move to a part of the instance: a cycle through one of them is guarded. */
const descending: ReadonlySet<string> = new Set([
  "properties", "patternProperties", "additionalProperties", "items", "prefixItems", "additionalItems", "contains",
  "propertyNames", "unevaluatedItems", "unevaluatedProperties"
])

/** Keywords compared as sets of values. */
const asSet: ReadonlySet<string> = new Set(["enum", "required"])

const MAX_UNFOLD = 32

type Obj = { readonly [k: string]: JsonValue }

interface Walk {
  readonly ctx: Ctx
  steps: number
  /** Pairs on the current path (by object identity: a schema means the same wherever it sits, with no `$id`), with the guard when each was entered. */
  readonly open: Map<object, Map<object, number>>
  guard: number
}

/** Pairs shown to differ in this check, and the equality steps left. */
export interface Known {
  steps: number
  readonly differ: WeakMap<object, WeakSet<object>>
}

/** Whether the local node accepts exactly what one of the cloud nodes accepts (so the conjunction is inside it). */
export const sameAsOne = (ctx: Ctx, view: ReadonlyArray<Node>, local: Node): boolean => {
  if (ctx.swapped === true || ctx.cloudDialect !== ctx.localDialect || (local.skip?.size ?? 0) > 0 || !isObject(local.schema)) return false
  for (const n of view) {
    if (n.ptr === undefined || (n.skip?.size ?? 0) > 0 || n.standIn === true || !isObject(n.schema)) continue
    if (same(ctx, n.schema, local.schema)) return true
  }
  return false
}

const same = (ctx: Ctx, cloud: Obj, local: Obj): boolean => {
  const known = (ctx.same ??= { steps: SAME_STEPS, differ: new WeakMap() })
  if (known.differ.get(cloud)?.has(local) === true || known.steps <= 0) return false
  const w: Walk = { ctx, steps: known.steps, open: new Map(), guard: 0 }
  const r = pair(w, cloud, local)
  known.steps = Math.max(0, w.steps)
  return r
}

/** The schema a pure reference (nothing beside it but annotations and `$defs`) stands for. */
const unfold = (root: JsonSchema, s: JsonSchema): JsonSchema | undefined => {
  for (let i = 0; i < MAX_UNFOLD; i++) {
    if (!isObject(s)) return s
    const keys = meaningful(s)
    if (keys.length !== 1 || keys[0] !== "$ref") return s
    const r = resolve(root, s["$ref"]!)
    if (r === undefined) return undefined
    s = r
  }
  return undefined
}

const resolve = (root: JsonSchema, ref: JsonValue): JsonSchema | undefined => {
  if (typeof ref !== "string") return undefined
  const r = JsonSchemaNs.resolveRef(root, ref)
  return r._tag === "Unresolvable" ? undefined : r.schema
}

/** The keys that bear on validation. */
const meaningful = (s: Obj): ReadonlyArray<string> =>
  Object.keys(s).filter((k) => !annotations.has(k) && k !== "$defs" && k !== "definitions")

const pair = (w: Walk, c0: JsonSchema, l0: JsonSchema): boolean => {
  if (--w.steps < 0) return false
  const c = unfold(w.ctx.cloudRoot, c0), l = unfold(w.ctx.localRoot, l0)
  if (c === undefined || l === undefined) return false
  const ct = c === true || (isObject(c) && meaningful(c).length === 0)
  const lt = l === true || (isObject(l) && meaningful(l).length === 0)
  if (ct || lt || typeof c === "boolean" || typeof l === "boolean") return ct === lt && (ct || c === l)
  const differ = w.ctx.same!.differ
  if (differ.get(c)?.has(l) === true) return false
  let inner = w.open.get(c)
  const entered = inner?.get(l)
  if (entered !== undefined) return w.guard > entered
  if (inner === undefined) w.open.set(c, inner = new Map())
  inner.set(l, w.guard)
  let r = false
  try {
    r = objects(w, c as Obj, l as Obj)
  } finally {
    inner.delete(l)
  }
  // a difference holds whatever was assumed on the way (assumptions only ever make pairs equal)
  if (!r && w.steps >= 0) {
    let set = differ.get(c)
    if (set === undefined) differ.set(c, set = new WeakSet())
    set.add(l)
  }
  return r
}

/** `const: c` read as `enum: [c]` (the MCP pass writes one for the other). */
const normal = (s: Obj): Map<string, JsonValue> => {
  const m = new Map<string, JsonValue>()
  for (const k of meaningful(s)) m.set(k, s[k]!)
  if (m.has("const") && !m.has("enum")) {
    m.set("enum", [m.get("const")!])
    m.delete("const")
  }
  return m
}

const objects = (w: Walk, c: Obj, l: Obj): boolean => {
  const cm = normal(c), lm = normal(l)
  if (cm.size !== lm.size) return false
  for (const [k, cv] of cm) {
    const lv = lm.get(k)
    if (lv === undefined || located.has(k)) return false
    if (!keyword(w, k, cv, lv)) return false
  }
  return true
}

const isSchema = (v: JsonValue): v is JsonSchema => typeof v === "boolean" || isObject(v)

const keyword = (w: Walk, k: string, cv: JsonValue, lv: JsonValue): boolean => {
  const sub = (a: JsonValue, b: JsonValue): boolean => {
    if (!isSchema(a) || !isSchema(b)) return equals(a, b)
    const down = descending.has(k)
    if (down) w.guard++
    try {
      return pair(w, a, b)
    } finally {
      if (down) w.guard--
    }
  }
  if (k === "$ref") {
    // a reference beside other keywords: its two targets, each against its own root
    const c = resolve(w.ctx.cloudRoot, cv), l = resolve(w.ctx.localRoot, lv)
    return c !== undefined && l !== undefined && pair(w, c, l)
  }
  if (singleSchema.has(k) || (k === "items" && !Array.isArray(cv))) return sub(cv, lv)
  if (schemaArray.has(k) || k === "items") {
    if (!Array.isArray(cv) || !Array.isArray(lv) || cv.length !== lv.length) return false
    return cv.every((x, i) => sub(x, lv[i]!))
  }
  if (schemaMap.has(k) || k === "dependencies") {
    if (!isObject(cv) || !isObject(lv)) return equals(cv, lv)
    const names = Object.keys(cv)
    if (names.length !== Object.keys(lv).length) return false
    return names.every((n) => Object.prototype.hasOwnProperty.call(lv, n) && sub(cv[n]!, lv[n]!))
  }
  if (asSet.has(k) || (k === "type" && Array.isArray(cv) && Array.isArray(lv))) return sameSet(cv, lv)
  return equals(cv, lv)
}

/** Two arrays holding the same values, in any order. */
const sameSet = (a: JsonValue, b: JsonValue): boolean => {
  if (!Array.isArray(a) || !Array.isArray(b)) return equals(a, b)
  return a.every((x) => b.some((y) => equals(x, y))) && b.every((y) => a.some((x) => equals(x, y)))
}

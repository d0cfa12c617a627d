/**
 * Local combinators: `allOf` (each branch), `anyOf` (a branch for the whole cloud, else one per cloud
 * type, numeric branches merged as a union of intervals; `X` next to `not: X` is everything), `oneOf`
 * (as `anyOf` once its branches are proven disjoint by type or by a required `const`/`enum`
 * discriminator), `not` (when disjoint by type), `if`/`then`/`else`.
 *
 * @internal
 */
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals, isObject } from "@toolgate/json-schema/JsonValue"
import { essence, follow, same } from "./subschemaCloud.js"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { all, child, cloudAt, counter, isSchemaValue, kw, proven, sameText, strings, unknown, where } from "./subschemaModel.js"
import type { Prove } from "./subschemaObjects.js"
import type { Base } from "./subschemaTypes.js"
import { declaredTypes, isNumeric, typesOf } from "./subschemaTypes.js"
import { coveredByUnion } from "./subschemaNumbers.js"
import { inert } from "./subschemaKeywords.js"
import { sample } from "./subschemaWitness.js"

const branches = (local: Node, key: string): ReadonlyArray<Node> | undefined => {
  const v = kw(local, key)
  if (!Array.isArray(v) || v.length === 0 || !v.every(isSchemaValue)) return undefined
  return v.map((s, i) => child(local, s as JsonSchema, key, i))
}

/** Each `allOf` branch is an obligation of its own. */
export const allOf = (local: Node, nodes: ReadonlyArray<Node>, prove: Prove): Outcome => {
  const bs = branches(local, "allOf")
  if (bs === undefined) return unknown("allOf", where(local, "allOf"))
  return all(bs.map((b) => () => prove(nodes, b)))
}

const typeName: Readonly<Record<Base, string>> = {
  null: "null", boolean: "boolean", integer: "integer", fraction: "number", string: "string", array: "array", object: "object"
}

/** A local disjunction: one branch proves the whole cloud, or each cloud type is proven by some branch. */
export const anyOf = (ctx: Ctx, local: Node, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, prove: Prove, key = "anyOf"): Outcome => {
  const bs = branches(local, key)
  if (bs === undefined) return unknown(key, where(local, key))
  const essences = bs.map((b) => essence(ctx.localRoot, b.schema))
  for (const e of essences) {
    const not = typeof e === "object" && Object.keys(e).length === 1 ? e["not"] : undefined
    if (isSchemaValue(not)) {
      const x = essence(ctx.localRoot, not)
      if (x === false || essences.some((c) => c !== e && same(ctx.localRoot, c, x))) return proven
    }
  }
  const outcomes: Array<Outcome> = []
  for (const b of bs) {
    const o = prove(nodes, b)
    if (o._tag === "Proven") return o
    outcomes.push(o)
  }
  if (types.size > 1 || [...types].some(isNumeric)) {
    const perType = [...types].every((t) => {
      const view = [...nodes, { schema: { type: typeName[t] }, ptr: undefined }]
      return bs.some((b) => prove(view, b)._tag === "Proven") || (isNumeric(t) && coveredByUnion(nodes, t, bs, inert))
    })
    if (perType) return proven
  }
  if (outcomes.every((o) => o._tag === "Counter")) {
    const edges = [...types].some(isNumeric) ? bs.flatMap(bounds).flatMap((x) => [x, x - 1, x + 1, x - 0.5, x + 0.5]) : []
    const witnesses = [...outcomes.flatMap((o) => (o._tag === "Counter" ? o.witnesses : [])), ...edges]
    return counter({ cloudPath: cloudAt(nodes), localPath: where(local, key), message: `a value the cloud schema allows matches no branch of the local ${key}` }, witnesses)
  }
  return unknown(`${key} (no single branch covers the cloud schema)`, where(local, key))
}

/** The numeric bounds a branch names (witness candidates at the edges of a union of intervals). */
const bounds = (b: Node): ReadonlyArray<number> =>
  ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].flatMap((k) => {
    const v = kw(b, k)
    return typeof v === "number" && Number.isFinite(v) ? [v] : []
  })

/** The base types a branch allows by its own `type` and `nullable` (through one `$ref`), or undefined for any. */
const branchTypes = (ctx: Ctx, b: Node): ReadonlySet<Base> | undefined => {
  let n = b
  const ref = kw(n, "$ref")
  if (typeof ref === "string" && typesOf(kw(n, "type")) === undefined) {
    const t = follow(ctx.localRoot, n, ref)
    if ("_tag" in t) return undefined
    n = t
  }
  const t = declaredTypes(n)
  return t === undefined || t === "invalid" ? undefined : t
}

/** The values a branch pins property `k` to (a required `const`/`enum` discriminator), or undefined. */
const pinned = (b: Node, k: string): ReadonlyArray<JsonValue> | undefined => {
  if (!strings(kw(b, "required")).includes(k)) return undefined
  const props = kw(b, "properties")
  const p = isObject(props) && Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined
  if (!isObject(p)) return undefined
  if (p["const"] !== undefined) return [p["const"]]
  return Array.isArray(p["enum"]) ? p["enum"] : undefined
}

const disjoint = (ctx: Ctx, a: Node, b: Node): boolean => {
  const ta = branchTypes(ctx, a), tb = branchTypes(ctx, b)
  if (ta !== undefined && tb !== undefined && ![...ta].some((t) => tb.has(t))) return true
  const keys = strings(kw(a, "required"))
  return keys.some((k) => {
    const va = pinned(a, k), vb = pinned(b, k)
    return va !== undefined && vb !== undefined && !va.some((x) => vb.some((y) => equals(x, y)))
  })
}

/**
 * `oneOf` is `anyOf` once every two branches are proven disjoint. Otherwise it holds when, per cloud type,
 * one branch holds the cloud and the cloud shares no value with any other branch (by type, by a
 * discriminator the cloud pins, or a cloud `not: Y` around the branch).
 */
export const oneOf = (ctx: Ctx, local: Node, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, prove: Prove, inside: (x: Node, y: Node) => boolean): Outcome => {
  const bs = branches(local, "oneOf")
  if (bs === undefined) return unknown("oneOf", where(local, "oneOf"))
  const pairwise = bs.every((a, i) => bs.every((b, j) => j <= i || disjoint(ctx, a, b)))
  if (pairwise) return anyOf(ctx, local, nodes, types, prove, "oneOf")
  const exactlyOne = (view: ReadonlyArray<Node>, ts: ReadonlySet<Base>): boolean =>
    bs.some((b, i) => bs.every((o, j) => j === i || excluded(ctx, view, ts, o, inside)) && prove(view, b)._tag === "Proven")
  if (exactlyOne(nodes, types)) return proven
  if (types.size > 1 && [...types].every((t) => exactlyOne([...nodes, { schema: { type: typeName[t] }, ptr: undefined }], new Set([t])))) return proven
  // candidates: values in the cloud and two branches at once, and the branches' numeric edges (verified later)
  const few = bs.slice(0, 6)
  const both = few.flatMap((a, i) => few.slice(i + 1).map((b) => sample(ctx, [...nodes, a, b])))
  const edges = [...types].some(isNumeric) ? few.flatMap(bounds).flatMap((x) => [x, x + 1, x - 1, Math.ceil(x)]) : []
  return counter({ cloudPath: cloudAt(nodes), localPath: where(local, "oneOf"), message: "a value the cloud schema allows matches more than one branch of the local oneOf, or none" }, [...both, ...edges])
}

/** Whether the cloud shares no value with branch `b`: by type, by a discriminator value, or by a cloud `not`. */
const excluded = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, b: Node, inside: (x: Node, y: Node) => boolean): boolean => {
  const t = branchTypes(ctx, b)
  if (t !== undefined && ![...types].some((x) => t.has(x))) return true
  const required = new Set(nodes.flatMap((n) => strings(kw(n, "required"))))
  for (const k of strings(kw(b, "required"))) {
    const vb = pinned(b, k)
    if (vb === undefined || !required.has(k)) continue
    for (const n of nodes) {
      const props = kw(n, "properties")
      const p = isObject(props) && Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined
      const vc = !isObject(p) ? undefined : p["const"] !== undefined ? [p["const"]] : Array.isArray(p["enum"]) ? p["enum"] : undefined
      if (vc !== undefined && !vc.some((x) => vb.some((y) => equals(x, y)))) return true
    }
  }
  return nodes.some((n) => { const y = kw(n, "not"); return isSchemaValue(y) && inside(b, child(n, y, "not")) })
}

/**
 * `not: X` holds when the cloud and `X` are disjoint by type, or the cloud itself says `not: Y` with
 * `X ⊑ Y` (`inside`, a proof with the roots swapped; the same text across roots is only trusted without refs).
 */
export const not = (ctx: Ctx, local: Node, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, inside: (x: Node, y: Node) => boolean): Outcome => {
  const x = kw(local, "not")
  if (!isSchemaValue(x)) return unknown("not", where(local, "not"))
  if (x === false) return proven
  if (x === true || (isObject(x) && Object.keys(x).length === 0)) {
    return counter({ cloudPath: cloudAt(nodes), localPath: where(local, "not"), message: "the local schema rejects every value (`not: {}`); the cloud schema does not" }, [sample(ctx, nodes)])
  }
  const t = branchTypes(ctx, child(local, x, "not"))
  if (t !== undefined && ![...types].some((b) => t.has(b))) return proven
  if (nodes.some((n) => { const y = kw(n, "not"); return y !== undefined && sameText(ctx, y, x) })) return proven
  const xn = child(local, x, "not")
  if (nodes.some((n) => { const y = kw(n, "not"); return isSchemaValue(y) && inside(xn, child(n, y, "not")) })) return proven
  // a value in both the cloud and `X` is a witness; the cloud side here may be wider than the real one
  const both = sample(ctx, [...nodes, child(local, x, "not")])
  if (both === undefined) return unknown("not", where(local, "not"))
  return counter({ cloudPath: cloudAt(nodes), localPath: where(local, "not"), message: `the cloud schema allows ${JSON.stringify(both).slice(0, 60)}, which the local \`not\` excludes` }, [both])
}

/** `if`/`then`/`else`: decided when the cloud is inside `if`, disjoint from it by type, or inside both branches. */
export const conditional = (ctx: Ctx, local: Node, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, prove: Prove): Outcome => {
  const cond = kw(local, "if")
  if (!isSchemaValue(cond)) return proven
  const then = kw(local, "then"), otherwise = kw(local, "else")
  const side = (s: JsonValue | undefined, k: string) => (isSchemaValue(s) ? prove(nodes, child(local, s, k)) : proven)
  const c = child(local, cond, "if")
  if (prove(nodes, c)._tag === "Proven") return side(then, "then")
  const t = branchTypes(ctx, c)
  if (t !== undefined && ![...types].some((b) => t.has(b))) return side(otherwise, "else")
  const a = side(then, "then"), b = side(otherwise, "else")
  if (a._tag === "Proven" && b._tag === "Proven") return proven
  return unknown("if/then/else", where(local, "if"))
}

/**
 * Arrays and tuples: lengths, each tuple position and the rest (cloud view against the local node that
 * governs the same position), `uniqueItems`, and `contains` when the cloud carries a narrower one.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { all, child, cloudAt, counter, isSchemaValue, kw, mapWitnesses, num, proven, unknown, where } from "./subschemaModel.js"
import type { Prove } from "./subschemaObjects.js"
import { forIndex, rest, tuple } from "./subschemaParts.js"
import { arrayWith, indexView, minItems, sample } from "./subschemaWitness.js"

const MAX_POSITIONS = 64

/** The most elements a cloud conjunction allows (a closed tuple counts). */
const maxItems = (ctx: Ctx, nodes: ReadonlyArray<Node>): number =>
  nodes.reduce((m, n) => {
    const r = rest(n, ctx.cloudDialect)
    const closed = r !== undefined && r.schema === false ? tuple(n, ctx.cloudDialect).length : Infinity
    return Math.min(m, num(kw(n, "maxItems")) ?? Infinity, closed)
  }, Infinity)

/** Checks the local array keywords against a cloud conjunction (its array values). */
export const check = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, prove: Prove): Outcome => {
  const d = ctx.localDialect
  const items = kw(local, "items"), prefix = kw(local, "prefixItems"), more = kw(local, "additionalItems")
  if (items !== undefined && !isSchemaValue(items) && !(d === "draft-07" && Array.isArray(items))) return unknown("items", where(local, "items"))
  if (d === "2020-12" && prefix !== undefined && !Array.isArray(prefix)) return unknown("prefixItems", where(local, "prefixItems"))
  if (d === "draft-07" && more !== undefined && !isSchemaValue(more)) return unknown("additionalItems", where(local, "additionalItems"))
  if (!tuple(local, d).every(isSchemaValue)) return unknown(d === "2020-12" ? "prefixItems" : "items", where(local))
  const cmin = minItems(nodes), cmax = maxItems(ctx, nodes)
  const at = (k: string) => ({ cloudPath: cloudAt(nodes), localPath: where(local, k) })
  const lengths = (): Outcome => {
    const lmin = kw(local, "minItems"), lmax = kw(local, "maxItems")
    if (lmin !== undefined) {
      const m = num(lmin)
      if (m === undefined) return unknown("minItems", where(local, "minItems"))
      if (cmin < m) return counter({ ...at("minItems"), message: `the local schema requires at least ${m} items; the cloud schema allows ${cmin}` }, [sample(ctx, nodes, "array")])
    }
    if (lmax !== undefined) {
      const m = num(lmax)
      if (m === undefined) return unknown("maxItems", where(local, "maxItems"))
      if (cmax > m) {
        const last = sample(ctx, indexView(ctx, nodes, Math.min(m, MAX_POSITIONS)))
        return counter({ ...at("maxItems"), message: `the local schema allows at most ${m} items; the cloud schema allows ${cmax === Infinity ? "more" : cmax}` }, [last === undefined ? undefined : arrayWith(ctx, nodes, m, last)])
      }
    }
    return proven
  }
  const positions = Math.max(tuple(local, d).length, ...nodes.map((n) => tuple(n, ctx.cloudDialect).length))
  if (positions > MAX_POSITIONS) return unknown("tuple too long", where(local))
  const element = (i: number, l: Node | undefined) => (): Outcome => {
    if (l === undefined || i >= cmax) return proven
    ctx.guard++
    const o = prove(indexView(ctx, nodes, i), l)
    ctx.guard--
    return mapWitnesses(o, (w) => arrayWith(ctx, nodes, i, w))
  }
  const steps: Array<() => Outcome> = [lengths]
  for (let i = 0; i < positions; i++) steps.push(element(i, forIndex(local, i, d)))
  steps.push(element(positions, rest(local, d)))
  steps.push(() => unique(ctx, nodes, local, cmin, cmax))
  steps.push(() => contains(ctx, nodes, local, cmin, prove))
  return all(steps)
}

const unique = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, cmin: number, cmax: number): Outcome => {
  if (kw(local, "uniqueItems") !== true) return proven
  if (cmax <= 1 || nodes.some((n) => kw(n, "uniqueItems") === true)) return proven
  const len = Math.max(2, cmin)
  const views = Array.from({ length: Math.min(len, MAX_POSITIONS) }, (_, i) => indexView(ctx, nodes, i)).flat()
  const v = sample(ctx, views)
  const w: JsonValue | undefined = v === undefined ? undefined : Array.from({ length: len }, () => v)
  return counter({ cloudPath: cloudAt(nodes), localPath: where(local, "uniqueItems"), message: "the local schema requires unique items; the cloud schema allows repeated ones" }, [w])
}

const contains = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, cmin: number, prove: Prove): Outcome => {
  const c = kw(local, "contains")
  if (c === undefined) return proven
  if (!isSchemaValue(c)) return unknown("contains", where(local, "contains"))
  const target = child(local, c, "contains")
  for (const n of nodes) {
    const q = kw(n, "contains")
    const mc = kw(n, "minContains")
    if (isSchemaValue(q) && (mc === undefined || (num(mc) ?? 0) >= 1) && prove([child(n, q, "contains")], target)._tag === "Proven") return proven
  }
  if (cmin >= 1 && prove(indexView(ctx, nodes, 0), target)._tag === "Proven") return proven
  const witnesses = [cmin === 0 ? [] : undefined, sample(ctx, nodes, "array")]
  return counter({ cloudPath: cloudAt(nodes), localPath: where(target), message: "the local schema requires an item matching `contains`; the cloud schema does not guarantee one" }, witnesses)
}

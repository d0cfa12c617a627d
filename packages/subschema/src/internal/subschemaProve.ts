/**
 * The prover's recursion: one obligation `cloud conjunction ⊑ local node`. The cloud is expanded (and
 * split over its disjunctions), a finite cloud is decided by the local validator, recursion through
 * `$ref` is co-inductive (an assumption holds only behind a property or item), and the rest is split by
 * type and checked keyword by keyword.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals } from "@toolgate/json-schema/JsonValue"
import * as Arrays from "./subschemaArrays.js"
import { expand, follow, viewKey } from "./subschemaCloud.js"
import * as Comb from "./subschemaCombinators.js"
import * as Finite from "./subschemaFinite.js"
import { firstUnmodelled } from "./subschemaKeywords.js"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { all, article, child, cloudAt, counter, isSchemaValue, kw, proven, show, tick, unknown, where, without } from "./subschemaModel.js"
import * as Numbers from "./subschemaNumbers.js"
import * as Objects from "./subschemaObjects.js"
import { sameAsOne } from "./subschemaSame.js"
import * as Strings from "./subschemaStrings.js"
import type { Base } from "./subschemaTypes.js"
import { baseOf, cloudTypes, declaredTypes, isNumeric, typeName } from "./subschemaTypes.js"
import { sample, variants } from "./subschemaWitness.js"

/** Proves `view ⊑ local` (see the module comment). */
export const prove = (ctx: Ctx, view: ReadonlyArray<Node>, local: Node): Outcome => {
  if (!tick(ctx)) return unknown("work budget exhausted", where(local))
  if (local.schema === true || sameAsOne(ctx, view, local)) return proven
  const e = expand(ctx, view)
  if (e._tag === "Unknown" || e._tag === "Proven" || e._tag === "Counter") return e
  if (e._tag === "Empty") return proven
  if (e._tag === "Split") return all(e.alternatives.map((alt) => () => prove(ctx, [...e.base, ...alt], local)))
  const nodes = e.nodes
  const types = cloudTypes(nodes)
  if (types.size === 0) return proven
  if (!ctx.refs) return decide(ctx, nodes, types, local)
  return memoized(ctx, `${viewKey(nodes)}=>${viewKey([local])}`, () => decide(ctx, nodes, types, local), local)
}

/**
 * Co-induction and reuse for one pair: a pair met again on the current path holds when a property or item
 * lies between; a pair decided without relying on a pair above it on the path is kept for the rest of the
 * check (its outcome is the same wherever it is met again), so a `$ref`-heavy schema is proven once per pair.
 */
const memoized = (ctx: Ctx, key: string, run: () => Outcome, local: Node): Outcome => {
  const seen = ctx.assumptions.get(key)
  if (seen !== undefined) {
    ctx.used = Math.min(ctx.used ?? Infinity, seen.depth)
    return ctx.guard > seen.guard ? proven : unknown("unguarded recursive $ref", where(local))
  }
  const memo = (ctx.memo ??= new Map())
  const known = memo.get(key)
  if (known !== undefined) return known
  const depth = ctx.assumptions.size
  const outer = ctx.used ?? Infinity
  ctx.used = Infinity
  ctx.assumptions.set(key, { guard: ctx.guard, depth })
  try {
    const o = run()
    // under `quick` an obligation may be left open that a validator would settle: only proofs are kept then
    if (ctx.used >= depth && ctx.budget >= 0 && (ctx.quick !== true || o._tag === "Proven")) memo.set(key, o)
    return o
  } finally {
    ctx.assumptions.delete(key)
    ctx.used = Math.min(outer, ctx.used ?? Infinity)
  }
}

const decide = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, local: Node): Outcome => refuted(ctx, nodes, decideFor(ctx, nodes, types, local))

const decideFor = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, local: Node): Outcome => {
  if (local.schema === false) {
    return counter({ cloudPath: cloudAt(nodes), localPath: where(local), message: "the local schema rejects every value here; the cloud schema does not" }, [sample(ctx, nodes)])
  }
  const values = Finite.candidates(nodes, types)
  if (values === undefined) return structural(ctx, nodes, types, local)
  // the exact decision over the cloud's values; where it would compile a validator (a value the quick
  // reading cannot settle), a proof from the structure first, compiling nothing on the way (see `Ctx.quick`)
  const quickly = Finite.decide(ctx, nodes, values, local, false)
  if (quickly !== "compile") return quickly ?? structural(ctx, nodes, types, local)
  const outer = ctx.quick === true
  ctx.quick = true
  let o: Outcome
  try {
    o = structural(ctx, nodes, types, local)
  } finally {
    ctx.quick = outer
  }
  return o._tag === "Proven" || outer ? o : Finite.decide(ctx, nodes, values, local, true) ?? o
}

/** `cloud ⊑ local` from the local schema's keywords and applicators, without enumerating the cloud's values. */
const structural = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, local: Node): Outcome => {
  const bad = firstUnmodelled(local, ctx.localDialect)
  if (bad !== undefined) return unknown(bad, where(local, bad === "embedded $id" ? "$id" : bad))
  const lt = declaredTypes(local)
  const live = typeGap(ctx, nodes, types, local, lt)
  if ("_tag" in live) return live
  const self = (v: ReadonlyArray<Node>, l: Node) => prove(ctx, v, l)
  const steps: Array<() => Outcome> = []
  const ref = kw(local, "$ref")
  if (ref !== undefined) {
    if (typeof ref !== "string") return unknown("$ref", where(local, "$ref"))
    const target = follow(ctx.localRoot, local, ref)
    if ("_tag" in target) return target
    steps.push(() => prove(ctx, nodes, target))
  }
  if (kw(local, "allOf") !== undefined) steps.push(() => Comb.allOf(local, nodes, self))
  if (kw(local, "anyOf") !== undefined) steps.push(() => Comb.anyOf(ctx, local, nodes, types, self))
  if (kw(local, "oneOf") !== undefined) steps.push(() => Comb.oneOf(ctx, local, nodes, types, self, (x, y) => inside(ctx, x, y)))
  if (kw(local, "not") !== undefined) steps.push(() => Comb.not(ctx, local, nodes, types, (x, y) => inside(ctx, x, y)))
  if (kw(local, "if") !== undefined) steps.push(() => Comb.conditional(ctx, local, nodes, types, self))
  const core = without(local, "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else")
  steps.push(() => lt === "invalid" ? unknown("type", where(local, "type")) : byType(ctx, nodes, types, live, core))
  return all(steps)
}

/**
 * Whether local subschema `x` is inside cloud subschema `y`: the prover run with the two roots (and
 * dialects) swapped, on a bounded share of the budget, never nested. A cloud `not: y` with `x ⊑ y` proves
 * the local `not: x`.
 */
const inside = (ctx: Ctx, x: Node, y: Node): boolean => {
  if (ctx.swapped === true || ctx.budget < 10) return false
  const share = Math.min(ctx.budget, 2_000)
  const flipped: Ctx = {
    cloudRoot: ctx.localRoot, localRoot: ctx.cloudRoot, cloudDialect: ctx.localDialect, localDialect: ctx.cloudDialect,
    ...(ctx.given === undefined ? {} : { given: { cloud: ctx.given.local, local: ctx.given.cloud } }),
    budget: share, refs: ctx.refs, guard: 0, assumptions: new Map(), swapped: true, ...(ctx.quick === true ? { quick: true } : {})
  }
  const o = prove(flipped, [x], y)
  ctx.budget -= share - Math.max(0, flipped.budget)
  return o._tag === "Proven"
}

const MAX_REFUTATIONS = 12

/**
 * A failed obligation whose cloud side says `not: X` is proven after all when that side is empty (see
 * `emptyByNot`); a counterexample also takes the values found outside `X` as candidates. A few tries per check.
 */
const refuted = (ctx: Ctx, nodes: ReadonlyArray<Node>, o: Outcome): Outcome => {
  if (o._tag === "Proven" || ctx.swapped === true || (ctx.refutations ?? 0) >= MAX_REFUTATIONS) return o
  if (!nodes.some((n) => { const x = kw(n, "not"); return isSchemaValue(x) && typeof x !== "boolean" })) return o
  ctx.refutations = (ctx.refutations ?? 0) + 1
  const outside = emptyByNot(ctx, nodes)
  if (outside === "empty") return proven
  return o._tag === "Counter" && outside.length > 0 ? { ...o, witnesses: [...o.witnesses, ...outside] } : o
}

/**
 * Whether the cloud conjunction is empty because one node says `not: X` and the rest of the conjunction
 * (a superset of what the cloud accepts) is inside `X`: the prover run with the cloud root on both sides,
 * `X` read as a local subschema, on a bounded share of the budget, never nested. Only asked once an
 * obligation has failed, so it costs nothing on the everyday path. Otherwise the values of the rest found
 * outside `X`: values the cloud may accept, witness candidates (the real validators judge them later).
 */
const emptyByNot = (ctx: Ctx, nodes: ReadonlyArray<Node>): "empty" | ReadonlyArray<JsonValue> => {
  const found: Array<JsonValue> = []
  if (ctx.swapped === true) return found
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!, x = kw(n, "not")
    if (!isSchemaValue(x) || typeof x === "boolean" || ctx.budget < 10) continue
    const share = Math.min(Math.floor(ctx.budget / 2), 1_000)
    const self: Ctx = {
      cloudRoot: ctx.cloudRoot, localRoot: ctx.cloudRoot, cloudDialect: ctx.cloudDialect, localDialect: ctx.cloudDialect,
      ...(ctx.given === undefined ? {} : { given: { cloud: ctx.given.cloud, local: ctx.given.cloud } }),
      budget: share, refs: ctx.refs, guard: 0, assumptions: new Map(), swapped: true
    }
    const o = prove(self, nodes.map((m, j) => (j === i ? without(m, "not") : m)), child(n, x, "not"))
    ctx.budget -= share - Math.max(0, self.budget)
    if (o._tag === "Proven") return "empty"
    if (o._tag === "Counter") for (const c of [o, ...(o.more ?? [])]) found.push(...c.witnesses)
  }
  return found
}

/** A cloud type's part of the conjunction: one type's part may be empty by a `not` where the whole cloud is not. */
const typed = (nodes: ReadonlyArray<Node>, b: Base): ReadonlyArray<Node> => [...nodes, { schema: { type: b === "fraction" ? "number" : b }, ptr: undefined }]

/** Refutes one type's counterexample by that type's part of the cloud being empty (with more than one cloud type). */
const perType = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>) =>
  types.size > 1 ? (t: Base, o: Outcome) => refuted(ctx, typed(nodes, t), o) : (_: Base, o: Outcome) => o

/**
 * The cloud types the local node's own `type` leaves to be proven, or the counterexample of a cloud type it
 * excludes (a type whose part of the cloud is empty is dropped instead). The plainest counterexample there
 * is, so it leads alone: no applicator is explored for counterexamples that would only ride along.
 */
const typeGap = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, local: Node, lt: ReturnType<typeof declaredTypes>): Outcome | ReadonlySet<Base> => {
  if (lt === undefined || lt === "invalid" || within(types, lt)) return types
  const each = perType(ctx, nodes, types)
  const live = new Set(types)
  for (const t of types) {
    if (lt.has(t)) continue
    const o = each(t, counter({ cloudPath: cloudAt(nodes), localPath: where(local, "type"), message: `the cloud schema allows ${article(typeName(t))} here; the local schema does not` }, [sample(ctx, nodes, t)]))
    if (o._tag !== "Proven") return o
    live.delete(t)
  }
  return live
}

/** Whether every cloud type is one the local `type` allows (the everyday case: nothing to allocate). */
const within = (types: ReadonlySet<Base>, lt: ReadonlySet<Base>): boolean => {
  for (const t of types) if (!lt.has(t)) return false
  return true
}

/** The local node's own keywords, per cloud type its `type` allows (`live`, from `typeGap`). */
const byType = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, live: ReadonlySet<Base>, local: Node): Outcome => {
  if (live.size === 0) return proven
  const each = perType(ctx, nodes, types)
  const listed = enumerated(ctx, nodes, live, local)
  if (listed !== undefined) return listed
  const self = (v: ReadonlyArray<Node>, l: Node) => prove(ctx, v, l)
  const steps: Array<() => Outcome> = []
  for (const t of live) {
    if (isNumeric(t)) steps.push(() => each(t, Numbers.check(nodes, t, local)))
    else if (t === "string") steps.push(() => each(t, Strings.check(nodes, local)))
    else if (t === "array") steps.push(() => each(t, Arrays.check(ctx, typed(nodes, t), local, self)))
    else if (t === "object") steps.push(() => each(t, Objects.check(ctx, typed(nodes, t), local, self)))
  }
  return all(steps)
}

/** A local `const`/`enum` against a cloud side that is not finite: a cloud value outside the list. */
const enumerated = (ctx: Ctx, nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>, local: Node): Outcome | undefined => {
  const c = kw(local, "const"), e = kw(local, "enum")
  if (c === undefined && e === undefined) return undefined
  const list: ReadonlyArray<JsonValue> | undefined = c !== undefined ? [c] : Array.isArray(e) ? e : undefined
  if (list === undefined) return unknown("enum", where(local, "enum"))
  const ws = [...types].flatMap((t) => variants(ctx, nodes, t, Math.min(list.length + 1, 64))).filter((v) => !list.some((x) => equals(x, v)))
  const key = c !== undefined ? "const" : "enum"
  if (ws.length === 0) return unknown(`${key} (the cloud side may be finite)`, where(local, key))
  return counter({ cloudPath: cloudAt(nodes), localPath: where(local, key), message: `the cloud schema allows ${show(ws[0]!)} (${article(typeName(baseOf(ws[0]!)))}); the local ${key} does not` }, ws)
}

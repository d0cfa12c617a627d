/**
 * Witness candidates: a value the cloud side probably accepts, and a nested counterexample put back into
 * its parent object or array. Nothing here is trusted: every witness is verified by the real validators.
 *
 * @internal
 */
import { Pointer as P } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { fromEntries, isObject } from "@toolgate/json-schema/JsonValue"
import { expand } from "./subschemaCloud.js"
import { candidates as finite } from "./subschemaFinite.js"
import type { Ctx, Node } from "./subschemaModel.js"
import { cloudAt, kw, num, strings } from "./subschemaModel.js"
import { pickFraction, pickInteger } from "./subschemaNumbers.js"
import { forIndex, forKey } from "./subschemaParts.js"
import { pick as pickString, variety } from "./subschemaStrings.js"
import type { Base } from "./subschemaTypes.js"
import { allBases, baseOf, cloudTypes } from "./subschemaTypes.js"

const MAX_DEPTH = 8
const MAX_ITEMS = 16

/** The nodes governing `key` in a cloud conjunction (a pattern that does not compile governs nothing here). */
export const keyView = (nodes: ReadonlyArray<Node>, key: string): Array<Node> =>
  placed(nodes.flatMap((n) => {
    const r = forKey(n, key)
    return r === "invalid" ? [] : r
  }), nodes, "properties", key)

/** A view with no node of its own gets an empty schema at the place it would be, so messages can point there. */
const placed = (view: Array<Node>, parent: ReadonlyArray<Node>, ...tokens: ReadonlyArray<string>): Array<Node> => {
  if (view.some((n) => n.ptr !== undefined)) return view
  let ptr = cloudAt(parent)
  for (const t of tokens) ptr = P.append(ptr, t)
  return [...view, { schema: {}, ptr, standIn: true }]
}

/** The nodes governing element `i` in a cloud conjunction. */
export const indexView = (ctx: Ctx, nodes: ReadonlyArray<Node>, i: number): Array<Node> =>
  placed(nodes.flatMap((n) => {
    const r = forIndex(n, i, ctx.cloudDialect)
    return r === undefined ? [] : [r]
  }), nodes, "items")

/** The keys a cloud conjunction requires. */
export const requiredKeys = (nodes: ReadonlyArray<Node>): ReadonlyArray<string> => [...new Set(nodes.flatMap((n) => strings(kw(n, "required"))))]

/** The fewest elements a cloud conjunction allows. */
export const minItems = (nodes: ReadonlyArray<Node>): number =>
  nodes.reduce((m, n) => Math.max(m, num(kw(n, "minItems")) ?? 0), 0)

/** A value the cloud conjunction probably accepts, of type `prefer` when it can be. */
export const sample = (ctx: Ctx, view: ReadonlyArray<Node>, prefer?: Base, depth = 0): JsonValue | undefined => {
  if (depth > MAX_DEPTH || ctx.budget <= 0) return undefined
  const e = expand(ctx, view)
  if (e._tag === "Empty" || e._tag === "Unknown" || e._tag === "Counter" || e._tag === "Proven") return undefined
  if (e._tag === "Split") {
    for (const alt of e.alternatives) {
      const v = sample(ctx, [...e.base, ...alt], prefer, depth + 1)
      if (v !== undefined) return v
    }
    return undefined
  }
  const nodes = e.nodes
  const types = cloudTypes(nodes)
  const values = finite(nodes, types)
  if (values !== undefined) return values.find((v) => prefer === undefined || baseOf(v) === prefer) ?? values[0]
  const b = prefer !== undefined && types.has(prefer) ? prefer : firstType(nodes, types)
  switch (b) {
    case undefined: return undefined
    case "null": return null
    case "boolean": return true
    case "integer": return pickInteger(nodes)
    case "fraction": return pickFraction(nodes)
    case "string": return pickString(nodes)
    case "array": return sampleArray(ctx, nodes, depth)
    case "object": return sampleObject(ctx, nodes, depth)
  }
}

const firstType = (nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>): Base | undefined => {
  for (const n of nodes) {
    const t = kw(n, "type")
    const name = typeof t === "string" ? t : Array.isArray(t) && typeof t[0] === "string" ? t[0] : undefined
    const b: Base | undefined = name === "number" ? "integer" : allBases.find((x) => x === name)
    if (b !== undefined && types.has(b)) return b
  }
  return allBases.find((t) => types.has(t))
}

const sampleArray = (ctx: Ctx, nodes: ReadonlyArray<Node>, depth: number): JsonValue | undefined => {
  const out: Array<JsonValue> = []
  for (let i = 0; i < Math.min(minItems(nodes), MAX_ITEMS); i++) {
    const v = sample(ctx, indexView(ctx, nodes, i), undefined, depth + 1)
    if (v === undefined) return undefined
    out.push(v)
  }
  return out
}

const sampleObject = (ctx: Ctx, nodes: ReadonlyArray<Node>, depth: number): JsonValue | undefined => {
  const entries: Array<readonly [string, JsonValue]> = []
  for (const k of requiredKeys(nodes).slice(0, 64)) {
    const v = sample(ctx, keyView(nodes, k), undefined, depth + 1)
    if (v === undefined) return undefined
    entries.push([k, v])
  }
  return fromEntries(entries)
}

/** The cloud sample object with `key` set to `value` (or removed when `value` is undefined). */
export const objectWith = (ctx: Ctx, nodes: ReadonlyArray<Node>, key: string, value: JsonValue | undefined): JsonValue | undefined => {
  const base = sample(ctx, nodes, "object")
  const entries = (isObject(base) ? Object.keys(base).map((k) => [k, base[k]!] as const) : []).filter(([k]) => k !== key)
  return fromEntries(value === undefined ? entries : [...entries, [key, value] as const])
}

/** The cloud sample array with element `i` set to `value` (other elements sampled). */
export const arrayWith = (ctx: Ctx, nodes: ReadonlyArray<Node>, i: number, value: JsonValue): JsonValue | undefined => {
  if (i > MAX_ITEMS * 4) return undefined
  const out: Array<JsonValue> = []
  for (let j = 0; j < Math.max(i + 1, Math.min(minItems(nodes), MAX_ITEMS)); j++) {
    const v = j === i ? value : sample(ctx, indexView(ctx, nodes, j), undefined, 1)
    if (v === undefined) return undefined
    out.push(v)
  }
  return out
}

/** Distinct values of one type the cloud probably accepts (candidates outside a local `enum`). */
export const variants = (ctx: Ctx, nodes: ReadonlyArray<Node>, b: Base, count: number): ReadonlyArray<JsonValue> => {
  const first = sample(ctx, nodes, b)
  const out: Array<JsonValue> = first === undefined ? [] : [first]
  if (b === "string") {
    // strings the cloud's own lengths and patterns allow come first, then longer copies of the first
    const e = ctx.budget > 0 ? expand(ctx, nodes) : undefined
    if (e?._tag === "Flat") for (const v of variety(e.nodes, count)) if (!out.includes(v)) out.push(v)
  }
  for (let j = 1; j <= count; j++) {
    if (b === "integer" && typeof first === "number") out.push(first + j)
    else if (b === "fraction" && typeof first === "number") out.push(first + j)
    else if (b === "string") out.push((typeof first === "string" ? first : "") + "x".repeat(j))
    else if (b === "array" && Array.isArray(first)) out.push([...first, ...Array.from({ length: j }, () => first[0] ?? null)])
    else if (b === "object" && isObject(first)) out.push(fromEntries([...Object.keys(first).map((k) => [k, first[k]!] as const), [`x${j}`, j]]))
  }
  return out
}

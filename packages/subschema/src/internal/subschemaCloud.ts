/**
 * The cloud side as a conjunction of nodes: `$ref`s resolved, `allOf` flattened, the first disjunction
 * (`anyOf`, `oneOf` read as `anyOf`, `if`/`then`/`else`) split out, and plain contradictions
 * (`X` with `not: X`, `not: true`, `false`) detected. Anything dropped only widens the cloud side.
 *
 * @internal
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals, isObject } from "@toolgate/json-schema/JsonValue"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { child, isSchemaValue, kw, tick, unknown, where, without } from "./subschemaModel.js"

/** The expanded cloud side. */
export type Expanded =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Split"; readonly base: ReadonlyArray<Node>; readonly alternatives: ReadonlyArray<ReadonlyArray<Node>> }
  | { readonly _tag: "Flat"; readonly nodes: ReadonlyArray<Node> }

const MAX_NODES = 400

/** Resolves a `$ref` on a node of either side: the target node, or why it cannot be followed. */
export const follow = (root: JsonSchema.JsonSchema, n: Node, ref: string): Node | Outcome => {
  const r = JsonSchema.resolveRef(root, ref)
  if (r._tag === "Unresolvable") {
    return unknown(r.reason === "external" ? `external $ref ${ref}` : `${r.reason} $ref ${ref}`, where(n, "$ref"))
  }
  return n.dialect === undefined ? { schema: r.schema, ptr: r.pointer } : { schema: r.schema, ptr: r.pointer, dialect: n.dialect }
}

/** Kept expansions by the node objects of their views, one level per node (see `expand`). */
export interface Expansions {
  next?: Map<Node, Expansions>
  kept?: { readonly result: Expanded | Outcome; readonly cost: number }
}

/** An empty store of kept expansions, one per check. */
export const expansions = (): Expansions => ({})

/**
 * Expands a cloud conjunction (see the module comment). With `ctx.expanded`, a view of the same node
 * objects met again in the check (the witness search samples the whole cloud once per type, a cloud view
 * is proven against each local branch) takes the kept expansion and is charged the steps it took then, so
 * the budget runs exactly as without the store; an expansion that ran out of budget is not kept.
 */
export const expand = (ctx: Ctx, view: ReadonlyArray<Node>): Expanded | Outcome => {
  if (ctx.expanded === undefined) return expandNow(ctx, view)
  let at: Expansions = ctx.expanded
  for (const n of view) {
    let next: Expansions | undefined = at.next?.get(n)
    if (next === undefined) (at.next ??= new Map()).set(n, next = {})
    at = next
  }
  const kept = at.kept
  if (kept !== undefined && ctx.budget >= kept.cost) {
    ctx.budget -= kept.cost
    return kept.result
  }
  const before = ctx.budget
  const result = expandNow(ctx, view)
  if (ctx.budget >= 0) at.kept = { result, cost: before - ctx.budget }
  return result
}

const expandNow = (ctx: Ctx, view: ReadonlyArray<Node>): Expanded | Outcome => {
  const work = [...view]
  const out: Array<Node> = []
  let split: { base: Node; alternatives: Array<Array<Node>> } | undefined
  const full: Array<JsonSchema.JsonSchema> = []
  let opaque: Outcome | undefined
  // in order, so the first node (the one messages point at) stays first
  for (let i = 0; i < work.length; i++) {
    const n = work[i]!
    if (!tick(ctx)) return unknown("work budget exhausted", where(n))
    if (n.skip === undefined && full.length < 64) full.push(essence(ctx.cloudRoot, n.schema))
    if (work.length > MAX_NODES) return unknown("schema too large to expand", where(n))
    if (n.schema === true) continue
    if (n.schema === false) return { _tag: "Empty" }
    const id = kw(n, "$id")
    if (typeof id === "string" && n.ptr !== "" && !id.startsWith("#")) return unknown("embedded $id", where(n, "$id"))
    const ref = kw(n, "$ref")
    if (typeof ref === "string") {
      const target = follow(ctx.cloudRoot, n, ref)
      if ("_tag" in target) {
        // an absolute reference the prover cannot read is still one schema wherever it stands: a `not` of
        // the same reference beside it leaves the conjunction empty, so the unknown waits for that check
        if (opaque !== undefined || !readAlike(ctx, ref)) return target
        opaque = target
        continue
      }
      work.push(target)
      // draft-07 siblings of `$ref` are dropped: whether or not the validator applies them, that only widens
      if (ctx.cloudDialect === "2020-12") work.push(without(n, "$ref"))
      continue
    }
    const allOf = kw(n, "allOf")
    if (Array.isArray(allOf)) {
      allOf.forEach((s, i) => isSchemaValue(s) && work.push(child(n, s, "allOf", i)))
      work.push(without(n, "allOf"))
      continue
    }
    if (split === undefined) {
      const alternatives = disjunction(n)
      if (alternatives !== undefined) {
        split = { base: n, alternatives: alternatives.alternatives }
        work.push(without(n, ...alternatives.keys))
        continue
      }
    }
    out.push(n)
  }
  if (contradictory(ctx.cloudRoot, out, full)) return { _tag: "Empty" }
  if (opaque !== undefined) return opaque
  if (split !== undefined) return { _tag: "Split", base: out, alternatives: split.alternatives }
  return { _tag: "Flat", nodes: out }
}

/**
 * Whether two occurrences of `$ref: ref` in the cloud certainly mean one schema: an absolute URI (no base
 * can change it) in a cloud with no dynamic anchor (no dynamic scope can make its dynamic references differ).
 */
const readAlike = (ctx: Ctx, ref: string): boolean =>
  /^[a-z][a-z0-9+.-]*:/i.test(ref) && !/"\$(dynamicAnchor|recursiveAnchor)"/.test(JSON.stringify(ctx.given?.cloud ?? ctx.cloudRoot))

const disjunction = (n: Node): { keys: ReadonlyArray<string>; alternatives: Array<Array<Node>> } | undefined => {
  for (const key of ["anyOf", "oneOf"] as const) {
    const v = kw(n, key)
    if (Array.isArray(v) && v.length > 0 && v.every(isSchemaValue)) {
      return { keys: [key], alternatives: v.map((s, i) => [child(n, s as JsonSchema.JsonSchema, key, i)]) }
    }
  }
  const cond = kw(n, "if")
  if (isSchemaValue(cond)) {
    const then = kw(n, "then")
    const otherwise = kw(n, "else")
    return {
      keys: ["if", "then", "else"],
      alternatives: [
        [child(n, cond, "if"), ...(isSchemaValue(then) ? [child(n, then, "then")] : [])],
        // the `else` side also fails `if`: a synthetic `not: if` (its refs resolve against the same root)
        [...(isSchemaValue(otherwise) ? [child(n, otherwise, "else")] : []), { ...child(n, { not: cond }), ptr: undefined }]
      ]
    }
  }
  return undefined
}

/** Whether the conjunction is plainly empty: `not: true`, or a node `X` next to `not: X` (compared by essence). */
const contradictory = (root: JsonSchema.JsonSchema, nodes: ReadonlyArray<Node>, full: ReadonlyArray<JsonSchema.JsonSchema>): boolean => {
  for (const n of nodes) {
    const not = kw(n, "not")
    if (!isSchemaValue(not)) continue
    const x = essence(root, not)
    if (x === true) return true
    if (full.some((m) => same(root, m, x))) return true
  }
  return false
}

const dropped: ReadonlySet<string> = new Set(["$defs", "definitions", "$comment", "$anchor", "title", "description", "examples", "default"])

/**
 * A schema with its containers and annotations removed and pure `$ref`s followed (a few hops), for
 * deciding that two schemas of one document are the same; `{}` becomes `true`.
 */
export const essence = (root: JsonSchema.JsonSchema, s: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  let cur = s
  for (let hop = 0; hop < 8; hop++) {
    if (typeof cur !== "object") return cur
    const keys = Object.keys(cur).filter((k) => !dropped.has(k))
    if (keys.length === 0) return true
    if (keys.length === 1 && keys[0] === "$ref" && typeof cur["$ref"] === "string") {
      const r = JsonSchema.resolveRef(root, cur["$ref"])
      if (r._tag === "Unresolvable") return cur
      cur = r.schema
      continue
    }
    if (keys.length === Object.keys(cur).length) return cur
    const o = cur
    return Object.fromEntries(keys.map((k) => [k, o[k]!])) as JsonSchema.JsonSchemaObject
  }
  return cur
}

/** Keywords that never constrain a value (`nullable` and `$id` do, so they are not here). */
const annotations: ReadonlySet<string> = new Set(["$comment", "$anchor", "$defs", "definitions", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType", "contentSchema"])

/** Whether a node, with its handled keywords skipped, says nothing about values (`{$ref, description}` once the `$ref` is followed). */
const annotationOnly = (n: Node): boolean =>
  typeof n.schema === "object" && Object.keys(n.schema).every((k) => n.skip?.has(k) === true || annotations.has(k))

/**
 * A stable key of a conjunction for the co-inductive assumption set and the pair memo: nodes that say
 * nothing about values are left out, so one `$ref` target reached from many annotated places is one key.
 */
export const viewKey = (nodes: ReadonlyArray<Node>): string => {
  const parts: Array<string> = []
  for (const n of nodes) {
    const part = partOf(n)
    if (part !== null) parts.push(part)
  }
  return parts.sort().map((p) => `@${p}`).join("&")
}

/** A node's part of a `viewKey` (null: left out), once per node object (nodes are never changed). */
const partOf = (n: Node): string | null => {
  let part = parts.get(n)
  if (part === undefined) {
    const at = n.ptr ?? `~${JSON.stringify(n.schema)}`
    part = n.standIn === true || annotationOnly(n) ? null : n.skip === undefined ? at : `${at}!${[...n.skip].sort().join(",")}`
    parts.set(n, part)
  }
  return part
}

const parts = new WeakMap<Node, string | null>()

/**
 * Whether two schemas of one document mean the same: equal after `essence`, where two `$ref`s count as
 * equal when their targets are. A pair met again on the current path is assumed equal only when a
 * property or item lies between (guarded recursion), so an unguarded loop is never called equal. An
 * embedded `$id` would change how references resolve, so a schema holding one is only equal to itself.
 */
export const same = (root: JsonSchema.JsonSchema, a: JsonSchema.JsonSchema, b: JsonSchema.JsonSchema): boolean => {
  const active = new Map<object, Map<object, number>>()
  let steps = 0
  const go = (x: JsonValue, y: JsonValue, schema: boolean, g: number): boolean => {
    if (++steps > 2_000) return false
    if (schema && isSchemaValue(x) && isSchemaValue(y)) {
      x = essence(root, x)
      y = essence(root, y)
    }
    if (x === y) return true
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false
    if (!schema) return equals(x, y)
    const met = active.get(x)?.get(y)
    if (met !== undefined) return g > met
    const m = active.get(x) ?? new Map<object, number>()
    active.set(x, m.set(y, g))
    try {
      return compare(x, y, g)
    } finally {
      m.delete(y)
    }
  }
  const compare = (x: object, y: object, g: number): boolean => {
    if (Array.isArray(x) || Array.isArray(y)) {
      return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => go(v, y[i]!, true, g))
    }
    const xo = x as JsonSchema.JsonSchemaObject, yo = y as JsonSchema.JsonSchemaObject
    if (!sameKeys(xo, yo)) return false
    if (resource(xo["$id"]) || resource(yo["$id"])) return equals(xo, yo)
    return Object.keys(xo).every((k) => {
      // a plain-name `$id` ("#foo") names the schema without moving the base: an annotation here
      if (k === "$id") return true
      const next = inPlace.has(k) ? g : g + 1
      if (literal.has(k)) return equals(xo[k]!, yo[k]!)
      if (k === "$ref") return refs(xo[k]!, yo[k]!, g)
      if (maps.has(k)) return sameKeys(xo[k]!, yo[k]!) && Object.keys(xo[k] as object).every((n) => go((xo[k] as JsonSchema.JsonSchemaObject)[n]!, (yo[k] as JsonSchema.JsonSchemaObject)[n]!, true, next))
      return go(xo[k]!, yo[k]!, true, next)
    })
  }
  const refs = (x: JsonValue, y: JsonValue, g: number): boolean => {
    if (x === y) return true
    if (typeof x !== "string" || typeof y !== "string") return false
    const rx = JsonSchema.resolveRef(root, x), ry = JsonSchema.resolveRef(root, y)
    return rx._tag === "Resolved" && ry._tag === "Resolved" && go(rx.schema, ry.schema, true, g)
  }
  return go(a, b, true, 0)
}

/** Whether an `$id` value starts a resource of its own (a base for references), not only a plain name (`#foo`). */
const resource = (id: JsonValue | undefined): boolean => id !== undefined && (typeof id !== "string" || !id.startsWith("#"))

/** Applicators that apply to the same instance (no descent into a part of it). */
const inPlace: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"])

const sameKeys = (x: JsonValue, y: JsonValue): boolean => {
  if (!isObject(x) || !isObject(y)) return false
  const kx = Object.keys(x)
  return kx.length === Object.keys(y).length && kx.every((k) => Object.prototype.hasOwnProperty.call(y, k))
}

/** Keywords whose values are data, compared as JSON. */
const literal: ReadonlySet<string> = new Set(["enum", "const", "required", "type", "pattern", "format", "dependentRequired"])

/**
 * Keywords whose values map names (data, never annotations) to subschemas, or to name lists for draft-07
 * `dependencies`: a name such as `title` must not be dropped as if it were an annotation.
 */
const maps: ReadonlySet<string> = new Set(["properties", "patternProperties", "dependentSchemas", "dependencies"])

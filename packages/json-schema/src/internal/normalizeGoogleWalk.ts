/**
 * The walker the Google and MCP passes share: a post-order copy of every subschema position that inlines
 * local non-recursive `$ref`s on the way and applies a per-node rule. It recurses, so it is depth-capped:
 * past `maxDepth` levels it throws `TooDeep`, which the passes catch and report. Every schema object it
 * returns is fresh (the rule may edit it in place); leaf values (`enum` arrays, …) are shared with the input
 * and are never edited.
 *
 * @internal
 */
import type { Change, JsonSchema } from "../JsonSchema.js"
import type { JsonValue } from "../JsonValue.js"
import { equals } from "../JsonValue.js"
import { annotations, schemaArray, schemaMap, singleSchema } from "./keywords.js"
import * as P from "./pointer.js"
import * as R from "./resolve.js"

/** A mutable schema object the walker built. */
export type Obj = Record<string, unknown>

/** How deep (schema levels, inlined ones included) a pass goes before it gives up. */
export const maxDepth = 512

/** How many schema objects one walk may visit (inlining included) before it stops inlining. */
export const maxNodes = 10_000

/** Thrown (and caught by the passes) when a schema is nested deeper than `maxDepth`. */
export class TooDeep extends Error {
  constructor() {
    super(`the schema is nested deeper than ${maxDepth} levels`)
  }
}

/** Whether `u` is a plain object (not an array, not a class instance). */
export const isPlain = (u: unknown): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** Own-property test that `__proto__` and `constructor` keys cannot fool. */
export const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

/** Sets a key as an own property (a `__proto__` key never touches the prototype). */
export const set = (o: Obj, k: string, v: unknown): void => {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  else o[k] = v
}

/** A shallow copy (own enumerable keys, `__proto__` kept as a key). */
export const copy = (o: Obj): Obj => {
  const out: Obj = {}
  for (const k of Object.keys(o)) set(out, k, o[k])
  return out
}

/** Reports one change at a pointer. */
export type Report = (path: string, change: string) => void

/** Why a `$ref` was not inlined. */
export type Kept = "recursive" | "missing" | "external" | "identified" | "too many nodes"

/** What a pass does at each step of the walk. */
export interface Policy {
  /** Whether `$ref`s are inlined (an MCP schema using `$dynamicRef` is left alone). */
  readonly inline: boolean
  /** Keywords whose value is copied without walking (the pass drops them anyway). */
  readonly opaque: ReadonlySet<string>
  /** A boolean (or non-schema) value in a subschema position. */
  readonly bool: (b: boolean, path: string, report: Report) => unknown
  /** A `$ref` that is not inlined: `site` is the node without its `$ref`. */
  readonly kept: (site: Obj, ref: string, why: Kept, target: JsonSchema | undefined, path: string, report: Report) => Obj
  /** The per-node rule, applied once every child is done. */
  readonly rule: (node: Obj, path: string, report: Report) => Obj
}

/** The state of one walk. */
export interface Walk {
  readonly root: JsonSchema
  readonly policy: Policy
  readonly changes: Array<Change>
  readonly report: Report
  /** The input objects on the current path: meeting one again is a cycle (only a hostile object has one). */
  readonly open: Set<object>
  budget: number
  keptRefs: number
}

/** A walk over `root` with `policy`. */
export const makeWalk = (root: JsonSchema, policy: Policy): Walk => {
  const changes: Array<Change> = []
  return { root, policy, changes, report: (path, change) => void changes.push({ path, change }), open: new Set(), budget: maxNodes, keptRefs: 0 }
}

/** The rewritten subschema at `path` (a pointer into the input document). */
export const full = (w: Walk, v: unknown, path: string, depth: number, sites: ReadonlyArray<string>, inDefs: boolean): unknown => {
  if (typeof v === "boolean") return w.policy.bool(v, path, w.report)
  if (!isPlain(v)) {
    w.report(path, `${v === null ? "null" : Array.isArray(v) ? "an array" : typeof v} is not a schema; read as \`true\` (no constraint)`)
    return w.policy.bool(true, path, w.report)
  }
  if (w.open.has(v)) {
    w.report(path, "a cycle back to an enclosing schema; read as `true` (no constraint)")
    return w.policy.bool(true, path, w.report)
  }
  w.open.add(v)
  const done = raw(w, v, path, depth, sites, inDefs)
  w.open.delete(v)
  return w.policy.rule(done, path, w.report)
}

const isDefs = (k: string): boolean => k === "$defs" || k === "definitions"

/** A node with its children rewritten and its `$ref` inlined, before the node rule. */
const raw = (w: Walk, node: Obj, path: string, depth: number, sites: ReadonlyArray<string>, inDefs: boolean): Obj => {
  if (depth > maxDepth) throw new TooDeep()
  w.budget--
  const out: Obj = {}
  const inline = w.policy.inline && !inDefs
  for (const key of Object.keys(node)) {
    const v = node[key]
    if (key === "$ref" && inline && typeof v === "string") continue
    const at = P.append(path, key)
    if (w.policy.opaque.has(key)) set(out, key, v)
    else if ((schemaMap.has(key)) && isPlain(v)) {
      const m: Obj = {}
      const defs = inDefs || isDefs(key)
      for (const name of Object.keys(v)) set(m, name, full(w, v[name], P.append(at, name), depth + 1, sites, defs))
      set(out, key, m)
    } else if (singleSchema.has(key) || (key === "items" && !Array.isArray(v))) {
      set(out, key, full(w, v, at, depth + 1, sites, inDefs))
    } else if ((schemaArray.has(key) || key === "items") && Array.isArray(v)) {
      set(out, key, v.map((x, i) => full(w, x, P.append(at, i), depth + 1, sites, inDefs)))
    } else set(out, key, v)
  }
  const ref = node["$ref"]
  return inline && typeof ref === "string" ? inlineRef(w, out, ref, path, depth, sites) : out
}

/** Whether the target pointer encloses the current position or a ref site being expanded. */
const recursive = (target: string, here: ReadonlyArray<string>): boolean =>
  here.some((p) => p === target || p.startsWith(target + "/"))

const inlineRef = (w: Walk, site: Obj, ref: string, path: string, depth: number, sites: ReadonlyArray<string>): Obj => {
  const r = R.resolveRef(w.root, ref)
  const here = [...sites, path]
  const why: Kept | undefined = r._tag === "Unresolvable"
    ? (r.reason === "cycle" ? "recursive" : r.reason)
    : recursive(r.pointer, here) ? "recursive"
    : isPlain(r.schema) && has(r.schema, "$id") ? "identified"
    : w.budget <= 0 ? "too many nodes"
    : undefined
  if (why !== undefined || r._tag === "Unresolvable") {
    w.keptRefs++
    return w.policy.kept(site, ref, why ?? "missing", r._tag === "Resolved" ? r.schema : undefined, path, w.report)
  }
  w.report(P.append(path, "$ref"), `\`$ref\` ${ref} inlined`)
  const target: Obj = r.schema === true ? {} : r.schema === false ? { not: {} } : raw(w, r.schema, r.pointer, depth + 1, here, false)
  delete target["$anchor"]
  delete target["$dynamicAnchor"]
  if (Object.keys(site).length === 0) return target
  if (mergeable(site, target)) {
    for (const k of Object.keys(site)) set(target, k, site[k])
    return target
  }
  const allOf = Array.isArray(site["allOf"]) ? site["allOf"] : []
  set(site, "allOf", [...allOf, w.policy.rule(target, r.pointer, w.report)])
  w.report(P.append(path, "$ref"), `\`$ref\` ${ref} has constraining siblings: the target became an \`allOf\` branch`)
  return site
}

/** Keyword pairs that read each other, so they may not come from different sides of a merge. */
const readsSibling: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["additionalProperties", ["properties", "patternProperties"]],
  ["items", ["prefixItems"]],
  ["then", ["if"]],
  ["else", ["if"]],
  ["minContains", ["contains"]],
  ["maxContains", ["contains"]]
]

/** Whether a `$ref` site's siblings can be laid over the target without changing what validates. */
const mergeable = (site: Obj, target: Obj): boolean => {
  for (const side of [site, target]) if (has(side, "unevaluatedProperties") || has(side, "unevaluatedItems")) return false
  for (const k of Object.keys(site)) if (has(target, k) && !annotations.has(k)) return false
  for (const [a, bs] of readsSibling) {
    if (has(site, a) && bs.some((b) => has(target, b))) return false
    if (has(target, a) && bs.some((b) => has(site, b))) return false
  }
  return true
}

/**
 * `const` folded into `enum`: `[c]`. When an `enum` beside it does not hold `c` the node accepted nothing;
 * `not: {}` keeps that (an empty `enum` is not a schema Ajv compiles).
 */
export const constToEnum = (node: Obj, path: string, report: Report): void => {
  if (!has(node, "const")) return
  const c = node["const"] as JsonValue
  delete node["const"]
  const e = node["enum"]
  set(node, "enum", [c])
  if (Array.isArray(e) && !e.some((x) => equals(x as JsonValue, c))) {
    set(node, "not", {})
    report(P.append(path, "const"), "`const` is not among the `enum` values beside it, so nothing validated: `enum` holds the const and `not: {}` keeps nothing valid")
  } else {
    report(P.append(path, "const"), `\`const\` became \`enum\` with its one value${Array.isArray(e) ? " (the `enum` beside it held it)" : ""}`)
  }
}

/** Changes with duplicates (one definition inlined at several places) removed, first occurrence kept. */
export const dedupe = (changes: ReadonlyArray<Change>): ReadonlyArray<Change> => {
  const seen = new Set<string>()
  return changes.filter((c) => {
    const key = c.path + "\u0000" + c.change
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Why a pass could not finish, for its fallback change. */
export const failure = (e: unknown): string =>
  e instanceof TooDeep ? e.message
    : e instanceof RangeError ? "the schema is nested too deeply to walk"
    : `the schema could not be read (${e instanceof Error ? e.message : String(e)})`

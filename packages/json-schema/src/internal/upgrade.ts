/**
 * `upgrade`: an iterative post-order rewrite of every subschema location (no recursion, so 10,000-level
 * nesting is fine), sharing unchanged subtrees with the input and never mutating it.
 *
 * @internal
 */
import type { Change, JsonSchema } from "../JsonSchema.js"
import { annotations, schemaArray, schemaMap, singleSchema } from "./keywords.js"
import * as P from "./pointer.js"
import * as R from "./upgradeRules.js"
import * as T from "./typeNames.js"

type Obj = Record<string, unknown>

const isPlain = (u: unknown): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const define = (o: Obj, k: string, v: unknown): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

/** A subschema position of a node: keyword, optional name or index, and the value found there. */
interface Slot {
  readonly key: string
  readonly sub: string | undefined
  readonly value: unknown
}

const slotsOf = (node: Obj): Array<Slot> => {
  const out: Array<Slot> = []
  for (const key of Object.keys(node)) {
    const v = node[key]
    if (singleSchema.has(key) || (key === "items" && !Array.isArray(v))) out.push({ key, sub: undefined, value: v })
    else if ((schemaArray.has(key) || key === "items") && Array.isArray(v)) v.forEach((x, i) => out.push({ key, sub: String(i), value: x }))
    else if ((schemaMap.has(key) || key === "dependencies") && isPlain(v)) {
      for (const name of Object.keys(v)) if (!(key === "dependencies" && Array.isArray(v[name]))) out.push({ key, sub: name, value: v[name] })
    }
  }
  return out
}

interface Frame {
  readonly node: Obj
  readonly path: string
  readonly slots: Array<Slot>
  readonly results: Array<unknown>
}

const slotPath = (path: string, s: Slot): string => (s.sub === undefined ? P.append(path, s.key) : P.append(P.append(path, s.key), s.sub))

/** Upgrades a schema; see `JsonSchema.upgrade`. */
export const upgrade = (input: unknown, ignoreRefSiblings = false): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  try {
    return upgradeUnsafe(input, ignoreRefSiblings)
  } catch (e) {
    // only a hostile object (a throwing getter or proxy trap) gets here: plain data never throws
    const why = e instanceof Error ? e.message : String(e)
    return { schema: true, changes: [{ path: "", change: `the input could not be read (${why}); replaced by \`true\` (no constraint)` }] }
  }
}

const upgradeUnsafe = (input: unknown, ignoreRefSiblings: boolean): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  const changes: Array<Change> = []
  const leaf = (v: unknown, path: string): unknown => {
    if (typeof v === "boolean") return v
    if (typeof v === "string") {
      const m = T.isJsonType(v) ? { _tag: "Type" as const, type: v } : T.meaning(v)
      if (m._tag === "Type") {
        changes.push({ path, change: `the type name \`${v}\` stands where a schema belongs; read as {type: ${m.type}}` })
        return { type: m.type }
      }
    }
    const what = v === undefined ? "nothing" : v === null ? "null" : Array.isArray(v) ? "an array" : typeof v
    changes.push({ path, change: `${what} is not a schema; replaced by \`true\` (no constraint)` })
    return true
  }
  if (!isPlain(input)) return { schema: leaf(input, "") as JsonSchema, changes }
  const rewriteRef = refRewriter(input)
  const onPath = new Set<object>([input])
  const stack: Array<Frame> = [{ node: input, path: "", slots: slotsOf(input), results: [] }]
  let result: unknown
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!
    const i = f.results.length
    if (i < f.slots.length) {
      const s = f.slots[i]!
      const path = slotPath(f.path, s)
      if (isPlain(s.value) && !onPath.has(s.value)) {
        onPath.add(s.value)
        stack.push({ node: s.value, path, slots: slotsOf(s.value), results: [] })
      } else if (isPlain(s.value)) {
        changes.push({ path, change: "a cycle back to an enclosing schema; replaced by `true`" })
        f.results.push(true)
      } else {
        f.results.push(leaf(s.value, path))
      }
      continue
    }
    stack.pop()
    onPath.delete(f.node)
    const done = rewrite(f, changes, rewriteRef, ignoreRefSiblings)
    if (stack.length === 0) result = done
    else stack[stack.length - 1]!.results.push(done)
  }
  return { schema: result as JsonSchema, changes }
}

/** Applies the rules to one node whose slots are upgraded; returns the input object when nothing changed. */
const rewrite = (f: Frame, changes: Array<Change>, rewriteRef: (ref: string) => string, ignoreRefSiblings: boolean): unknown => {
  const m = new Map<string, unknown>()
  for (const k of Object.keys(f.node)) m.set(k, f.node[k])
  let childChanged = false
  const copies = new Map<string, Array<unknown> | Obj>()
  f.slots.forEach((s, i) => {
    const r = f.results[i]
    if (r === s.value) return
    childChanged = true
    if (s.sub === undefined) return void m.set(s.key, r)
    let copy = copies.get(s.key)
    if (copy === undefined) {
      const cur = f.node[s.key]
      if (Array.isArray(cur)) copy = [...cur]
      else {
        const o: Obj = {}
        for (const k of Object.keys(cur as Obj)) define(o, k, (cur as Obj)[k])
        copy = o
      }
      copies.set(s.key, copy)
      m.set(s.key, copy)
    }
    if (Array.isArray(copy)) copy[Number(s.sub)] = r
    else define(copy, s.sub, r)
  })
  const before = changes.length
  const n: R.Node = { m, path: f.path, report: (k, change) => changes.push({ path: P.append(f.path, k), change }) }
  containers(n)
  R.types(n)
  R.tuples(n)
  R.dependencies(n)
  R.definitions(n)
  R.exclusiveBounds(n)
  const ref = m.get("$ref")
  if (typeof ref === "string" && ignoreRefSiblings) refSiblings(n)
  if (typeof ref === "string") {
    const next = rewriteRef(ref)
    if (next !== ref) {
      m.set("$ref", next)
      n.report("$ref", `\`$ref\` ${ref} follows the renamed keywords: ${next}`)
    }
  }
  if (R.emptyLists(n)) return false
  R.nullable(n)
  schemaUri(n)
  return !childChanged && changes.length === before ? f.node : materialize(m)
}

/** What stays beside a draft-07 `$ref` whose siblings are ignored: annotations and the places other `$ref`s point into. */
const keptBesideRef: ReadonlySet<string> = new Set([...annotations, "$ref", "$schema", "definitions", "$defs"])

/** Draft-07 ignores every other keyword beside a `$ref`: dropped, each reported (only asked for on draft-07 input). */
const refSiblings = (n: R.Node): void => {
  for (const k of [...n.m.keys()]) {
    if (keptBesideRef.has(k)) continue
    n.m.delete(k)
    n.report(k, `\`${k}\` beside \`$ref\` is ignored in draft-07; dropped`)
  }
}

/** Removes applicator keywords whose container has the wrong shape (they would make the schema uncompilable). */
const containers = (n: R.Node): void => {
  for (const [k, v] of [...n.m]) {
    const bad = (schemaArray.has(k) && !Array.isArray(v)) || ((schemaMap.has(k) || k === "dependencies") && !isPlain(v))
    if (bad) {
      n.m.delete(k)
      n.report(k, `\`${k}\` has the wrong shape (${Array.isArray(v) ? "an array" : v === null ? "null" : typeof v}); removed`)
    }
  }
}

/** `$schema`: draft-03…07 and 2019-09 become 2020-12 (every draft-07-only form is rewritten); unknown URIs go. */
const schemaUri = (n: R.Node): void => {
  if (!n.m.has("$schema")) return
  const v = n.m.get("$schema")
  const uri2020 = "https://json-schema.org/draft/2020-12/schema"
  if (typeof v === "string" && /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/.test(v)) return
  if (typeof v === "string" && /json-schema\.org\/(draft-0[3-7]\/|draft\/2019-09\/)schema#?$/.test(v)) {
    n.m.set("$schema", uri2020)
    n.report("$schema", `\`$schema\` ${v} became ${uri2020} (no draft-07-only form is left)`)
    return
  }
  n.m.delete("$schema")
  n.report("$schema", `unknown \`$schema\` ${JSON.stringify(v) ?? String(v)} removed; the schema is read as 2020-12`)
}

/** A plain object from the rule map (nested maps and arrays of maps too), `__proto__` kept as an own key. */
const materialize = (v: unknown): unknown => {
  if (v instanceof Map) {
    const o: Obj = {}
    for (const [k, x] of v) define(o, k, materialize(x))
    return o
  }
  if (Array.isArray(v) && v.some((x) => x instanceof Map)) return v.map(materialize)
  return v
}

const encodeToken = (t: string): string =>
  encodeURI(t.replace(/~/g, "~0").replace(/\//g, "~1")).replace(/#/g, "%23")

/** Maps a local `#/…` pointer through the renames the rules make (`definitions`, tuples, `dependencies`, wraps). */
const refRewriter = (root: Obj) => (ref: string): string => {
  if (!ref.startsWith("#/")) return ref
  const tokens = P.parse(ref)
  const out: Array<string> = []
  let node: unknown = root
  let state: "schema" | "map" | "array" | "other" = "schema"
  for (const t of tokens) {
    if (state === "other" || !(typeof node === "object" && node !== null)) {
      out.push(t)
      state = "other"
      continue
    }
    const here = node as Obj
    node = Object.prototype.hasOwnProperty.call(here, t) ? here[t] : undefined
    if (state !== "schema") {
      out.push(t)
      state = "schema"
      continue
    }
    const m = new Map(Object.keys(here).map((k) => [k, here[k]] as const))
    if (m.has("type")) {
      const mapped = R.mapTypes(m.get("type")).types
      if (mapped === undefined || mapped.length === 0) m.delete("type")
    }
    if (R.wrapsForNull(m) && !R.outside.has(t)) out.push("anyOf", "0")
    const tuple = Array.isArray(here["items"])
    if (t === "definitions" && R.renamesDefinitions(here)) out.push("$defs")
    else if (t === "items" && tuple && !("prefixItems" in here)) out.push("prefixItems")
    else if (t === "additionalItems" && tuple) out.push("items")
    else if (t === "dependencies") out.push("dependentSchemas")
    else out.push(t)
    state = t === "items" ? (tuple ? "array" : "schema")
      : singleSchema.has(t) ? "schema"
      : schemaArray.has(t) ? "array"
      : schemaMap.has(t) || t === "dependencies" ? "map"
      : "other"
  }
  const next = "#" + out.map((t) => "/" + encodeToken(t)).join("")
  return next === "#" + tokens.map((t) => "/" + encodeToken(t)).join("") ? ref : next
}

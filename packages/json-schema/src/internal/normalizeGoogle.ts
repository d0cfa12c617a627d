/**
 * `Normalize.google`: contract section 2. Local `$ref`s are inlined first (a recursive one becomes a
 * described node of the target's type), then every node loses the keywords Google does not take, the
 * human-meaningful ones spilled into `description` as `{pattern: "^foo$", minimum: 0}`; `type` lists
 * become a scalar `type` plus `nullable`; `const` becomes `enum`; objects get a `properties` map.
 *
 * @internal
 */
import type { Change, JsonSchema, JsonSchemaObject } from "../JsonSchema.js"
import { isSchema } from "../JsonSchema.js"
import type { JsonValue } from "../JsonValue.js"
import { typeOf } from "../JsonValue.js"
import type { Kept, Obj, Policy, Report } from "./normalizeGoogleWalk.js"
import { constToEnum, dedupe, failure, full, has, isPlain, makeWalk, set } from "./normalizeGoogleWalk.js"
import { spill, spilled, stripped } from "./normalizeGoogleSpill.js"
import { children } from "./keywords.js"
import * as P from "./pointer.js"

/** The schema Google gets when a tool's schema cannot be normalized. */
export const fallback = (): JsonSchemaObject => ({ type: "object", properties: {} })

/** Google's dialect of a schema, and what was changed or dropped on the way. */
export const google = (schema: JsonSchema): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  if (!isSchema(schema)) {
    const what = schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema
    return { schema: fallback(), changes: [{ path: "", change: `${what} is not a schema; replaced by {type: object, properties: {}}` }] }
  }
  try {
    const w = makeWalk(schema, policy(new WeakSet()))
    const out = full(w, schema, "", 0, [], false) as JsonSchema
    return { schema: out, changes: dedupe(w.changes) }
  } catch (e) {
    return { schema: fallback(), changes: [{ path: "", change: `${failure(e)}; replaced by {type: object, properties: {}}` }] }
  }
}

const kept = (wider: WeakSet<object>) => (site: Obj, ref: string, why: Kept, target: JsonSchema | undefined, path: string, report: Report): Obj => {
  const at = P.append(path, "$ref")
  const t = isPlain(target) ? target["type"] : undefined
  if (why !== "recursive") {
    report(at, `\`$ref\` ${ref} cannot be inlined (${why}); removed (no constraint)`)
    wider.add(site)
    return site
  }
  const out: Obj = typeof t === "string" || Array.isArray(t) ? { type: t } : {}
  for (const k of Object.keys(site)) set(out, k, site[k])
  const note = `(recursive: the same shape as ${ref}, not expanded here)`
  const d = out["description"]
  set(out, "description", typeof d === "string" && d.length > 0 ? `${d} ${note}` : note)
  report(at, `\`$ref\` ${ref} is recursive and Google takes no \`$ref\`: replaced by its type, unconstrained inside, described`)
  wider.add(out)
  return out
}

/**
 * The Google pass's rules. `wider` holds the output nodes that accept more than their input (a constraint
 * stripped in them or below them), so `exclusive` can see which `oneOf` and `not` they sit under.
 */
const policy = (wider: WeakSet<object>): Policy => ({
  inline: true,
  opaque: stripped,
  bool: (b, path, report) => {
    if (b) return {}
    report(path, "the `false` schema became {not: {}} (Google takes no boolean schemas)")
    return { not: {} }
  },
  kept: kept(wider),
  rule: (node, path, report) => {
    if (nullableFlag(node, path, report)) wider.add(node)
    constToEnum(node, path, report)
    if (typeList(node, path, report)) wider.add(node)
    bareEnum(node, path, report)
    if (strip(node, path, report)) wider.add(node)
    objectProperties(node, path, report)
    exclusive(node, path, report, wider)
    if (!wider.has(node) && children(node as never).some((c) => typeof c.schema === "object" && c.schema !== null && wider.has(c.schema))) wider.add(node)
    return node
  }
})

/**
 * A `oneOf` whose branches were widened becomes `anyOf`, and a widened `not` goes. A stripped keyword
 * (`format`, `minLength`, …) may be what kept two branches apart: a value both widened branches accept
 * would then fail `oneOf` though the original accepted it. `anyOf` of the widened branches accepts every
 * value the original does (it is only wider, like every other strip here), and the model sees the same
 * alternatives; exactly-one is left to the local validator, and the change log says so. A widened `not`
 * would exclude more than the original, so it is dropped (wider again), also reported as lossy.
 */
const exclusive = (node: Obj, path: string, report: Report, wider: WeakSet<object>): void => {
  const isWider = (x: unknown) => typeof x === "object" && x !== null && wider.has(x)
  const one = node["oneOf"]
  if (Array.isArray(one) && one.some(isWider)) {
    delete node["oneOf"]
    if (has(node, "anyOf")) {
      report(P.append(path, "oneOf"), "`oneOf` removed: keywords stripped inside its branches may make them overlap, and a value two branches accept would fail it; no branch is required now (lossy)")
    } else {
      set(node, "anyOf", one)
      report(P.append(path, "oneOf"), "`oneOf` became `anyOf`: keywords stripped inside its branches may make them overlap, and a value two branches accept would fail `oneOf`; exactly one branch is no longer required (lossy)")
    }
    wider.add(node)
  }
  if (isWider(node["not"])) {
    delete node["not"]
    report(P.append(path, "not"), "`not` removed: keywords stripped inside it would make it exclude more than the original (lossy)")
    wider.add(node)
  }
}

/** Removes a `nullable` that is not a boolean; whether it did. */
const nullableFlag = (node: Obj, path: string, report: Report): boolean => {
  if (has(node, "nullable") && typeof node["nullable"] !== "boolean") {
    report(P.append(path, "nullable"), `\`nullable: ${JSON.stringify(node["nullable"]) ?? "?"}\` is not a boolean; removed`)
    delete node["nullable"]
    return true
  }
  return false
}

/**
 * `type: [T, "null"]` → `type: T, nullable: true`; two or more non-null types → `anyOf` of the types.
 * Whether it removed a type constraint (a `type` that names none).
 */
const typeList = (node: Obj, path: string, report: Report): boolean => {
  if (!has(node, "type")) return false
  const t = node["type"]
  const at = P.append(path, "type")
  if (typeof t === "string") return false
  if (!Array.isArray(t)) {
    delete node["type"]
    report(at, `\`type\` ${JSON.stringify(t) ?? "?"} is not a type name; removed`)
    return true
  }
  const names = [...new Set(t.filter((x): x is string => typeof x === "string"))]
  const nonNull = names.filter((x) => x !== "null")
  const nullable = names.includes("null") && nonNull.length > 0
  if (nonNull.length === 0) {
    if (names.length === 0) delete node["type"]
    else set(node, "type", "null")
    report(at, names.length === 0 ? "`type` list names no type; removed" : "`type: [\"null\"]` became `type: \"null\"`")
    return names.length === 0
  }
  if (nonNull.length === 1 || has(node, "anyOf") || has(node, "oneOf")) {
    set(node, "type", nonNull[0])
    report(at, nonNull.length === 1
      ? `\`type\` ${JSON.stringify(t)} became \`type: ${nonNull[0]}\`${nullable ? " with `nullable: true`" : ""}`
      : `\`type\` ${JSON.stringify(t)} beside a union: only the first type, \`${nonNull[0]}\`, is kept (lossy)`)
  } else {
    delete node["type"]
    set(node, "anyOf", nonNull.map((x) => (x === "object" ? { type: x, properties: {} } : { type: x })))
    report(at, `\`type\` ${JSON.stringify(t)} became \`anyOf\` of one schema per type${nullable ? " with `nullable: true`" : ""}`)
  }
  if (nullable) set(node, "nullable", true)
  return false
}

/** A node with no type (and no union or reference) whose `enum` values share one type gets that type. */
const bareEnum = (node: Obj, path: string, report: Report): void => {
  const e = node["enum"]
  if (has(node, "type") || !Array.isArray(e) || e.length === 0) return
  if (["anyOf", "oneOf", "allOf", "not", "$ref"].some((k) => has(node, k))) return
  const kinds = new Set<string>()
  for (const v of e) kinds.add(typeOf(v as JsonValue))
  const hasNull = kinds.delete("null")
  if (kinds.has("integer") && kinds.has("number")) kinds.delete("integer")
  if (kinds.size !== 1) return
  const type = [...kinds][0]!
  set(node, "type", type)
  if (hasNull) set(node, "nullable", true)
  report(P.append(path, "enum"), `no \`type\`: the \`enum\` values are all ${type}s${hasNull ? " or null" : ""}, so \`type: ${type}\`${hasNull ? " with `nullable: true`" : ""}`)
}

/** Strips the keywords Google does not take; whether one of them constrained the value. */
const strip = (node: Obj, path: string, report: Report): boolean => {
  const lifted: Array<readonly [string, unknown]> = []
  let widened = false
  for (const k of Object.keys(node)) {
    if (!stripped.has(k)) continue
    if (!inert.has(k)) widened = true
    const keep = spilled.has(k)
    if (keep) lifted.push([k, node[k]])
    delete node[k]
    report(P.append(path, k), `\`${k}\` removed (Google does not support it)${keep ? "; kept in `description`" : ""}`)
  }
  if (lifted.length > 0) spill(node, lifted, path, report)
  if (Array.isArray(node["items"])) {
    delete node["items"]
    report(P.append(path, "items"), "array-form `items` (a draft-07 tuple, like `prefixItems`) removed (Google takes no tuples)")
    widened = true
  }
  return widened
}

/** Stripped keywords that constrain nothing (annotations, and containers whose references were inlined). */
const inert: ReadonlySet<string> = new Set(["$schema", "$defs", "definitions", "examples"])

const objectProperties = (node: Obj, path: string, report: Report): void => {
  if (node["type"] !== "object" || isPlain(node["properties"])) return
  report(P.append(path, "properties"), has(node, "properties") ? "`properties` is not an object; replaced by {}" : "object without `properties`: `properties: {}` added")
  set(node, "properties", {})
}

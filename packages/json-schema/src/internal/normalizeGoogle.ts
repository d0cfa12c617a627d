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
    const w = makeWalk(schema, policy)
    const out = full(w, schema, "", 0, [], false) as JsonSchema
    return { schema: out, changes: dedupe(w.changes) }
  } catch (e) {
    return { schema: fallback(), changes: [{ path: "", change: `${failure(e)}; replaced by {type: object, properties: {}}` }] }
  }
}

const kept = (site: Obj, ref: string, why: Kept, target: JsonSchema | undefined, path: string, report: Report): Obj => {
  const at = P.append(path, "$ref")
  const t = isPlain(target) ? target["type"] : undefined
  if (why !== "recursive") {
    report(at, `\`$ref\` ${ref} cannot be inlined (${why}); removed (no constraint)`)
    return site
  }
  const out: Obj = typeof t === "string" || Array.isArray(t) ? { type: t } : {}
  for (const k of Object.keys(site)) set(out, k, site[k])
  const note = `(recursive: the same shape as ${ref}, not expanded here)`
  const d = out["description"]
  set(out, "description", typeof d === "string" && d.length > 0 ? `${d} ${note}` : note)
  report(at, `\`$ref\` ${ref} is recursive and Google takes no \`$ref\`: replaced by its type, unconstrained inside, described`)
  return out
}

const policy: Policy = {
  inline: true,
  opaque: stripped,
  bool: (b, path, report) => {
    if (b) return {}
    report(path, "the `false` schema became {not: {}} (Google takes no boolean schemas)")
    return { not: {} }
  },
  kept,
  rule: (node, path, report) => {
    nullableFlag(node, path, report)
    constToEnum(node, path, report)
    typeList(node, path, report)
    bareEnum(node, path, report)
    strip(node, path, report)
    objectProperties(node, path, report)
    return node
  }
}

const nullableFlag = (node: Obj, path: string, report: Report): void => {
  if (has(node, "nullable") && typeof node["nullable"] !== "boolean") {
    report(P.append(path, "nullable"), `\`nullable: ${JSON.stringify(node["nullable"]) ?? "?"}\` is not a boolean; removed`)
    delete node["nullable"]
  }
}

/** `type: [T, "null"]` → `type: T, nullable: true`; two or more non-null types → `anyOf` of the types. */
const typeList = (node: Obj, path: string, report: Report): void => {
  if (!has(node, "type")) return
  const t = node["type"]
  const at = P.append(path, "type")
  if (typeof t === "string") return
  if (!Array.isArray(t)) {
    delete node["type"]
    report(at, `\`type\` ${JSON.stringify(t) ?? "?"} is not a type name; removed`)
    return
  }
  const names = [...new Set(t.filter((x): x is string => typeof x === "string"))]
  const nonNull = names.filter((x) => x !== "null")
  const nullable = names.includes("null") && nonNull.length > 0
  if (nonNull.length === 0) {
    if (names.length === 0) delete node["type"]
    else set(node, "type", "null")
    report(at, names.length === 0 ? "`type` list names no type; removed" : "`type: [\"null\"]` became `type: \"null\"`")
    return
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

const strip = (node: Obj, path: string, report: Report): void => {
  const lifted: Array<readonly [string, unknown]> = []
  for (const k of Object.keys(node)) {
    if (!stripped.has(k)) continue
    const keep = spilled.has(k)
    if (keep) lifted.push([k, node[k]])
    delete node[k]
    report(P.append(path, k), `\`${k}\` removed (Google does not support it)${keep ? "; kept in `description`" : ""}`)
  }
  if (lifted.length > 0) spill(node, lifted, path, report)
  if (Array.isArray(node["items"])) {
    delete node["items"]
    report(P.append(path, "items"), "array-form `items` (a draft-07 tuple, like `prefixItems`) removed (Google takes no tuples)")
  }
}

const objectProperties = (node: Obj, path: string, report: Report): void => {
  if (node["type"] !== "object" || isPlain(node["properties"])) return
  report(P.append(path, "properties"), has(node, "properties") ? "`properties` is not an object; replaced by {}" : "object without `properties`: `properties: {}` added")
  set(node, "properties", {})
}

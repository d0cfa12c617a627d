/**
 * `Normalize.cca`: Claude through Cloud Code Assist (contract section 3). The Google pass, then one walk
 * that strips `nullable` (and `type: "null"`, and `null` in an `enum`), merges `allOf`, collapses
 * `anyOf`/`oneOf` (object variants merged, same-type collapsed, mixed types lossy to the first scalar),
 * spills `not` into `description`, and takes nullable properties out of `required`. The result must pass
 * the residual gate and the 2020-12 meta-schema, else the tool gets `{type: "object", properties: {}}`.
 *
 * @internal
 */
import type { Change, JsonSchema } from "../JsonSchema.js"
import { schemaArray, schemaMap, singleSchema } from "./keywords.js"
import { fallback, google } from "./normalizeGoogle.js"
import { metaErrors, residual } from "./normalizeCcaGate.js"
import { absorb, collapse, mergeAll } from "./normalizeCcaUnions.js"
import { spill } from "./normalizeGoogleSpill.js"
import type { Obj, Report } from "./normalizeGoogleWalk.js"
import { failure, has, isPlain, maxDepth, set, TooDeep } from "./normalizeGoogleWalk.js"
import * as P from "./pointer.js"

/** A node after the CCA walk, and whether it accepted `null` before `null` was taken out. */
interface Done {
  readonly schema: Obj
  readonly nullable: boolean
}

const unions: ReadonlySet<string> = new Set(["anyOf", "oneOf", "allOf"])

/** A branch that only said "null" (nothing left but annotations once `null` went). */
const onlyNull = (d: Done): boolean => d.nullable && Object.keys(d.schema).every((k) => k === "description" || k === "title")

/** The CCA dialect of a schema, and what was changed or dropped on the way. */
export const cca = (schema: JsonSchema): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  const g = google(schema)
  const changes: Array<Change> = [...g.changes]
  const report: Report = (path, change) => void changes.push({ path, change })
  let why: string | undefined
  let out: JsonSchema = fallback()
  try {
    out = walk(g.schema, "", 0, report).schema as JsonSchema
    const left = residual(out)
    why = left.length > 0 ? `left after normalization: ${left.join(", ")}` : metaErrors(out)
  } catch (e) {
    why = failure(e)
  }
  if (why === undefined) return { schema: out, changes }
  changes.push({ path: "", change: `Claude via CCA cannot take this schema (${why}); replaced by {type: object, properties: {}}` })
  return { schema: fallback(), changes }
}

const walk = (s: unknown, path: string, depth: number, report: Report): Done => {
  if (depth > maxDepth) throw new TooDeep()
  if (!isPlain(s)) return { schema: {}, nullable: false }
  const node: Obj = {}
  const nullableProps: Array<string> = []
  const pending: Array<readonly [string, ReadonlyArray<Done>]> = []
  for (const key of Object.keys(s)) {
    const v = s[key]
    const at = P.append(path, key)
    if (schemaMap.has(key) && isPlain(v)) {
      const m: Obj = {}
      for (const name of Object.keys(v)) {
        const d = walk(v[name], P.append(at, name), depth + 1, report)
        set(m, name, d.schema)
        if (key === "properties" && d.nullable) nullableProps.push(name)
      }
      set(node, key, m)
    } else if (singleSchema.has(key) || (key === "items" && !Array.isArray(v))) {
      set(node, key, walk(v, at, depth + 1, report).schema)
    } else if ((schemaArray.has(key) || key === "items") && Array.isArray(v)) {
      const done = v.map((x, i) => walk(x, P.append(at, i), depth + 1, report))
      if (unions.has(key)) pending.push([key, done])
      else set(node, key, done.map((d) => d.schema))
    } else set(node, key, v)
  }
  let nullable = nulls(node, path, report)
  for (const [key, done] of pending) nullable = union(node, key, done, P.append(path, key), report) || nullable
  if (has(node, "not")) {
    spill(node, [["not", node["not"]]], path, report)
    delete node["not"]
    report(P.append(path, "not"), "`not` removed (CCA does not take it); kept in `description`")
  }
  leaveRequired(node, nullableProps, path, report)
  if (node["type"] === "object" && !isPlain(node["properties"])) set(node, "properties", {})
  return { schema: node, nullable }
}

/** `nullable`, `type: "null"` and `null` in `enum` go; whether any of them said the node accepts null. */
const nulls = (node: Obj, path: string, report: Report): boolean => {
  let nullable = false
  if (has(node, "nullable")) {
    nullable = node["nullable"] === true
    delete node["nullable"]
    report(P.append(path, "nullable"), "`nullable` removed (CCA does not take it)")
  }
  if (node["type"] === "null") {
    nullable = true
    delete node["type"]
    report(P.append(path, "type"), "`type: \"null\"` removed (CCA does not take it): the value may be left out instead")
  }
  const e = node["enum"]
  if (Array.isArray(e) && e.includes(null)) {
    nullable = true
    const rest = e.filter((x) => x !== null)
    if (rest.length > 0) set(node, "enum", rest)
    else delete node["enum"]
    report(P.append(path, "enum"), "`null` removed from `enum` (CCA does not take null)")
  }
  return nullable
}

/** Collapses one combiner into the node; whether a branch accepted null. */
const union = (node: Obj, key: string, done: ReadonlyArray<Done>, at: string, report: Report): boolean => {
  if (key === "allOf") {
    mergeAll(node, done.map((d) => d.schema), at, report)
    return done.length > 0 && done.every((d) => d.nullable)
  }
  const rest = done.filter((d) => !onlyNull(d)).map((d) => d.schema)
  if (rest.length === 0) report(at, `\`${key}\` accepts only null: removed, the value may be left out instead`)
  else absorb(node, collapse(rest, `\`${key}\``, at, report), at, report)
  return done.some((d) => d.nullable)
}

/** Properties that accept null leave `required` (CCA has no way to say null). */
const leaveRequired = (node: Obj, names: ReadonlyArray<string>, path: string, report: Report): void => {
  const req = node["required"]
  if (names.length === 0 || !Array.isArray(req)) return
  const out = req.filter((n) => !names.includes(n as string))
  if (out.length === req.length) return
  for (const n of names) if (req.includes(n)) report(P.append(path, "required"), `\`${n}\` accepts null: it leaves \`required\``)
  if (out.length > 0) set(node, "required", out)
  else delete node["required"]
}

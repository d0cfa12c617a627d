/**
 * Ajv's errors turned into model-readable `Issue`s: one issue per real problem, anyOf/oneOf collapsed to
 * one issue naming the alternatives (or to the one alternative the value's type fits), duplicates dropped.
 *
 * @internal
 */
import type { ErrorObject } from "ajv"
import type { JsonSchema } from "../JsonSchema.js"
import type { Issue } from "../Validator.js"
import { isRestated } from "./ajvProto.js"
import * as D from "./describe.js"
import * as P from "./pointer.js"

/** What mapping needs beyond the errors: `$ref` resolution and validators for alternatives. */
export interface Context {
  readonly resolve: D.Resolve
  /** Issues of a value against one subschema object of the same root (found by identity). */
  readonly branch: (schema: JsonSchema, value: unknown, prefix: string) => ReadonlyArray<Issue> | undefined
}

type Err = ErrorObject<string, Record<string, any>, unknown>

const subject = (field: string): string => (field === "" ? "The arguments" : `Argument \`${D.name(field)}\``)

const make = (path: string, keyword: string, expected: string, message: string): Issue => ({
  path,
  field: P.toField(path),
  keyword,
  expected,
  message
})

const under = (p: string, prefix: string): boolean => p === prefix || p.startsWith(prefix + "/")

/** Marks the errors an applicator error at `i` was built from: the run just before it, deeper or equal in the value. */
const markInner = (errs: ReadonlyArray<Err>, i: number, dropped: Set<number>): void => {
  const e = errs[i]!
  for (let j = i - 1; j >= 0; j--) {
    const x = errs[j]!
    if (!under(x.instancePath, e.instancePath) || x.parentSchema === e.parentSchema) break
    dropped.add(j)
  }
}

/** Maps Ajv's errors to issues, collapsing alternatives and dropping duplicates. */
export const issuesOf = (all: ReadonlyArray<Err>, ctx: Context, prefix = ""): ReadonlyArray<Issue> => {
  const errors = prefix === "" ? all : all.map((e) => ({ ...e, instancePath: prefix + e.instancePath }))
  const dropped = new Set<number>()
  const out: Array<Issue> = []
  const seen = new Set<string>()
  const push = (issue: Issue) => {
    const key = `${issue.path}\u0000${issue.keyword}\u0000${issue.message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push(issue)
    }
  }
  for (let i = errors.length - 1; i >= 0; i--) {
    const k = errors[i]!.keyword
    if (k === "anyOf" || k === "oneOf" || k === "contains" || k === "propertyNames") markInner(errors, i, dropped)
  }
  errors.forEach((e, i) => {
    if (dropped.has(i) || e.keyword === "if") return
    if (e.keyword === "anyOf" || (e.keyword === "oneOf" && !Array.isArray(e.params["passingSchemas"]))) {
      for (const issue of alternatives(e, ctx)) push(issue)
    } else {
      push(one(e, ctx, errors[i - 1]))
    }
  })
  return withoutShadowedTypes(out)
}

/** A `type` issue says less than an `enum`/`const` issue on the same value ("one of: a, b" names the type too). */
const withoutShadowedTypes = (issues: Array<Issue>): Array<Issue> => {
  const listed = new Set(issues.filter((i) => i.keyword === "enum" || i.keyword === "const").map((i) => i.path))
  return listed.size === 0 ? issues : issues.filter((i) => i.keyword !== "type" || !listed.has(i.path))
}

/** A failed anyOf/oneOf: the one alternative the value's type fits speaks, else one issue names them all. */
const alternatives = (e: Err, ctx: Context): ReadonlyArray<Issue> => {
  const branches = Array.isArray(e.schema) ? (e.schema as ReadonlyArray<JsonSchema>) : []
  const fitting = branches.filter((b) => D.typeFits(b, e.data, ctx.resolve))
  if (fitting.length === 1) {
    const inner = ctx.branch(fitting[0]!, e.data, e.instancePath)
    if (inner !== undefined && inner.length > 0) return inner
  }
  const words = branches.map((b) => D.summary(b, ctx.resolve))
  const expected = words.every((w): w is string => w !== undefined)
    ? [...new Set(words)].join(" or ")
    : `one of ${branches.length} alternatives`
  const field = P.toField(e.instancePath)
  return [make(e.instancePath, e.keyword, expected, `${subject(field)} must be ${expected}; got ${D.got(e.data)}.`)]
}

/** One Ajv error as one issue. */
const one = (e: Err, ctx: Context, before: Err | undefined): Issue => {
  const p = e.params
  const field = P.toField(e.instancePath)
  const s = subject(field)
  const parent = e.parentSchema as JsonSchema | undefined
  switch (e.keyword) {
    case "required":
    case "dependentRequired":
    case "dependencies": {
      const name = String(p["missingProperty"])
      const path = P.append(e.instancePath, name)
      const prop = propertySchema(parent, name, ctx)
      const type = D.summary(prop, ctx.resolve)
      const expected = D.describedAs(prop) ?? type ?? "a value"
      const when = e.keyword === "required" ? "" : ` (required when \`${p["property"]}\` is present)`
      const what = type === undefined ? "" : ` (${type})`
      return make(path, e.keyword, expected, `Missing ${when === "" ? "required " : ""}argument \`${D.name(P.toField(path))}\`${what}${when}.`)
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const name = String(p["additionalProperty"] ?? p["unevaluatedProperty"])
      const path = P.append(e.instancePath, name)
      const allowed = [
        ...keysOf(parent, "properties"),
        ...keysOf(parent, "patternProperties").filter((p) => !isRestated(parent, p)).map((p) => `names matching /${p}/`)
      ]
      const expected = allowed.length === 0 ? "no other arguments" : `one of: ${D.list(allowed)}`
      const tail = allowed.length === 0 ? "no other arguments are allowed" : `allowed: ${D.list(allowed)}`
      return make(path, e.keyword, expected, `Unknown argument \`${D.name(P.toField(path))}\`; ${tail}.`)
    }
    case "propertyNames": {
      const name = String(p["propertyName"])
      const path = P.append(e.instancePath, name)
      const inner = before !== undefined && (before as { propertyName?: unknown }).propertyName === name ? before : undefined
      const phrase = (inner === undefined ? undefined : bound(inner)) ?? D.summary(e.schema as JsonSchema, ctx.resolve)
      const verb = inner !== undefined && counted.has(inner.keyword) ? "have" : "be"
      const expected = phrase === undefined ? "a permitted name" : `a name that must ${verb} ${phrase}`
      const why = phrase === undefined ? "" : `; names must ${verb} ${phrase}`
      return make(path, e.keyword, expected, `Argument name \`${D.name(P.toField(path))}\` is not allowed${why}.`)
    }
    case "type": {
      const expected = D.typeWords(p["type"]) ?? "a value of another type"
      return make(e.instancePath, e.keyword, expected, `${s} must be ${expected}, got ${D.got(e.data)}.`)
    }
    case "enum": {
      const values = Array.isArray(p["allowedValues"]) ? (p["allowedValues"] as ReadonlyArray<unknown>) : []
      const expected = `one of: ${D.members(values)}`
      return make(e.instancePath, e.keyword, expected, `${s} must be ${expected}; got ${D.got(e.data)}.`)
    }
    case "const": {
      const expected = `exactly ${D.preview(p["allowedValue"])}`
      return make(e.instancePath, e.keyword, expected, `${s} must be ${expected}; got ${D.got(e.data)}.`)
    }
    case "oneOf":
      return make(e.instancePath, e.keyword, "exactly one of the alternatives",
        `${s} must match exactly one alternative, but matches ${(p["passingSchemas"] as Array<number>).join(" and ")}.`)
    case "false schema":
      return make(e.instancePath, e.keyword, "no value here", `${s} is not allowed.`)
    case "not": {
      const what = D.summary(e.schema as JsonSchema, ctx.resolve)
      const expected = what === undefined ? "a value the schema does not exclude" : `anything but ${what}`
      return make(e.instancePath, e.keyword, expected, `${s} must not be ${what ?? "what it is"}; got ${D.got(e.data)}.`)
    }
    case "uniqueItems":
      return make(e.instancePath, e.keyword, "unique items",
        `${s} must not contain duplicates (items ${p["j"]} and ${p["i"]} are equal).`)
    default: {
      const expected = bound(e) ?? D.describedAs(parent) ?? e.message ?? "a valid value"
      const verb = counted.has(e.keyword) ? "have" : "be"
      return make(e.instancePath, e.keyword, expected, `${s} must ${verb} ${expected}; got ${D.got(e.data)}.`)
    }
  }
}

const counted: ReadonlySet<string> = new Set([
  "minLength", "maxLength", "minItems", "maxItems", "items", "additionalItems", "unevaluatedItems", "minProperties",
  "maxProperties", "contains"
])

const plural = (n: unknown, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/** The phrase for a limit keyword: "at most 5 items", "at least 1", "a valid date-time". */
const bound = (e: Err): string | undefined => {
  const n = e.params["limit"]
  switch (e.keyword) {
    case "minimum":
      return `at least ${n}`
    case "maximum":
      return `at most ${n}`
    case "exclusiveMinimum":
      return `greater than ${n}`
    case "exclusiveMaximum":
      return `less than ${n}`
    case "minLength":
      return `at least ${plural(n, "character")}`
    case "maxLength":
      return `at most ${plural(n, "character")}`
    case "minItems":
      return `at least ${plural(n, "item")}`
    case "maxItems":
    case "items":
    case "additionalItems":
    case "unevaluatedItems":
      return `at most ${plural(n, "item")}`
    case "minProperties":
      return `at least ${plural(n, "property")}`.replace("propertys", "properties")
    case "maxProperties":
      return `at most ${plural(n, "property")}`.replace("propertys", "properties")
    case "multipleOf":
      return `a multiple of ${e.params["multipleOf"]}`
    case "pattern":
      return `a string matching /${e.params["pattern"]}/`
    case "format":
      return `a valid ${e.params["format"]}`
    case "contains": {
      const min = e.params["minContains"] ?? 1
      const max = e.params["maxContains"]
      return max === undefined ? `at least ${plural(min, "matching item")}` : `at most ${plural(max, "matching item")}`
    }
    default:
      return undefined
  }
}

const keysOf = (s: JsonSchema | undefined, keyword: string): ReadonlyArray<string> => {
  const v = typeof s === "object" ? s[keyword] : undefined
  return typeof v === "object" && v !== null && !Array.isArray(v) ? Object.keys(v) : []
}

/** The schema of property `name` under `parent`, following `$ref`. */
const propertySchema = (parent: JsonSchema | undefined, name: string, ctx: Context): JsonSchema | undefined => {
  if (typeof parent !== "object") return undefined
  const props = parent["properties"]
  if (typeof props !== "object" || props === null || Array.isArray(props)) return undefined
  if (!Object.prototype.hasOwnProperty.call(props, name)) return undefined
  const s = (props as { readonly [k: string]: JsonSchema })[name]
  if (typeof s === "object" && typeof s["$ref"] === "string" && s["description"] === undefined) {
    return ctx.resolve(s["$ref"]) ?? s
  }
  return s
}

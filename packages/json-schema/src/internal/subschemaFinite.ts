/**
 * A finite cloud side (`const`, `enum`, only `null`/`boolean`, a small integer range) decided exactly:
 * each candidate the cloud accepts is validated against the local schema by the real local validator.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonValue } from "../JsonValue.js"
import { equals } from "../JsonValue.js"
import type * as Validator from "../Validator.js"
import { isMultipleOf } from "./decimal.js"
import { inert, numberFormats, stringFormats, universalFormats, untrusted } from "./subschemaKeywords.js"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { child, counter, isSchemaValue, kw, num, proven, regex, show, tick, unknown, where } from "./subschemaModel.js"
import type { Base } from "./subschemaTypes.js"
import { baseOf, declaredTypes } from "./subschemaTypes.js"
import * as Validators from "./subschemaValidator.js"

const MAX_VALUES = 512
const MAX_RANGE = 64

/** The values of a `const`/`enum` node, or undefined when it has neither (or a malformed `enum`). */
const listed = (n: Node): ReadonlyArray<JsonValue> | undefined => {
  const c = kw(n, "const")
  if (c !== undefined) return [c]
  const e = kw(n, "enum")
  return Array.isArray(e) ? e : undefined
}

/** A finite superset of the cloud conjunction, or undefined when none is known. */
export const candidates = (nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>): ReadonlyArray<JsonValue> | undefined => {
  let values: ReadonlyArray<JsonValue> | undefined
  for (const n of nodes) {
    const l = listed(n)
    if (l === undefined) continue
    values = values === undefined ? l : values.filter((v) => l.some((w) => equals(v, w)))
  }
  if (values === undefined && [...types].every((t) => t === "null" || t === "boolean")) values = [null, true, false]
  if (values === undefined && types.size === 1 && types.has("integer")) values = smallRange(nodes)
  if (values === undefined || values.length > MAX_VALUES) return undefined
  // Ajv's `nullable: true` lets `null` through `type` and `enum` alike
  if (nodes.some((n) => kw(n, "nullable") === true) && !values.includes(null)) values = [...values, null]
  return values.filter((v) => types.has(baseOf(v)))
}

const smallRange = (nodes: ReadonlyArray<Node>): ReadonlyArray<JsonValue> | undefined => {
  let lo = -Infinity
  let hi = Infinity
  for (const n of nodes) {
    const min = num(kw(n, "minimum"))
    const emin = num(kw(n, "exclusiveMinimum"))
    const max = num(kw(n, "maximum"))
    const emax = num(kw(n, "exclusiveMaximum"))
    if (min !== undefined) lo = Math.max(lo, Math.ceil(min))
    if (emin !== undefined) lo = Math.max(lo, Math.floor(emin) + 1)
    if (max !== undefined) hi = Math.min(hi, Math.floor(max))
    if (emax !== undefined) hi = Math.min(hi, Math.ceil(emax) - 1)
  }
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi - lo >= MAX_RANGE) return undefined
  const out: Array<number> = []
  for (let i = lo; i <= hi; i++) out.push(i === 0 ? 0 : i)
  return out
}

const simple: ReadonlySet<string> = new Set([
  "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern"
])

const applicators: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else"])

// keywords the validator applies to one type of value only: on a value of another type they hold
const objectOnly: ReadonlySet<string> = new Set([
  "required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties", "propertyNames",
  "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"
])
const arrayOnly: ReadonlySet<string> = new Set([
  "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems"
])

/** Whether key `k` of a node needs no reading for value `v`: read below, an annotation, an applicator, or for another type. */
const readable = (k: string, v: JsonValue): boolean => {
  if (simple.has(k) || applicators.has(k) || inert.has(k) || k === "format" || k === "multipleOf") return true
  if (objectOnly.has(k)) return typeof v !== "object" || v === null || Array.isArray(v)
  return arrayOnly.has(k) && !Array.isArray(v)
}

/**
 * Whether format `f` holds for `v` as the validator (ajv-formats) checks it; undefined for a string format
 * on a string, which needs the format's own test. A format applies to values of its type only, and names
 * ajv-formats does not define are ignored.
 */
const formatHolds = (f: string, v: JsonValue): boolean | undefined => {
  if (typeof v === "string") return stringFormats.has(f) && !universalFormats.has(f) ? undefined : true
  if (typeof v !== "number" || !numberFormats.has(f) || universalFormats.has(f)) return true
  return Number.isInteger(v) && (f === "int64" || (v >= -(2 ** 31) && v <= 2 ** 31 - 1))
}

/** The node's applicators on `v`: false as soon as one certainly fails, undefined where one cannot be read. */
const applied = (n: Node, v: JsonValue): boolean | undefined => {
  const branches = (key: string): ReadonlyArray<boolean | undefined> | undefined => {
    const b = kw(n, key)
    return Array.isArray(b) ? b.map((x, i) => isSchemaValue(x) ? quick(child(n, x, key, i), v) : undefined) : undefined
  }
  const one = (key: string): boolean | undefined => {
    const x = kw(n, key)
    return x === undefined ? true : isSchemaValue(x) ? quick(child(n, x, key), v) : undefined
  }
  const answers: Array<boolean | undefined> = []
  if (kw(n, "allOf") !== undefined) {
    const b = branches("allOf")
    answers.push(b === undefined ? undefined : b.includes(false) ? false : b.includes(undefined) ? undefined : true)
  }
  if (kw(n, "anyOf") !== undefined) {
    const b = branches("anyOf")
    answers.push(b === undefined ? undefined : b.includes(true) ? true : b.includes(undefined) ? undefined : false)
  }
  if (kw(n, "oneOf") !== undefined) {
    const b = branches("oneOf")
    const valid = b?.filter((x) => x === true).length ?? 0
    answers.push(b === undefined ? undefined : valid > 1 ? false : b.includes(undefined) ? undefined : valid === 1)
  }
  if (kw(n, "not") !== undefined) {
    const x = one("not")
    answers.push(x === undefined ? undefined : !x)
  }
  if (kw(n, "if") !== undefined) {
    const c = one("if")
    answers.push(c === undefined ? undefined : one(c ? "then" : "else"))
  }
  return answers.includes(false) ? false : answers.includes(undefined) ? undefined : true
}

/**
 * The validator's answer for a value against a node made only of simple keywords (type with Ajv's
 * `nullable`, enum/const, bounds, exact `multipleOf`, lengths, pattern, a format that needs no string
 * test), applicators over such nodes, annotations, and keywords of other types than the value's, computed
 * directly so no validator is compiled; undefined for anything else.
 */
export const quick = (n: Node, v: JsonValue): boolean | undefined => {
  const s = n.schema
  if (typeof s === "boolean") return s
  let applies = false
  for (const k of Object.keys(s)) {
    if (n.skip?.has(k) === true) continue
    if (!readable(k, v)) return undefined
    if (applicators.has(k)) applies = true
  }
  const t = declaredTypes(n)
  if (t === "invalid") return undefined
  // what the validator refuses to compile: `nullable` without `type` or against it, a format that is not a
  // string, a `multipleOf` that is not a positive number
  const nullable = kw(n, "nullable"), format = kw(n, "format"), m = kw(n, "multipleOf")
  if (nullable !== undefined && (typeof nullable !== "boolean" || t === undefined || (nullable === false && t.has("null")))) return undefined
  if ((format !== undefined && typeof format !== "string") || (m !== undefined && (typeof m !== "number" || !(m > 0)))) return undefined
  const b = baseOf(v)
  if (t !== undefined && !t.has(b)) return false
  const c = kw(n, "const"), e = kw(n, "enum")
  if (c !== undefined && !equals(c, v)) return false
  if (e !== undefined && (!Array.isArray(e) || !e.some((x) => equals(x, v)))) return Array.isArray(e) ? false : undefined
  if (typeof v === "number") {
    const lo = kw(n, "minimum"), elo = kw(n, "exclusiveMinimum"), hi = kw(n, "maximum"), ehi = kw(n, "exclusiveMaximum")
    if ([lo, elo, hi, ehi].some((x) => x !== undefined && typeof x !== "number")) return undefined
    if ((lo !== undefined && v < (lo as number)) || (elo !== undefined && v <= (elo as number))) return false
    if ((hi !== undefined && v > (hi as number)) || (ehi !== undefined && v >= (ehi as number))) return false
    if (m !== undefined && !isMultipleOf(v, m as number)) return false
  }
  if (format !== undefined) {
    const holds = formatHolds(format as string, v)
    if (holds !== true) return holds
  }
  if (typeof v === "string") {
    const min = kw(n, "minLength"), max = kw(n, "maxLength"), p = kw(n, "pattern")
    if ([min, max].some((x) => x !== undefined && typeof x !== "number") || (p !== undefined && typeof p !== "string")) return undefined
    const len = min !== undefined || max !== undefined ? [...v].length : 0
    if ((min !== undefined && len < (min as number)) || (max !== undefined && len > (max as number))) return false
    if (p !== undefined) {
      const r = regex(p as string)
      if (r === undefined) return undefined
      if (!r.test(v)) return false
    }
  }
  return applies ? applied(n, v) : true
}

/**
 * A cloud node read whole: a value on this side satisfies the whole subschema at the node's pointer (the
 * keywords it skips stand elsewhere in the conjunction), so the whole subschema's answer is the sharper one.
 */
const whole = (n: Node): Node => n.skip === undefined || n.ptr === undefined ? n : { schema: n.schema, ptr: n.ptr, ...(n.dialect === undefined ? {} : { dialect: n.dialect }) }

/** Whether a cloud node certainly rejects a value (so the value is not in the cloud side). */
const cloudRejects = (ctx: Ctx, n: Node, v: JsonValue): boolean => {
  const q = quick(whole(n), v)
  if (q !== undefined) return !q
  // Ajv's reading of an untrusted cloud construct may reject what the cloud accepts: keep the value then
  if (n.ptr === undefined || cloudDoubted(ctx)) return false
  const c = Validators.shared.compileAt(ctx.given?.cloud ?? ctx.cloudRoot, n.ptr)
  if (Either.isLeft(c)) return false
  try {
    return !c.right.isValid(v)
  } catch {
    return false
  }
}

/**
 * Whether the cloud schema has a construct whose validator semantics are not trusted (computed once per
 * check); a draft-07 `$ref` with siblings keeps the reading the prover has always given it (Ajv's).
 */
const cloudDoubted = (ctx: Ctx): boolean => {
  if (ctx.cloudUntrusted === undefined) ctx.cloudUntrusted = untrusted(ctx.cloudRoot, ctx.cloudDialect) ?? null
  return ctx.cloudUntrusted !== null && ctx.cloudUntrusted.construct !== "draft-07 $ref with sibling keywords"
}

/**
 * Decides `cloud ⊑ local` over a finite cloud side; undefined when the local node cannot be validated on its
 * own; `"compile"` when, not allowed to `compile`, it meets a value only the local validator can settle.
 */
export function decide(ctx: Ctx, nodes: ReadonlyArray<Node>, values: ReadonlyArray<JsonValue>, local: Node, compile: true): Outcome | undefined
export function decide(ctx: Ctx, nodes: ReadonlyArray<Node>, values: ReadonlyArray<JsonValue>, local: Node, compile: false): Outcome | "compile" | undefined
export function decide(ctx: Ctx, nodes: ReadonlyArray<Node>, values: ReadonlyArray<JsonValue>, local: Node, compile: boolean): Outcome | "compile" | undefined {
  if (local.ptr === undefined) return undefined
  if (ctx.untrusted === undefined) ctx.untrusted = untrusted(ctx.localRoot, ctx.localDialect) ?? null
  // a local draft-07 `$ref` with siblings is compiled here as the executor compiles it (Ajv applies the
  // siblings); so is the whole local root, whatever it holds: its validator is the executor's own
  const executor = local.ptr === "" && local.skip === undefined && ctx.swapped !== true
  if (ctx.untrusted !== null && ctx.untrusted.construct !== "draft-07 $ref with sibling keywords" && !executor) return unknown(ctx.untrusted.construct, ctx.untrusted.path)
  const anchor = nodes.find((n) => kw(n, "enum") !== undefined || kw(n, "const") !== undefined) ?? nodes[0]
  let compiled: Either.Either<Validator.Compiled, Validator.SchemaError> | undefined
  for (const v of values) {
    if (!tick(ctx)) return unknown("work budget exhausted", local.ptr)
    // the cheap answers first; only a value the local schema rejects needs the cloud's compiled one
    if (nodes.some((n) => quick(whole(n), v) === false)) continue
    const q = quick(local, v)
    if (q === true) continue
    if (q === undefined) {
      if (!compile) return "compile"
      compiled ??= Validators.shared.compileAt(ctx.given?.local ?? ctx.localRoot, local.ptr)
      if (Either.isLeft(compiled)) return unknown(`local schema does not compile: ${compiled.left.message}`, local.ptr)
      try {
        if (compiled.right.isValid(v)) continue
      } catch {
        return unknown("the local validator failed on a cloud value", local.ptr)
      }
    }
    if (!compile) return "compile"
    if (nodes.some((n) => cloudRejects(ctx, n, v))) continue
    compiled ??= Validators.shared.compileAt(ctx.given?.local ?? ctx.localRoot, local.ptr)
    if (Either.isLeft(compiled)) return unknown(`local schema does not compile: ${compiled.left.message}`, local.ptr)
    let issues: ReadonlyArray<Validator.Issue>
    try {
      if (compiled.right.isValid(v)) continue
      issues = compiled.right.validate(v)
    } catch {
      return unknown("the local validator failed on a cloud value", local.ptr)
    }
    const detail = issues[0]?.message ?? "rejected"
    // point at the keywords themselves when they sit on these nodes: the cloud's list, the local keyword that failed
    const listKey = anchor === undefined ? undefined : kw(anchor, "const") !== undefined ? "const" : kw(anchor, "enum") !== undefined ? "enum" : undefined
    const failed = issues[0]?.path === "" && kw(local, issues[0].keyword) !== undefined ? issues[0].keyword : undefined
    return counter({
      cloudPath: anchor === undefined ? "" : listKey === undefined ? where(anchor) : where(anchor, listKey),
      localPath: failed === undefined ? local.ptr : where(local, failed),
      message: `the cloud schema allows ${show(v)} here but the local schema rejects it (${detail})`
    }, [v])
  }
  return proven
}

/**
 * A finite cloud side (`const`, `enum`, only `null`/`boolean`, a small integer range) decided exactly:
 * each candidate the cloud accepts is read against the local schema (`subschemaQuick`) or validated by the
 * real local validator.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals } from "@toolgate/json-schema/JsonValue"
import type * as Validator from "@toolgate/json-schema/Validator"
import { untrusted } from "./subschemaKeywords.js"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { counter, kw, num, proven, show, tick, unknown, where } from "./subschemaModel.js"
import { quick } from "./subschemaQuick.js"
import type { Base } from "./subschemaTypes.js"
import { baseOf } from "./subschemaTypes.js"
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

/**
 * A cloud node read whole: a value on this side satisfies the whole subschema at the node's pointer (the
 * keywords it skips stand elsewhere in the conjunction), so the whole subschema's answer is the sharper one.
 */
const whole = (n: Node): Node => n.skip === undefined || n.ptr === undefined ? n : { schema: n.schema, ptr: n.ptr, ...(n.dialect === undefined ? {} : { dialect: n.dialect }) }

/** Whether a cloud node certainly rejects a value (so the value is not in the cloud side). */
const cloudRejects = (ctx: Ctx, n: Node, v: JsonValue): boolean => {
  const q = quick(whole(n), v, ctx.cloudRoot)
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
    if (nodes.some((n) => quick(whole(n), v, ctx.cloudRoot) === false)) continue
    const q = quick(local, v, ctx.localRoot)
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

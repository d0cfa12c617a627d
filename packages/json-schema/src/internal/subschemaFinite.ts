/**
 * A finite cloud side (`const`, `enum`, only `null`/`boolean`, a small integer range) decided exactly:
 * each candidate the cloud accepts is validated against the local schema by the real local validator.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonValue } from "../JsonValue.js"
import { equals } from "../JsonValue.js"
import * as Validator from "../Validator.js"
import { untrusted } from "./subschemaKeywords.js"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { counter, kw, num, proven, show, tick, unknown, where } from "./subschemaModel.js"
import type { Base } from "./subschemaTypes.js"
import { baseOf, typesOf } from "./subschemaTypes.js"

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

/** Whether a cloud node certainly rejects a value (so the value is not in the cloud side). */
const cloudRejects = (ctx: Ctx, n: Node, v: JsonValue): boolean => {
  if (n.ptr === undefined) {
    const t = typesOf(kw(n, "type"))
    return t !== undefined && t !== "invalid" && !t.has(baseOf(v)) && !(baseOf(v) === "integer" && t.has("fraction"))
  }
  const c = Validator.compileAt(ctx.cloudRoot, n.ptr)
  if (Either.isLeft(c)) return false
  try {
    return !c.right.isValid(v)
  } catch {
    return false
  }
}

/** Decides `cloud ⊑ local` over a finite cloud side; undefined when the local node cannot be validated on its own. */
export const decide = (ctx: Ctx, nodes: ReadonlyArray<Node>, values: ReadonlyArray<JsonValue>, local: Node): Outcome | undefined => {
  if (local.ptr === undefined) return undefined
  if (ctx.untrusted === undefined) ctx.untrusted = untrusted(ctx.localRoot, ctx.localDialect) ?? null
  if (ctx.untrusted !== null) return unknown(ctx.untrusted.construct, ctx.untrusted.path)
  const compiled = Validator.compileAt(ctx.localRoot, local.ptr)
  if (Either.isLeft(compiled)) return unknown(`local schema does not compile: ${compiled.left.message}`, local.ptr)
  const anchor = nodes.find((n) => kw(n, "enum") !== undefined || kw(n, "const") !== undefined) ?? nodes[0]
  for (const v of values) {
    if (!tick(ctx)) return unknown("work budget exhausted", local.ptr)
    if (nodes.some((n) => cloudRejects(ctx, n, v))) continue
    let issues: ReadonlyArray<Validator.Issue>
    try {
      if (compiled.right.isValid(v)) continue
      issues = compiled.right.validate(v)
    } catch {
      return unknown("the local validator failed on a cloud value", local.ptr)
    }
    const detail = issues[0]?.message ?? "rejected"
    return counter({
      cloudPath: anchor === undefined ? "" : where(anchor),
      localPath: local.ptr,
      message: `the cloud schema allows ${show(v)} here but the local schema rejects it (${detail})`
    }, [v])
  }
  return proven
}

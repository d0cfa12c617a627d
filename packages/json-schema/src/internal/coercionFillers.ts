/**
 * The cheap pass for values the schema already accepts: drop empty optional fillers (and, for the
 * strict-provider option, forced `null`s). A plan per schema, built once and kept in a WeakMap, lists
 * only the keys where such a drop can happen, so a schema with none costs one lookup per call.
 *
 * @internal
 */
import type { Coercion } from "../Coercion.js"
import { type JsonSchema, type JsonSchemaObject, Pointer } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"
import * as Schema from "./coercionSchema.js"
import * as S from "./coercionScalars.js"

type Mode = "blank" | "nulls"
type Path = ReadonlyArray<string | number>

/** The cheap pass's plan for one schema node, built once per schema object. */
export interface Plan {
  /** Declared keys, optional here, where a blank string is a filler, with which blanks are. */
  readonly blank: Array<readonly [string, "empty" | "blank"]>
  /** Declared keys whose blank strings are declared values (never fillers). */
  readonly keep: Array<string>
  /** For this plan as the entry for a value: every filler key of `flat`, required ones left out. */
  fillers: Map<string, "empty" | "blank">
  /** Whether any plan of `flat` has children to walk. */
  walks: boolean
  /** Declared keys, optional here, whose schema does not accept `null`. */
  readonly nulls: Array<string>
  /** The keys a value must have here (own `required`, `$ref` targets and `allOf` members). */
  required: ReadonlySet<string>
  props: Array<readonly [string, Plan]>
  declared: JsonValue.JsonObject | undefined
  rest: Plan | undefined
  readonly prefix: Array<Plan | undefined>
  items: Plan | undefined
  /** Plans that apply to the same value: `$ref` target, `allOf` members. */
  readonly also: Array<Plan>
  /** This plan and every plan reachable through `also`. */
  flat: ReadonlyArray<Plan>
  blankAny: boolean
  nullsAny: boolean
}

const emptyPlan = (): Plan => ({
  blank: [],
  keep: [],
  fillers: new Map(),
  walks: false,
  nulls: [],
  required: new Set(),
  props: [],
  declared: undefined,
  rest: undefined,
  prefix: [],
  items: undefined,
  also: [],
  flat: [],
  blankAny: false,
  nullsAny: false
})

const none: ReadonlyArray<Coercion> = Object.freeze([])
const plans = new WeakMap<object, Plan>()

/** The plan for `root` (cached by identity); undefined for a boolean schema. */
export const planOf = (root: JsonSchema): Plan | undefined => {
  if (!JsonValue.isObject(root)) return undefined
  let plan = plans.get(root)
  if (plan === undefined) {
    try {
      plan = build(root)
    } catch {
      plan = emptyPlan()
    }
    plans.set(root, plan)
  }
  return plan
}

const build = (root: JsonSchemaObject): Plan => {
  const memo = new Map<object, Plan>()
  const node = (schema: JsonValue.JsonValue | undefined): Plan | undefined => {
    if (!JsonValue.isObject(schema)) return undefined
    const hit = memo.get(schema)
    if (hit !== undefined) return hit
    const plan = emptyPlan()
    memo.set(schema, plan)
    fill(root, schema, plan, node)
    return plan
  }
  const top = node(root)!
  const all = [...memo.values()]
  for (const p of all) p.flat = closure(p)
  settle(all)
  // Only children that can drop something are walked: a leaf property costs nothing per call.
  for (const p of all) {
    p.props = p.props.filter(([, c]) => c.blankAny || c.nullsAny)
    if (p.rest !== undefined && !p.rest.blankAny && !p.rest.nullsAny) p.rest = undefined
  }
  for (const p of all) {
    p.fillers = fillersOf(p)
    p.walks = p.flat.some((q) => q.props.length > 0 || q.rest !== undefined || q.prefix.length > 0 || q.items !== undefined)
  }
  return top
}

const fill = (
  root: JsonSchemaObject,
  schema: JsonSchemaObject,
  plan: Plan,
  node: (s: JsonValue.JsonValue | undefined) => Plan | undefined
): void => {
  plan.required = Schema.requiredOf(root, schema)
  const props = S.objectKeyword(schema, "properties")
  plan.declared = props
  for (const k of props === undefined ? [] : Object.keys(props)) {
    const ps = props![k]!
    if (!S.isSchemaValue(ps)) continue
    const optional = !plan.required.has(k)
    const fillers = Schema.fillers(root, ps)
    if (optional && Schema.mayBeString(root, ps)) fillers === "none" ? plan.keep.push(k) : plan.blank.push([k, fillers])
    if (optional && !Schema.acceptsNull(root, ps)) plan.nulls.push(k)
    const child = node(ps)
    if (child !== undefined) plan.props.push([k, child])
  }
  if (S.objectKeyword(schema, "patternProperties") === undefined) plan.rest = node(S.own(schema, "additionalProperties"))
  const items = S.own(schema, "items")
  const prefix = S.arrayKeyword(schema, "prefixItems") ?? (Array.isArray(items) ? items : [])
  for (const p of prefix) plan.prefix.push(node(p))
  plan.items = node(Array.isArray(items) ? S.own(schema, "additionalItems") : items)
  const target = Schema.refTarget(root, schema)
  if (JsonValue.isObject(target)) plan.also.push(node(target)!)
  for (const m of S.arrayKeyword(schema, "allOf") ?? []) if (JsonValue.isObject(m)) plan.also.push(node(m)!)
}

/** The filler keys of a plan's `flat` set, the more careful rule winning where members disagree. */
const fillersOf = (p: Plan): Map<string, "empty" | "blank"> => {
  const out = new Map<string, "empty" | "blank">()
  for (const q of p.flat) for (const [k, rule] of q.blank) if (out.get(k) !== "empty") out.set(k, rule)
  for (const q of p.flat) for (const k of q.keep) out.delete(k)
  for (const k of p.required) out.delete(k)
  return out
}

const closure = (p: Plan): ReadonlyArray<Plan> => {
  const seen = new Set<Plan>([p])
  const stack = [p]
  while (stack.length > 0) for (const q of stack.pop()!.also) if (!seen.has(q)) (seen.add(q), stack.push(q))
  return [...seen]
}

/** Marks, to a fixpoint (plans can be recursive), which plans can drop anything below them. */
const settle = (all: ReadonlyArray<Plan>): void => {
  const reaches = (p: Plan, mode: Mode): boolean => {
    const any = (q: Plan | undefined) => q !== undefined && (mode === "blank" ? q.blankAny : q.nullsAny)
    return p[mode].length > 0 || p.props.some(([, c]) => any(c)) || any(p.rest) || any(p.items) ||
      p.prefix.some(any) || p.also.some(any)
  }
  let changed = true
  while (changed) {
    changed = false
    for (const p of all) {
      if (!p.blankAny && reaches(p, "blank")) changed = p.blankAny = true
      if (!p.nullsAny && reaches(p, "nulls")) changed = p.nullsAny = true
    }
  }
}


const run = (plan: Plan, v: JsonValue.JsonValue, path: Path, mode: Mode, out: Array<Coercion>): JsonValue.JsonValue => {
  if (!(mode === "blank" ? plan.blankAny : plan.nullsAny)) return v
  if (Array.isArray(v)) return runArray(plan, v, path, mode, out)
  if (!JsonValue.isObject(v)) return v
  let drop: Set<string> | undefined
  let next: Map<string, JsonValue.JsonValue> | undefined
  if (mode === "blank") drop = fillerKeys(plan, v)
  else {
    for (const p of plan.flat) {
      for (const k of p.nulls) if (S.own(v, k) === null && !plan.required.has(k)) (drop ??= new Set()).add(k)
    }
  }
  if (plan.walks) for (const p of plan.flat) {
    for (const [k, child] of p.props) next = visit(v, k, child, drop, next, path, mode, out)
    const rest = p.rest
    if (rest === undefined) continue
    for (const k of Object.keys(v)) {
      if (p.declared === undefined || !Object.hasOwn(p.declared, k)) next = visit(v, k, rest, drop, next, path, mode, out)
    }
  }
  if (drop === undefined && next === undefined) return v
  const entries: Array<readonly [string, JsonValue.JsonValue]> = []
  for (const k of Object.keys(v)) {
    if (drop?.has(k) === true) {
      const rule = mode === "blank" ? "drop-empty-optional" : "drop-strict-null"
      out.push({ path: Pointer.format([...path, k]), field: S.fieldOf([...path, k]), rule, from: v[k]!, to: undefined })
    } else entries.push([k, next !== undefined && next.has(k) ? next.get(k)! : v[k]!])
  }
  return JsonValue.fromEntries(entries)
}

/** The own keys of `v` holding a filler: the value's keys are few, and most strings are not blank. */
const fillerKeys = (plan: Plan, v: JsonValue.JsonObject): Set<string> | undefined => {
  const rules = plan.fillers
  if (rules.size === 0) return undefined
  let drop: Set<string> | undefined
  for (const k in v) {
    const x = v[k]
    if (typeof x !== "string" || !S.isBlank(x)) continue
    const rule = rules.get(k)
    if (rule !== undefined && Schema.isFiller(rule, x) && Object.hasOwn(v, k)) (drop ??= new Set()).add(k)
  }
  return drop
}

const visit = (
  v: JsonValue.JsonObject,
  k: string,
  child: Plan,
  drop: Set<string> | undefined,
  next: Map<string, JsonValue.JsonValue> | undefined,
  path: Path,
  mode: Mode,
  out: Array<Coercion>
): Map<string, JsonValue.JsonValue> | undefined => {
  if (!(mode === "blank" ? child.blankAny : child.nullsAny)) return next
  const x = next !== undefined && next.has(k) ? next.get(k) : S.own(v, k)
  if (x === undefined || drop?.has(k) === true) return next
  const y = run(child, x, [...path, k], mode, out)
  if (y !== x) (next ??= new Map()).set(k, y)
  return next
}

const runArray = (plan: Plan, v: JsonValue.JsonArray, path: Path, mode: Mode, out: Array<Coercion>): JsonValue.JsonValue => {
  let copy: Array<JsonValue.JsonValue> | undefined
  for (const p of plan.flat) {
    for (let i = 0; i < v.length; i++) {
      const child = i < p.prefix.length ? p.prefix[i] : p.items
      if (child === undefined) continue
      const x = copy?.[i] ?? v[i]!
      const y = run(child, x, [...path, i], mode, out)
      if (y !== x) (copy ??= v.slice())[i] = y
    }
  }
  return copy ?? v
}

/**
 * Drops empty optional fillers from a value the schema accepts; keeps the value as it is when nothing
 * is dropped or when dropping would make it invalid (a `minProperties`, a conditional `required`).
 */
export const dropValid = (
  root: JsonSchema,
  isValid: (u: unknown) => boolean,
  value: JsonValue.JsonValue
): { readonly value: JsonValue.JsonValue; readonly coercions: ReadonlyArray<Coercion> } =>
  dropValidWith(planOf(root), isValid, value) ?? { value, coercions: none }

const top: Path = Object.freeze([])
// The hot path allocates nothing when nothing is dropped: coercions collect here, copied out only on a drop.
const scratch: Array<Coercion> = []

/** `dropValid` with the plan in hand (the hot path of `Arguments.prepare`); undefined when nothing changes. */
export const dropValidWith = (
  plan: Plan | undefined,
  isValid: (u: unknown) => boolean,
  value: JsonValue.JsonValue
): { readonly value: JsonValue.JsonValue; readonly coercions: ReadonlyArray<Coercion> } | undefined => {
  if (plan === undefined || !plan.blankAny) return undefined
  // Most plans only look at the top level: a scan of the value's own keys settles it, usually "nothing".
  if (!plan.walks && JsonValue.isObject(value) && fillerKeys(plan, value) === undefined) return undefined
  if (scratch.length !== 0) scratch.length = 0
  const v = run(plan, value, top, "blank", scratch)
  if (v === value) return undefined
  const coercions = scratch.slice()
  scratch.length = 0
  return isValid(v) ? { value: v, coercions } : undefined
}

/** Drops `null`s that a strict provider forced onto properties that are optional and not nullable here. */
export const dropStrictNulls = (
  root: JsonSchema,
  value: JsonValue.JsonValue
): { readonly value: JsonValue.JsonValue; readonly coercions: ReadonlyArray<Coercion> } => {
  const plan = planOf(root)
  if (plan === undefined || !plan.nullsAny) return { value, coercions: none }
  const out: Array<Coercion> = []
  const v = run(plan, value, [], "nulls", out)
  return out.length === 0 ? { value, coercions: none } : { value: v, coercions: out }
}

/** Whether a plan can drop an empty filler anywhere (when not, valid values skip the pass entirely). */
export const dropsFillers = (plan: Plan | undefined): boolean => plan !== undefined && plan.blankAny

/**
 * How the model classifies a planned call: known tools by their catalogue entry, unknown names, strict-mode
 * nulls, and refs, whose target is chosen here among the calls the walk has answered so far (a `valid` ref
 * points at a successful call of this turn; the broken modes point nowhere, at a failure, through a
 * forbidden segment, at a value of the wrong type, at a sibling of the same round, or at an artifact).
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import type { CallPlan, RefCall } from "./sessionArbitraries.js"
import type { ToolName } from "./sessionTools.js"

/** An answered call a ref may point at. */
export interface Target {
  readonly id: string
  readonly status: "ok" | "failed" | "maybe"
  readonly tool?: ToolName
  readonly result?: J.JsonValue
}

/** A call as rendered (name, raw arguments) and what validation must say about it. */
export interface Classified {
  readonly name: string
  readonly raw: J.JsonValue | undefined
  readonly verdict: { readonly _tag: "valid"; readonly tool: ToolName; readonly args: J.JsonValue } | { readonly _tag: "invalid"; readonly field?: string } | { readonly _tag: "unknown" }
}

const ref = (id: string, path: string | undefined): J.JsonObject => path === undefined ? { $tool: id } : { $tool: id, $path: path }
const get = (u: J.JsonValue | undefined, key: string): J.JsonValue =>
  typeof u === "object" && u !== null && !Array.isArray(u) && Object.hasOwn(u, key) ? (u as J.JsonObject)[key]! : null

/** A ref call shaped to resolve, from a successful target (its args once resolved are `args`). */
const resolvingRef = (t: Target, pick: number): { tool: ToolName; raw: J.JsonObject; args: J.JsonValue; field: string } => {
  if (t.tool === "sort_list") {
    return { tool: "sort_list", raw: { items: ref(t.id, "result.sorted"), order: "asc" }, args: { items: get(t.result, "sorted"), order: "asc" }, field: "items" }
  }
  if (t.tool === "lookup" && pick % 2 === 1) {
    return { tool: "lookup", raw: { city: ref(t.id, "result.city") }, args: { city: get(t.result, "city") }, field: "city" }
  }
  const path = t.tool === "lookup" ? "temp" : t.tool === "pick_even" ? "n" : "level"
  return { tool: "set_volume", raw: { level: ref(t.id, `result.${path}`) }, args: { level: get(t.result, path) }, field: "level" }
}

const nth = <A>(list: ReadonlyArray<A>, pick: number): A | undefined => list.length === 0 ? undefined : list[pick % list.length]

/** What the walk knows when a call is rendered. */
export interface RefContext {
  readonly chaining: boolean
  readonly scope: "turn" | "session"
  readonly turnTargets: ReadonlyArray<Target>
  readonly earlierTurns: ReadonlyArray<Target & { readonly committed: boolean }>
  readonly sameRound: ReadonlyArray<string>
  /** Call ids repeat across rounds: a ref could mean several calls, so every ref is rendered to point nowhere. */
  readonly reused: boolean
  /** The tools went out `strict` (dialect `openai-strict`): a null optional is dropped before validation. */
  readonly strict: boolean
}

/** Renders a ref call against what the walk knows, and classifies it. */
const refCall = (plan: RefCall, ctx: RefContext): Classified => {
  const broken = (tool: ToolName, raw: J.JsonObject, field: string): Classified =>
    ({ name: tool, raw, verdict: ctx.chaining ? { _tag: "invalid", field } : { _tag: "invalid" } })
  const missing = broken("set_volume", { level: ref(`call_missing_${plan.pick}`, "result.level") }, "level")
  const anyId = nth([...ctx.turnTargets.map((t) => t.id), ...ctx.sameRound], plan.pick) ?? `call_missing_${plan.pick}`
  const ok = ctx.turnTargets.filter((t) => t.status === "ok")
  if (ctx.reused) return missing
  switch (plan.mode) {
    case "valid": {
      const t = nth(ok, plan.pick)
      if (t === undefined) return missing
      const r = resolvingRef(t, plan.pick)
      return { name: r.tool, raw: r.raw, verdict: ctx.chaining ? { _tag: "valid", tool: r.tool, args: r.args } : { _tag: "invalid" } }
    }
    case "otherTurn": {
      const t = nth(ctx.earlierTurns.filter((t) => t.status === "ok"), plan.pick)
      if (t === undefined) return missing
      const r = resolvingRef(t, plan.pick)
      const resolves = ctx.chaining && ctx.scope === "session" && t.committed
      return resolves ? { name: r.tool, raw: r.raw, verdict: { _tag: "valid", tool: r.tool, args: r.args } } : broken(r.tool, r.raw, r.field)
    }
    case "typeMismatch": {
      const t = nth(ok, plan.pick)
      if (t === undefined) return missing
      if (t.tool === "set_volume") return broken("lookup", { city: ref(t.id, "result.level") }, "city")
      return broken("set_volume", { level: ref(t.id, t.tool === "lookup" ? "result.city" : "result.sorted") }, "level")
    }
    case "failedTarget": {
      const t = nth(ctx.turnTargets.filter((t) => t.status === "failed"), plan.pick)
      return t === undefined ? missing : broken("set_volume", { level: ref(t.id, "result.level") }, "level")
    }
    case "sameRound": {
      const id = nth(ctx.sameRound, plan.pick)
      return id === undefined ? missing : broken("set_volume", { level: ref(id, "result.level") }, "level")
    }
    case "missingPath":
      return broken("set_volume", { level: ref(anyId, "result.nope") }, "level")
    case "protoPath":
      return broken("set_volume", { level: ref(anyId, nth(["__proto__", "result.constructor", "result.__proto__.level", "prototype"], plan.pick)) }, "level")
    case "artifact":
      return broken("set_volume", { level: { $tool: anyId, $artifact: "a1" } }, "level")
    case "unknownId":
      return missing
  }
}

/** Renders and classifies one planned call. */
export const classify = (plan: CallPlan, ctx: RefContext): Classified => {
  switch (plan._tag) {
    case "Valid":
      return { name: plan.tool, raw: plan.args.raw, verdict: { _tag: "valid", tool: plan.tool, args: plan.args.canonical ?? null } }
    case "Invalid":
      return { name: plan.tool, raw: plan.args.raw, verdict: { _tag: "invalid" } }
    case "Unknown":
      return { name: plan.name, raw: plan.args.raw, verdict: { _tag: "unknown" } }
    case "StrictNull":
      return { name: "lookup", raw: plan.args.raw, verdict: ctx.strict ? { _tag: "valid", tool: "lookup", args: plan.args.canonical ?? null } : { _tag: "invalid" } }
    case "Ref": {
      const c = refCall(plan, ctx)
      return plan.asText ? { ...c, raw: JSON.stringify(c.raw) } : c
    }
  }
}

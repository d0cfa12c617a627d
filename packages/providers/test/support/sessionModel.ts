/**
 * The property test's model of a turn: walks a `SessionPlan` the way DESIGN.md's "A turn, as data flows"
 * says a session must, rendering each round into the `StreamEvent`s the scripted provider will emit and
 * predicting, per send, the outcome (committed, or which typed error), the provider requests, the repairs,
 * each call's envelope kind and which executors run. Refs get their targets here, since only the walk
 * knows which earlier calls succeeded.
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import type { CallPlan, RefCall, SessionPlan, Usage, Violation } from "./sessionArbitraries.js"
import { resultOf, type ToolName } from "./sessionTools.js"

/** A scripted event, as plain data (the `StreamEvent` union's encoded form). */
export type Event = { readonly _tag: string } & Readonly<Record<string, unknown>>
/** A scripted round: its events, or a provider failure. */
export type ScriptRound = ReadonlyArray<Event> | { readonly fail: { readonly reason: string; readonly retryable: boolean } }

/** An envelope kind, or `success`. */
export type Answer = "success" | "invalid_args" | "rejected" | "tool_not_found" | "not_found"

/** A call of a reached round, as the model expects it to be answered. */
export interface ExpectedCall {
  readonly id: string
  readonly name: string
  /** The arguments exactly as sent (`undefined`: no `arguments` key). */
  readonly arguments: J.JsonValue | undefined
  /** The envelope kinds it may be answered with (two only when a valid call shares a round with an unknown tool). */
  readonly answers: ReadonlyArray<Answer>
  /** For a broken ref with chaining on: the `field` its `invalid_args` envelope must name. */
  readonly field?: string
  /** Whether its executor runs (`maybe`: beside an unknown tool, see `answers`). */
  readonly runs: "yes" | "no" | "maybe"
}

/** A round with calls that the turn reached and answered. */
export interface ExpectedRound {
  /** The round trip it came from (1-based, as `SessionEvent`s count rounds). */
  readonly round: number
  readonly text: string
  readonly calls: ReadonlyArray<ExpectedCall>
}

/** The tags a send may fail with in these sessions. */
export type FailureTag = "ToolArgumentRepairExhausted" | "RoundTripLimitExceeded" | "ProviderEventContractViolation" | "ProviderError"

/** What one send must do. */
export interface ExpectedTurn {
  readonly outcome: "Committed" | FailureTag
  /** Provider requests made (round-trip slots spent). */
  readonly requests: number
  readonly repairs: number
  /** Requests that carried a repair's `invalid_args` answers back to the model (a repair whose next round trip was refused is spent, not carried). */
  readonly carried: number
  /** The rounds with calls that were answered (for a committed turn: its history between User and the answer). */
  readonly rounds: ReadonlyArray<ExpectedRound>
  /** The final answer's text (committed turns). */
  readonly finalText: string
  readonly inputTokens: number
  readonly outputTokens: number
}

interface Target {
  readonly id: string
  readonly status: "ok" | "failed" | "maybe"
  readonly tool?: ToolName
  readonly result?: J.JsonValue
}

interface Classified {
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
  const path = t.tool === "lookup" ? "temp" : "level"
  return { tool: "set_volume", raw: { level: ref(t.id, `result.${path}`) }, args: { level: get(t.result, path) }, field: "level" }
}

const nth = <A>(list: ReadonlyArray<A>, pick: number): A | undefined => list.length === 0 ? undefined : list[pick % list.length]

interface RefContext {
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

const classify = (plan: CallPlan, ctx: RefContext): Classified => {
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

/** The round's events with the planned contract violation applied. */
const withViolation = (events: Array<Event>, violation: Violation | undefined): ReadonlyArray<Event> => {
  const done = events.pop()!
  switch (violation) {
    case undefined: return [...events, done]
    case "missingDone": return events
    case "eventAfterDone": return [...events, done, { _tag: "TextDelta", text: "late" }]
    case "wrongModel": return [...events, { _tag: "ToolCallStarted", id: "provider_1", name: "set_volume" }, done]
    case "duplicateCallId": {
      const first = events.find((e) => e._tag === "ToolCallComplete")
      return first === undefined ? [...events, done] : [...events, first, done]
    }
  }
}

const usageEvent = (usage: Usage): ReadonlyArray<Event> =>
  usage === undefined ? [] : [{ _tag: "Usage", inputTokens: usage[0], outputTokens: usage[1] }]

const reusedIds = ["__proto__", "call_1", "constructor"] as const

/** What the walk produced: the script for the provider and the expectation of every send. */
export interface Simulation {
  readonly script: { readonly turns: ReadonlyArray<ReadonlyArray<ScriptRound>> }
  readonly expected: ReadonlyArray<ExpectedTurn>
}

/** Walks the plan: renders every round and predicts every send. */
export const simulate = (plan: SessionPlan): Simulation => {
  const earlierTurns: Array<Target & { readonly committed: boolean }> = []
  const turns: Array<Array<ScriptRound>> = []
  const expected: Array<ExpectedTurn> = []
  plan.turns.forEach((rounds, turnIndex) => {
    const script: Array<ScriptRound> = []
    const turnTargets: Array<Target> = []
    const reached: Array<ExpectedRound> = []
    let requests = 0, repairs = 0, carried = 0, pending = false, inputTokens = 0, outputTokens = 0, finalText = ""
    let outcome: ExpectedTurn["outcome"] | undefined
    rounds.forEach((round, r) => {
      const live = outcome === undefined
      if (live && requests >= plan.roundTrips) outcome = "RoundTripLimitExceeded"
      const counted = outcome === undefined
      if (counted) {
        requests++
        if (pending) carried++
        pending = false
      }
      if (round._tag === "Fail") {
        script.push({ fail: { reason: round.reason, retryable: round.retryable } })
        if (counted) outcome = "ProviderError"
        return
      }
      if (round._tag === "Answer") {
        script.push(withViolation([...round.chunks.map((text) => ({ _tag: "TextDelta", text })), ...usageEvent(round.usage), { _tag: "Done" }], round.violation))
        if (!counted) return
        if (round.violation !== undefined) outcome = "ProviderEventContractViolation"
        else {
          inputTokens += round.usage?.[0] ?? 0
          outputTokens += round.usage?.[1] ?? 0
          finalText = round.chunks.join("")
          outcome = "Committed"
        }
        return
      }
      const sameRound: Array<string> = []
      const calls = round.calls.map((c, k) => {
        const id = plan.ids === "unique" ? `t${turnIndex}r${r}c${k}` : reusedIds[k % reusedIds.length]!
        const classified = classify(c, { chaining: plan.chaining, scope: plan.scope, turnTargets, earlierTurns, sameRound, reused: plan.ids !== "unique", strict: plan.dialect === "openai-strict" })
        sameRound.push(id)
        return { id, ...classified }
      })
      const events: Array<Event> = round.text === "" ? [] : [{ _tag: "TextDelta", text: round.text }]
      for (const c of calls) {
        if (round.partials) events.push({ _tag: "ToolCallPartial", id: c.id, name: c.name, argsDelta: typeof c.raw === "string" ? c.raw.slice(0, 4) : "{" })
        events.push({ _tag: "ToolCallComplete", id: c.id, name: c.name, ...(c.raw === undefined ? {} : { arguments: c.raw }) })
      }
      script.push(withViolation([...events, ...usageEvent(round.usage), { _tag: "Done" }], round.violation))
      if (!counted) return
      if (round.violation !== undefined) {
        outcome = "ProviderEventContractViolation"
        return
      }
      inputTokens += round.usage?.[0] ?? 0
      outputTokens += round.usage?.[1] ?? 0
      const anyInvalid = calls.some((c) => c.verdict._tag === "invalid")
      const anyUnknown = calls.some((c) => c.verdict._tag === "unknown")
      if (anyInvalid && repairs >= plan.repairs) {
        outcome = "ToolArgumentRepairExhausted"
        return
      }
      if (anyInvalid) {
        repairs++
        pending = true
      }
      reached.push({
        round: requests,
        text: round.text,
        calls: calls.map((c): ExpectedCall => {
          const base = { id: c.id, name: c.name, arguments: c.raw }
          const v = c.verdict
          if (v._tag === "unknown") {
            turnTargets.push({ id: c.id, status: "failed" })
            return { ...base, answers: ["tool_not_found"], runs: "no" }
          }
          if (v._tag === "invalid") {
            turnTargets.push({ id: c.id, status: "failed" })
            return { ...base, answers: ["invalid_args"], runs: "no", ...(v.field === undefined ? {} : { field: v.field }) }
          }
          if (anyInvalid) {
            turnTargets.push({ id: c.id, status: "failed" })
            return { ...base, answers: ["rejected"], runs: "no" }
          }
          const result = resultOf(v.tool, v.args)
          const answer: Answer = result === undefined ? "not_found" : "success"
          turnTargets.push(anyUnknown ? { id: c.id, status: "maybe" } : result === undefined ? { id: c.id, status: "failed" } : { id: c.id, status: "ok", tool: v.tool, result })
          return { ...base, answers: anyUnknown ? [answer, "rejected"] : [answer], runs: anyUnknown ? "maybe" : "yes" }
        })
      })
    })
    if (outcome === undefined) {
      // the script has no further round: the request is made, and the scripted provider fails it
      if (requests >= plan.roundTrips) outcome = "RoundTripLimitExceeded"
      else {
        requests++
        if (pending) carried++
        outcome = "ProviderError"
      }
    }
    const committed = outcome === "Committed"
    for (const t of turnTargets) earlierTurns.push({ ...t, committed })
    turns.push(script)
    expected.push({ outcome, requests, repairs, carried, rounds: reached, finalText, inputTokens, outputTokens })
  })
  return { script: { turns }, expected }
}

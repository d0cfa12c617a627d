/**
 * The property test's model of a turn: walks a `SessionPlan` the way docs/architecture.md's turn pipeline
 * says a session must, rendering each round into the `StreamEvent`s the scripted provider will emit and
 * predicting, per send, the outcome (committed, or which typed error), the provider requests, the repairs,
 * each call's envelope kind and which executors run. Refs get their targets here, since only the walk
 * knows which earlier calls succeeded.
 */
import type { JsonValue as J } from "@toolgate/json-schema"
import type { SessionPlan, Usage, Violation } from "./sessionArbitraries.js"
import { classify, type Target } from "./sessionRefs.js"
import { resultOf } from "./sessionTools.js"

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
export type FailureTag = "ToolArgumentRepairExhausted" | "RoundTripLimitExceeded" | "ProviderEventContractViolation" | "ProviderError" | "ToolChoiceUnsupported" | "Interrupted"

/** What one send must do. */
export interface ExpectedTurn {
  readonly outcome: "Committed" | FailureTag
  /** The script turn the send plays: the User messages in history before it (`-1`: refused, plays none). */
  readonly scriptIndex: number
  /** When the plan undoes after this send: the committed turn that undo takes back (`undefined`: none is left). */
  readonly undo?: { readonly turn: number | undefined }
  /** The send's tool choice. */
  readonly choice: "auto" | "required" | "none"
  /** The turn number the send gets (sends refused before their user message is recorded get none: 0). */
  readonly turn: number
  /** Round-trip slots spent (`RoundStarted` events). */
  readonly roundTrips: number
  /** Requests the provider received (a round trip the pre-transmit filter blocked never reaches it). */
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
  /** The recorded sends' rounds in order: the script when no undo takes a User message out of history. */
  readonly script: { readonly turns: ReadonlyArray<ReadonlyArray<ScriptRound>> }
  /** Each send's rounds (empty for a refused send), to be put at its `scriptIndex` just before it. */
  readonly rounds: ReadonlyArray<ReadonlyArray<ScriptRound>>
  readonly expected: ReadonlyArray<ExpectedTurn>
}

/** Walks the plan: renders every round and predicts every send. */
export const simulate = (plan: SessionPlan): Simulation => {
  const earlierTurns: Array<Target & { committed: boolean; readonly turn: number }> = []
  const turns: Array<Array<ScriptRound>> = []
  const sendRounds: Array<ReadonlyArray<ScriptRound>> = []
  const expected: Array<ExpectedTurn> = []
  let attempts = 0
  let recorded = 0
  let users = 0
  const committedTurns: Array<number> = []
  /** `undoLastTurn` after send `i`: the last committed turn leaves history (its User message too) and the session's results. */
  const undoAfter = (i: number): { readonly undo?: { readonly turn: number | undefined } } => {
    if (plan.undoAfter[i] !== true) return {}
    const turn = committedTurns.pop()
    if (turn !== undefined) {
      users--
      for (const t of earlierTurns) if (t.turn === turn) t.committed = false
    }
    return { undo: { turn } }
  }
  plan.turns.forEach((rounds, turnIndex) => {
    const choice = plan.choices[turnIndex] ?? "auto"
    if (choice !== "auto" && !plan.supportsToolChoice) {
      // refused before the user message is recorded: no turn, no script turn consumed, nothing else
      sendRounds.push([])
      expected.push({ outcome: "ToolChoiceUnsupported", scriptIndex: -1, ...undoAfter(turnIndex), choice, turn: 0, roundTrips: 0, requests: 0, repairs: 0, carried: 0, rounds: [], finalText: "", inputTokens: 0, outputTokens: 0 })
      return
    }
    recorded++
    const scriptIndex = users++
    const script: Array<ScriptRound> = []
    const turnTargets: Array<Target> = []
    const reached: Array<ExpectedRound> = []
    let roundTrips = 0, requests = 0, repairs = 0, carried = 0, pending = false, inputTokens = 0, outputTokens = 0, finalText = ""
    let outcome: ExpectedTurn["outcome"] | undefined
    /** The call ids of the turn's collected rounds: the session renames a repeated one `<id>~<round>`. */
    const usedIds = new Set<string>()
    const distinct = (id: string, round: number): string => {
      let out = id !== "" && !usedIds.has(id) ? id : `${id === "" ? "call" : id}~${round}`
      while (usedIds.has(out)) out += "~"
      usedIds.add(out)
      return out
    }
    /** Spends a round trip and sends the request, unless the pre-transmit filter blocks it (then the send fails). */
    const send = (): boolean => {
      roundTrips++
      const attempt = attempts++
      if (plan.network?.failAt === attempt) {
        outcome = "ProviderError"
        return false
      }
      if (plan.network?.interruptAt === attempt) {
        outcome = "Interrupted"
        return false
      }
      requests++
      if (pending) carried++
      pending = false
      return true
    }
    rounds.forEach((round, r) => {
      const live = outcome === undefined
      if (live && roundTrips >= plan.roundTrips) outcome = "RoundTripLimitExceeded"
      const counted = outcome === undefined && send()
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
      const renamed = calls.map((c) => distinct(c.id, roundTrips))
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
        round: roundTrips,
        text: round.text,
        calls: calls.map((c, k): ExpectedCall => {
          const base = { id: renamed[k]!, name: c.name, arguments: c.raw }
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
      if (roundTrips >= plan.roundTrips) outcome = "RoundTripLimitExceeded"
      else if (send()) outcome = "ProviderError"
    }
    const committed = outcome === "Committed"
    for (const t of turnTargets) earlierTurns.push({ ...t, committed, turn: recorded })
    if (committed) committedTurns.push(recorded)
    turns.push(script)
    sendRounds.push(script)
    expected.push({ outcome: outcome!, scriptIndex, ...undoAfter(turnIndex), choice, turn: recorded, roundTrips, requests, repairs, carried, rounds: reached, finalText, inputTokens, outputTokens })
  })
  return { script: { turns }, rounds: sendRounds, expected }
}

/**
 * Provider-driven sessions as plans: per send, one round of lifecycle events (calls started, each ended
 * by one terminal, terminals in any order), sometimes breaking the contract on purpose. `simulate` renders
 * the script and predicts each send: a violation rolls back with `ProviderEventContractViolation`; else the
 * turn commits an Assistant (the started calls, in start order) and a ToolResult per terminal, in terminal order.
 */
import { FastCheck as fc } from "effect"
import type { JsonValue as J } from "@toolgate/json-schema"
import type { Event, ScriptRound } from "@toolgate/test-support/sessionModel"

/** How a provider-driven call ends. */
export type Terminal = "Completed" | "CompletedEnvelope" | "Denied" | "Failed" | "Cancelled" | "Conflict"

/** A way a provider-driven round breaks the contract. */
export type Violation =
  | "terminalWithoutStart" | "duplicateStart" | "duplicateTerminal" | "startWithoutTerminal" | "missingDone" | "eventAfterDone" | "appDrivenEvent"

/** One send's round. */
export interface Round {
  readonly text: string
  readonly calls: ReadonlyArray<{ readonly name: string; readonly terminal: Terminal; readonly arguments: J.JsonValue | undefined }>
  /** The order terminals arrive in (indexes into `calls`). */
  readonly order: ReadonlyArray<number>
  readonly violation: Violation | undefined
}

/** The envelope kind each terminal stands for. */
export const kindOf: Readonly<Record<Terminal, string>> = {
  Completed: "success",
  CompletedEnvelope: "not_found",
  Denied: "user_denied",
  Failed: "execution_error",
  Cancelled: "unavailable",
  Conflict: "rejected"
}

const terminal: fc.Arbitrary<Terminal> = fc.constantFrom("Completed", "CompletedEnvelope", "Denied", "Failed", "Cancelled", "Conflict")
const call = fc.record({
  name: fc.constantFrom("web_search", "set_volume", "__proto__"),
  terminal,
  arguments: fc.constantFrom<J.JsonValue | undefined>(undefined, { q: "x" }, "{\"q\":1}", null)
})

/** One send's round: 0–3 calls, terminals shuffled, a violation one time in four. */
export const round: fc.Arbitrary<Round> = fc.array(call, { maxLength: 3 }).chain((calls) =>
  fc.record({
    text: fc.constantFrom("", "Searching.", "Done."),
    calls: fc.constant(calls),
    order: fc.shuffledSubarray(calls.map((_, i) => i), { minLength: calls.length, maxLength: calls.length }),
    violation: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom<Violation>("terminalWithoutStart", "duplicateStart", "duplicateTerminal", "startWithoutTerminal", "missingDone", "eventAfterDone", "appDrivenEvent") }
    )
  }))

const terminalEvent = (id: string, t: Terminal): Event => {
  switch (t) {
    case "Completed": return { _tag: "ToolCallCompleted", id, result: { hits: 3 } }
    case "CompletedEnvelope": return { _tag: "ToolCallCompleted", id, result: { ok: false, kind: "not_found", message: "Nothing there.", retryable: false } }
    case "Denied": return { _tag: "ToolCallDenied", id, reason: "the user said no" }
    case "Failed": return { _tag: "ToolCallFailed", id, message: "boom" }
    case "Cancelled": return { _tag: "ToolCallCancelled", id }
    case "Conflict": return { _tag: "ToolCallConflict", id, reason: "locked" }
  }
}

/** What a send must do: roll back with a violation, or commit these messages after the user's. */
export type Expected =
  | { readonly _tag: "Violation" }
  | {
    readonly _tag: "Committed"
    readonly text: string
    readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments?: J.JsonValue }>
    readonly results: ReadonlyArray<{ readonly callId: string; readonly name: string; readonly kind: string }>
  }

/** The script (one round per send) and each send's expectation. */
export const simulate = (rounds: ReadonlyArray<Round>): { readonly script: { readonly turns: ReadonlyArray<ReadonlyArray<ScriptRound>> }; readonly expected: ReadonlyArray<Expected> } => {
  const turns = rounds.map((r, t) => {
    const ids = r.calls.map((_, k) => `p${t}_${k}`)
    const starts: Array<Event> = r.calls.map((c, k) => ({ _tag: "ToolCallStarted", id: ids[k]!, name: c.name, ...(c.arguments === undefined ? {} : { arguments: c.arguments }) }))
    const ends: Array<Event> = r.order.map((k) => terminalEvent(ids[k]!, r.calls[k]!.terminal))
    const text: Array<Event> = r.text === "" ? [] : [{ _tag: "TextDelta", text: r.text }]
    const done: Event = { _tag: "Done" }
    let events: Array<Event> = [...text, ...starts, ...ends, done]
    const broken = r.violation === undefined || (r.calls.length === 0 && ["duplicateStart", "duplicateTerminal", "startWithoutTerminal"].includes(r.violation)) ?
      "terminalWithoutStart" : r.violation
    switch (r.violation === undefined ? undefined : broken) {
      case "terminalWithoutStart": events = [...text, ...starts, terminalEvent("ghost", "Cancelled"), ...ends, done]; break
      case "duplicateStart": events = [...text, ...starts, starts[0]!, ...ends, done]; break
      case "duplicateTerminal": events = [...text, ...starts, ...ends, ends[0]!, done]; break
      case "startWithoutTerminal": events = [...text, ...starts, ...ends.slice(1), done]; break
      case "missingDone": events = [...text, ...starts, ...ends]; break
      case "eventAfterDone": events = [...text, ...starts, ...ends, done, { _tag: "TextDelta", text: "late" }]; break
      case "appDrivenEvent": events = [...text, { _tag: "ToolCallComplete", id: "app_1", name: "set_volume" }, ...starts, ...ends, done]; break
    }
    const expected: Expected = r.violation !== undefined ? { _tag: "Violation" } : {
      _tag: "Committed",
      text: r.text,
      toolCalls: r.calls.map((c, k) => ({ id: ids[k]!, name: c.name, ...(c.arguments === undefined ? {} : { arguments: c.arguments }) })),
      results: r.order.map((k) => ({ callId: ids[k]!, name: r.calls[k]!.name, kind: kindOf[r.calls[k]!.terminal] }))
    }
    return { round: [events] as ReadonlyArray<ScriptRound>, expected }
  })
  return { script: { turns: turns.map((t) => t.round) }, expected: turns.map((t) => t.expected) }
}

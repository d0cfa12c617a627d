/**
 * A demo scenario's trace as data: the steps of a turn, built from the session's events, the executors'
 * run log and the warnings logged meanwhile. Plain JSON, so the same steps print as text or JSON lines.
 *
 * @internal
 */
import { type JsonValue as J, RefAware } from "@toolgate/json-schema"
import type { SessionEvent, ToolEnvelope } from "@toolgate/runtime"
import type { Ran } from "./demoTools.js"

/** A validation issue as the trace shows it. */
export interface IssueLine {
  readonly field: string
  readonly message: string
}

/** One step of a trace. */
export type Step =
  | { readonly step: "user"; readonly text: string }
  | { readonly step: "gate"; readonly outcome: "proven" | "degraded" | "failed"; readonly tools: ReadonlyArray<string>; readonly detail: string }
  | { readonly step: "warning"; readonly message: string }
  | { readonly step: "round"; readonly round: number }
  | {
    readonly step: "call"
    readonly callId: string
    readonly tool: string
    readonly arguments?: J.JsonValue
    readonly decision: "valid" | "invalid" | "unknown_tool" | "skipped"
    readonly issues: ReadonlyArray<IssueLine>
  }
  | { readonly step: "coerced"; readonly callId: string; readonly field: string; readonly rule: string; readonly from: J.JsonValue; readonly to: J.JsonValue | null }
  | { readonly step: "resolved"; readonly callId: string; readonly field: string; readonly ref: J.JsonValue; readonly value: J.JsonValue | null }
  | { readonly step: "ran"; readonly callId: string; readonly tool: string; readonly args: J.JsonValue; readonly result: J.JsonValue }
  | { readonly step: "repair"; readonly repairs: number; readonly limit: number; readonly issues: number }
  | { readonly step: "fed_back"; readonly callId: string; readonly tool: string; readonly envelope: ToolEnvelope.Envelope }
  | { readonly step: "committed"; readonly rounds: number; readonly toolCalls: number }
  | { readonly step: "rolled_back"; readonly error: string }
  | { readonly step: "note"; readonly text: string }
  | { readonly step: "answer"; readonly text: string }
  | { readonly step: "error"; readonly error: string; readonly message: string; readonly fields: Readonly<Record<string, unknown>> }
  | { readonly step: "after"; readonly streamRequests: number; readonly toolsRan: ReadonlyArray<string>; readonly historyMessages: number }

/** The value at a JSON pointer, own properties only (`null` when there is none). */
const at = (value: unknown, pointer: string): J.JsonValue | null => {
  let here: unknown = value
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof here !== "object" || here === null || !Object.hasOwn(here, key)) return null
    here = (here as Record<string, unknown>)[key]
  }
  return here === undefined ? null : here as J.JsonValue
}

const parsed = (raw: unknown): unknown => {
  if (typeof raw !== "string") return raw
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** What the layers did to a call that ran: each coercion, each ref resolved, then the run itself. */
const ranSteps = (run: Ran): Array<Step> => [
  ...run.coercions.map((c): Step => ({ step: "coerced", callId: run.callId, field: c.field, rule: c.rule, from: c.from, to: c.to ?? null })),
  ...RefAware.refs(parsed(run.raw)).map((located): Step => ({
    step: "resolved",
    callId: run.callId,
    field: located.field,
    ref: { ...located.ref },
    value: at(run.args, located.path)
  })),
  { step: "ran", callId: run.callId, tool: run.tool, args: run.args, result: run.result }
]

/**
 * The steps of one turn, in order: each executor run is placed right after the call it answers (matched
 * by call id, in order), the warnings logged during the turn right after the gate's verdict (or first).
 */
export const build = (
  prompt: string,
  events: ReadonlyArray<SessionEvent.SessionEvent>,
  ran: ReadonlyArray<Ran>,
  warnings: ReadonlyArray<string>,
  gateError?: string
): ReadonlyArray<Step> => {
  const pending = [...ran]
  const steps: Array<Step> = [{ step: "user", text: prompt }]
  const warned = warnings.map((message): Step => ({ step: "warning", message }))
  let gateSeen = false
  let warningsPlaced = false
  const gateStep = (step: Step) => {
    steps.push(step, ...(warningsPlaced ? [] : warned))
    gateSeen = true
    warningsPlaced = true
  }
  for (const event of events) {
    switch (event._tag) {
      case "TurnStarted":
        break
      case "TurnRolledBack":
        if (gateError !== undefined && !gateSeen) gateStep({ step: "gate", outcome: "failed", tools: [], detail: gateError })
        steps.push({ step: "rolled_back", error: event.error })
        break
      case "DriftGateChecked":
        gateStep({ step: "gate", outcome: event.outcome, tools: event.tools, detail: event.detail })
        break
      case "RoundStarted":
        steps.push({ step: "round", round: event.round })
        break
      case "ToolCalled": {
        const issues = event.issues.map((i) => ({ field: i.field, message: i.message }))
        steps.push({
          step: "call",
          callId: event.callId,
          tool: event.tool,
          ...(event.arguments === undefined ? {} : { arguments: event.arguments }),
          decision: event.outcome,
          issues
        })
        const index = event.outcome === "valid" ? pending.findIndex((r) => r.callId === event.callId && r.tool === event.tool) : -1
        if (index >= 0) steps.push(...ranSteps(pending.splice(index, 1)[0]!))
        break
      }
      case "RepairSpent":
        steps.push({ step: "repair", repairs: event.repairs, limit: event.limit, issues: event.issues.length })
        break
      case "ToolAnswered":
        steps.push({ step: "fed_back", callId: event.callId, tool: event.tool, envelope: event.envelope })
        break
      case "TurnCommitted":
        steps.push({ step: "committed", rounds: event.rounds, toolCalls: event.toolCalls })
        break
    }
  }
  if (!warningsPlaced) steps.splice(1, 0, ...warned)
  // A run the events did not announce (none should exist) is still shown.
  for (const run of pending) steps.push(...ranSteps(run))
  return steps
}

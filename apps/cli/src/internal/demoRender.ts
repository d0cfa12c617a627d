/**
 * How the demo reads: a short trace per scenario and a summary table for a person, or JSON lines (one per
 * step, one per scenario result, one summary) for a machine; while a turn runs, its text on one live line
 * of a terminal, or each of its events as a JSON line.
 *
 * @internal
 */
import { JsonValue, Text } from "@toolgate/json-schema"
import type { AgentSession } from "@toolgate/runtime"
import type { Result } from "./demoRun.js"
import type { Step } from "./demoTrace.js"

const compact = (value: unknown, max = 140): string => {
  const text = JsonValue.stringify(value) ?? "(not JSON)"
  return Text.clip(text, max)
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

/** A message on one line (a multi-line envelope message reads as "a; b"). */
const oneLine = (text: string): string => text.replace(/:?\s*\n-?\s*/g, "; ").replace(/^; /, "")

const label = (name: string): string => name.padEnd(10)

const envelopeText = (envelope: Extract<Step, { step: "fed_back" }>["envelope"]): string =>
  envelope.ok
    ? `✔ ok ${compact(envelope.result, 110)}`
    : `✘ ${envelope.kind}${envelope.field === undefined ? "" : ` (${envelope.field})`}: ${oneLine(envelope.message)}${envelope.retryable ? " [retryable]" : ""}`

const errorLines = (step: Extract<Step, { step: "error" }>): Array<string> => {
  const keys = ["tool", "witness", "reasons", "drifted", "limit", "attempts", "rule", "callId", "reason", "detail"]
  const shown = keys.filter((k) => Object.hasOwn(step.fields, k)).map((k) => `${k}: ${compact(step.fields[k], 120)}`)
  return [`${label("error")}✘ ${step.error}: ${step.message}`, ...shown.map((s) => `${label("")}  ${s}`)]
}

/** One step as a line (or a few). */
const stepLines = (step: Step): Array<string> => {
  switch (step.step) {
    case "user":
      return [`${label("user")}${JSON.stringify(step.text)}`]
    case "gate":
      switch (step.outcome) {
        case "proven":
          return [`${label("gate")}✔ proven: ${step.tools.join(", ")}`]
        case "degraded":
          return [`${label("gate")}! degraded: ${step.detail}`]
        case "failed":
          return [`${label("gate")}✘ ${step.detail}: the turn stops before any stream request`]
      }
    case "warning":
      return [`${label("warning")}${step.message}`]
    case "round":
      return [`${label(`round ${step.round}`)}→ stream request`]
    case "call": {
      const args = step.arguments === undefined ? "(no arguments)" : compact(step.arguments)
      const head = `${label("model")}calls ${step.tool} (${step.callId}) ${args}`
      const verdict = `${label("")}layer 2: ${step.decision}`
      return [head, step.issues.length === 0 ? verdict : `${verdict}: ${step.issues.map((i) => `${i.field || "(arguments)"}: ${i.message}`).join("; ")}`]
    }
    case "coerced":
      return [`${label("")}coerced ${step.field}: ${compact(step.from)} → ${compact(step.to)} [${step.rule}]`]
    case "resolved":
      return [`${label("")}resolved ${step.field}: ${compact(step.ref)} → ${compact(step.value)}`]
    case "ran":
      return [`${label("executor")}ran ${step.tool}(${compact(step.args, 100)})`]
    case "repair":
      return [`${label("layer 3")}repair ${step.repairs} of ${step.limit} spent (${step.issues} issue${step.issues === 1 ? "" : "s"} fed back)`]
    case "fed_back":
      return [`${label("fed back")}${step.callId}: ${envelopeText(step.envelope)}`]
    case "committed":
      return [`${label("committed")}${step.rounds} round${step.rounds === 1 ? "" : "s"}, ${step.toolCalls} tool call${step.toolCalls === 1 ? "" : "s"}`]
    case "rolled_back":
      return [`${label("rollback")}${step.error}: history keeps only the user's message`]
    case "note":
      return [`${label("note")}${step.text}`]
    case "answer":
      return [`${label("answer")}${JSON.stringify(step.text)}`]
    case "error":
      return errorLines(step)
    case "after":
      return [
        `${label("after")}${plural(step.streamRequests, "stream request")} · tools ran: ${step.toolsRan.length === 0 ? "none" : step.toolsRan.join(", ")} · history: ${plural(step.historyMessages, "message")}`
      ]
  }
}

/** One scenario's trace for a person. */
export const scenarioText = (result: Result, total: number): string =>
  [
    `━━ ${result.index}/${total} ${result.scenario}: ${result.title}`,
    ...result.steps.flatMap(stepLines).map((line) => `  ${line}`),
    ...result.checks.map((c) => `  ${label("check")}${c.ok ? "✔" : "✘"} ${c.claim}`),
    `  ${result.passed ? "✔" : "✘"} expected ${result.expected}, got ${result.got} (${result.ms} ms)`,
    ""
  ].join("\n")

/** The summary table. */
export const summaryText = (results: ReadonlyArray<Result>): string => {
  const width = Math.max(8, ...results.map((r) => r.scenario.length))
  const expectedWidth = Math.max(8, ...results.map((r) => r.expected.length))
  const indexWidth = Math.max(1, ...results.map((r) => String(r.index).length))
  const passed = results.filter((r) => r.passed).length
  return [
    `   ${"#".padStart(indexWidth)}  ${"scenario".padEnd(width)}  ${"expected".padEnd(expectedWidth)}  got`,
    ...results.map((r) =>
      `${r.passed ? "✔" : "✘"}  ${String(r.index).padStart(indexWidth)}  ${r.scenario.padEnd(width)}  ${r.expected.padEnd(expectedWidth)}  ${r.got}`
    ),
    `${passed} of ${results.length} scenarios ended as expected.`
  ].join("\n")
}

const line = (value: Record<string, unknown>): string => JsonValue.stringify(value) ?? JSON.stringify({ type: "error", message: "not JSON" })

/** One scenario as JSON lines: each step, then its result. */
export const scenarioJson = (result: Result): ReadonlyArray<string> => [
  ...result.steps.map((step) => line({ type: "step", scenario: result.scenario, ...step })),
  line({
    type: "result",
    index: result.index,
    scenario: result.scenario,
    title: result.title,
    expected: result.expected,
    got: result.got,
    passed: result.passed,
    checks: result.checks,
    ms: result.ms
  })
]

/** The summary as one JSON line. */
export const summaryJson = (results: ReadonlyArray<Result>, relay: string): string =>
  line({
    type: "summary",
    relay,
    total: results.length,
    passed: results.filter((r) => r.passed).length,
    failed: results.filter((r) => !r.passed).map((r) => r.scenario)
  })

/** One event of a running turn as a JSON line (`--json`, printed as it happens); `TurnFinished` carries the turn's number, text and usage. */
export const eventJson = (scenario: string, event: AgentSession.TurnEvent): string =>
  line({
    type: "event",
    scenario,
    event: event._tag === "TurnFinished" ? { _tag: "TurnFinished", turn: event.turn.turn, text: event.turn.text, usage: event.turn.usage } : event
  })

/** The width of the terminal's live line: its columns, or 80 when it reports none (0 under some terminals). */
export const terminalWidth = (columns: number | undefined): number =>
  typeof columns === "number" && Number.isFinite(columns) && columns > 0 ? columns : 80

/** Erases the terminal's current line (carriage return, then clear the line). */
const eraseLine = "\r\u001b[2K"

/** What a terminal's live line shows before the text. */
const livePrefix = `  ${label("streaming")}`

/**
 * The live line of a terminal while a turn runs: the text the model is writing in the current round, on one
 * line rewritten as each delta arrives (its end kept when it is wider than the terminal; line breaks as spaces),
 * emptied when the round's text is taken back or a new round starts. `push` gives what to write for an event
 * (nothing when the line does not change), `clear` what erases it before the trace is printed.
 */
export const live = (width: number) => {
  let text = ""
  let shown = false
  const room = Math.max(10, width - livePrefix.length - 1)
  return {
    push: (event: AgentSession.TurnEvent): string | undefined => {
      switch (event._tag) {
        case "TextDelta":
          text += event.text
          break
        case "RoundStarted":
        case "RoundDiscarded":
          if (text === "") return undefined
          text = ""
          break
        default:
          return undefined
      }
      const flat = Array.from(text.replace(/[\u0000-\u001f\u007f]+/g, " "))
      const tail = flat.length > room ? `…${flat.slice(flat.length - room + 1).join("")}` : flat.join("")
      shown = tail !== ""
      return shown ? `${eraseLine}${livePrefix}${tail}` : eraseLine
    },
    clear: (): string => {
      const out = shown ? eraseLine : ""
      text = ""
      shown = false
      return out
    }
  }
}

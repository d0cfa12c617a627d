/**
 * Compensation of a failed turn: the calls it executed are taken back newest first (each undo's failure is
 * recorded, the others still run), and what could not be taken back becomes an outstanding effect of the
 * session and a pair of messages that tell the model it happened. The caller runs this uninterruptibly.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Compensation from "../Compensation.js"
import type * as Message from "../Message.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import { type Env, type Execution, publish } from "./sessionState.js"
import { attempt } from "./sessionUndo.js"

/** What the compensation did: the executed calls, those undone and those left, and the messages to record. */
export interface Compensated {
  readonly executed: ReadonlyArray<Compensation.ExecutedCall>
  readonly compensated: ReadonlyArray<string>
  readonly notCompensated: ReadonlyArray<Compensation.NotCompensated>
  /** For history after the turn's user message: the calls left in effect and what they answered (empty when none is). */
  readonly messages: ReadonlyArray<Message.Message>
}

const executedCall = (e: Execution): Compensation.ExecutedCall => ({
  callId: e.callId,
  tool: e.tool,
  round: e.round,
  arguments: e.arguments,
  ...(e.envelope === undefined ? {} : { envelope: e.envelope }),
  idempotencyKey: e.idempotencyKey
})

/** Why the effect stays, in the words the model reads. */
const why = (turn: number, left: Compensation.NotCompensated): string => {
  const because = left.reason === "no_undo"
    ? "the tool cannot be undone"
    : left.reason === "undo_failed"
    ? `its undo failed (${left.undoFailure?.message ?? "no reason given"})`
    : "it was interrupted while it ran, so its effect may be partial"
  return `This call ran in turn ${turn}, which then failed; its effect could not be taken back (${because}) ` +
    "and is still in place. Do not repeat it unless the user asks to."
}

/** What the model is told about a call left in effect: its own answer with a warning, or an interruption. */
const told = (turn: number, e: Execution, left: Compensation.NotCompensated): ToolEnvelope.Envelope => {
  if (e.envelope === undefined) return ToolEnvelope.failure("execution_error", why(turn, left), { tool: e.tool, retryable: false })
  return e.envelope.ok ? { ...e.envelope, warnings: [...(e.envelope.warnings ?? []), why(turn, left)] } : e.envelope
}

/** The calls left in effect as history: one Assistant making them and a ToolResult for each. */
const messagesOf = (turn: number, left: ReadonlyArray<readonly [Execution, Compensation.NotCompensated]>): ReadonlyArray<Message.Message> =>
  left.length === 0 ? [] : [
    { _tag: "Assistant", text: "", toolCalls: left.map(([e]) => ({ id: e.callId, name: e.tool, arguments: e.arguments })) },
    ...left.map(([e, l]): Message.Message => ({ _tag: "ToolResult", callId: e.callId, name: e.tool, envelope: told(turn, e, l) }))
  ]

/** One execution taken back: `undefined` when undone or when it had no effect, else why it stays. */
const takeBack = (e: Execution): Effect.Effect<Compensation.NotCompensated | "undone" | undefined> => {
  const base = { callId: e.callId, tool: e.tool }
  if (e.envelope === undefined) return Effect.succeed({ ...base, reason: "interrupted" })
  if (!e.envelope.ok) return Effect.succeed(undefined)
  if (e.undo === undefined) return Effect.succeed({ ...base, reason: "no_undo" })
  return Effect.map(attempt(e.undo), (failure) => failure === undefined ? "undone" : { ...base, reason: "undo_failed", undoFailure: failure })
}

/** Takes back `executions` (newest first), records what stays as outstanding effects and publishes `TurnCompensated`. */
export const compensate = (env: Env, turn: number, executions: ReadonlyArray<Execution>): Effect.Effect<Compensated> =>
  Effect.gen(function*() {
    const compensated: Array<string> = []
    const left: Array<readonly [Execution, Compensation.NotCompensated]> = []
    for (const e of [...executions].reverse()) {
      const outcome = yield* takeBack(e)
      if (outcome === "undone") compensated.push(e.callId)
      else if (outcome !== undefined) left.push([e, outcome])
    }
    left.reverse()
    const notCompensated = left.map(([, l]) => l)
    yield* Ref.update(env.outstanding, (o) => [
      ...o,
      ...left.map(([e, l]): Compensation.OutstandingEffect => ({ ...executedCall(e), ...l, turn }))
    ])
    const executed = executions.map(executedCall)
    yield* publish(env, { _tag: "TurnCompensated", turn, executed: executed.map((e) => e.callId), compensated, notCompensated })
    return { executed, compensated, notCompensated, messages: messagesOf(turn, left) }
  }).pipe(Effect.withSpan("AgentSession.compensate", { attributes: { "turn": turn, "tool.executed": executions.length } }))

/**
 * The property test's checks of one send against the model's `ExpectedTurn`: the session's invariants
 * (no executor sees invalid arguments, repairs and round trips within their limits, a failed send leaves
 * history as it was plus the user message, a committed turn answers every call) and the model's finer
 * predictions (outcome, requests, envelope kinds, which executors ran, the events). Each check throws an
 * `Error` naming the send and what differed, so fast-check shrinks to it and prints the plan.
 */
import { assert } from "@effect/vitest"
import { Cause, Exit, Option } from "effect"
import type { AgentSession, Compensation, Message, Provider, SessionEvent } from "@toolgate/runtime"
import type { SessionPlan } from "./sessionArbitraries.js"
import type { ExpectedCall, ExpectedTurn } from "./sessionModel.js"
import { type Received, resultOf, stubbornLevel, toolNames } from "./sessionTools.js"

/** Every tag of `AgentSession.SendError`. */
export const sendErrorTags: ReadonlySet<string> = new Set([
  "SchemaDriftError", "UnsupportedCloudToolSchema", "RelayProfileContractError", "ToolArgumentRepairExhausted",
  "RoundTripLimitExceeded", "ProviderEventContractViolation", "ProviderError", "ToolChoiceUnsupported",
  "ToolsRejected", "InvalidToolSchema"
])

/** What one send did, as observed from outside the session. */
export interface Observed {
  readonly index: number
  readonly text: string
  readonly exit: Exit.Exit<AgentSession.Turn, unknown>
  readonly before: ReadonlyArray<Message.Message>
  readonly after: ReadonlyArray<Message.Message>
  readonly requests: ReadonlyArray<Provider.CompletionRequest>
  readonly received: ReadonlyArray<Received>
  readonly events: ReadonlyArray<SessionEvent.SessionEvent>
  /** The attributes of the send's `execute_tool {tool}` spans. */
  readonly spans: ReadonlyArray<ReadonlyMap<string, unknown>>
}

const check = (send: number, what: string, ok: boolean, detail: () => unknown = () => ""): void => {
  if (!ok) throw new Error(`send ${send}: ${what} ${JSON.stringify(detail())}`)
}

/**
 * The error tag of a failed exit (`Interrupted` for an interruption), after checking the cause is one typed
 * failure or an interruption (no defect). An error's `compensation` report is checked against what the
 * executors did.
 */
const failureTag = (o: Observed): string | undefined => {
  const { exit, index: send } = o
  if (Exit.isSuccess(exit)) return undefined
  const cause = exit.cause
  check(send, "the send died", !Cause.isDie(cause), () => Cause.pretty(cause))
  if (Cause.isInterruptedOnly(cause)) {
    const event = o.events.find((e): e is SessionEvent.TurnCompensated => e._tag === "TurnCompensated")
    if (event !== undefined) checkCompensation(o, event.executed, event)
    return "Interrupted"
  }
  const error = Cause.failureOption(cause)
  check(send, "the failure has no error", Option.isSome(error), () => Cause.pretty(cause))
  const failure = Option.getOrThrow(error) as { readonly _tag?: unknown; readonly compensation?: Compensation.Report }
  const ran = o.received.length > 0
  check(send, "a typed failure after tools ran carries its compensation, and only then", (failure.compensation !== undefined) === ran, () => failure._tag)
  if (failure.compensation !== undefined) checkCompensation(o, failure.compensation.executed.map((e) => e.callId), failure.compensation)
  const tag = failure._tag
  check(send, "the error is not a SendError", typeof tag === "string" && sendErrorTags.has(tag), () => String(tag))
  return tag as string
}

/**
 * A failed turn's compensation: every executor run is in `executed`; every run that succeeded was undone,
 * newest first, or is left in effect because its undo failed (only `set_volume` at the stubborn level refuses,
 * once per call).
 */
const checkCompensation = (
  o: Observed,
  executed: ReadonlyArray<string>,
  error: { readonly compensated: ReadonlyArray<string>; readonly notCompensated: ReadonlyArray<Compensation.NotCompensated> }
): void => {
  const n = o.index
  assert.deepStrictEqual([...executed].sort(), o.received.map((r) => r.callId).sort(), `send ${n}: executed`)
  const succeeded = o.received.filter((r) => resultOf(r.tool, r.args as never) !== undefined)
  const left = error.notCompensated.map((c) => c.callId)
  assert.deepStrictEqual([...error.compensated, ...left].sort(), succeeded.map((r) => r.callId).sort(), `send ${n}: compensated or left`)
  for (const c of error.notCompensated) {
    const stubborn = succeeded.some((r) => r.callId === c.callId && r.tool === "set_volume" && (r.args as { level?: unknown }).level === stubbornLevel)
    check(n, "only a stubborn undo leaves an effect", c.reason === "undo_failed" && stubborn, () => c)
  }
  if (new Set(executed).size === executed.length) {
    const order = executed.filter((id) => error.compensated.includes(id)).reverse()
    assert.deepStrictEqual(error.compensated, order, `send ${n}: compensated newest first`)
  }
}

/** A failed send's history: as before, plus the user message, plus the calls left in effect as the model is told them. */
const checkRolledBack = (o: Observed): void => {
  const event = o.events.find((e): e is SessionEvent.TurnCompensated => e._tag === "TurnCompensated")
  const left = event?.notCompensated.map((c) => c.callId) ?? []
  const added = o.after.slice(o.before.length)
  assert.deepStrictEqual(o.after.slice(0, o.before.length), o.before, `send ${o.index}: a failed send changed earlier history`)
  assert.deepStrictEqual(added[0], { _tag: "User", text: o.text }, `send ${o.index}: a failed send must leave history + the user message`)
  const told = added.slice(1).map((m) => m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : m._tag === "ToolResult" ? m.callId : m._tag)
  assert.deepStrictEqual(told, left.length === 0 ? [] : [left, ...left], `send ${o.index}: the calls left in effect, told`)
}

/** How many of a turn's requests carry a round that had `invalid_args` answers back to the model (repairs seen on the wire). */
export const repairsOnTheWire = (requests: ReadonlyArray<Provider.CompletionRequest>): number =>
  requests.filter((request) => {
    const tags = request.messages.map((m) => m._tag)
    const lastAssistant = tags.lastIndexOf("Assistant")
    const lastUser = tags.lastIndexOf("User")
    if (lastAssistant < lastUser) return false
    return request.messages.slice(lastAssistant + 1).some((m) => m._tag === "ToolResult" && !m.envelope.ok && m.envelope.kind === "invalid_args")
  }).length

const count = (ids: ReadonlyArray<string>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1)
  return counts
}

/** Executor runs by call id (ids may repeat across rounds): at least what must run, at most what may. */
const checkExecuted = (n: number, expected: ExpectedTurn, received: ReadonlyArray<Received>): void => {
  const calls = expected.rounds.flatMap((r) => r.calls)
  const ran = count(received.map((r) => r.callId))
  const must = count(calls.filter((c) => c.runs === "yes").map((c) => c.id))
  const may = count(calls.filter((c) => c.runs !== "no").map((c) => c.id))
  for (const id of new Set([...ran.keys(), ...must.keys()])) {
    const times = ran.get(id) ?? 0
    check(n, `executor of ${id} ran ${times} times`, times >= (must.get(id) ?? 0) && times <= (may.get(id) ?? 0), () => ({ must: must.get(id) ?? 0, may: may.get(id) ?? 0 }))
  }
}

const kindOf = (envelope: Message.ToolResult["envelope"]): string => envelope.ok ? "success" : envelope.kind

/** A committed turn's messages: User, then per round an Assistant and a ToolResult for each of its calls, then the answer. */
const checkCommitted = (o: Observed, expected: ExpectedTurn, turn: AgentSession.Turn): void => {
  const n = o.index
  assert.deepStrictEqual(o.after.slice(0, o.before.length), o.before, `send ${n}: a committed turn changed earlier history`)
  const added = o.after.slice(o.before.length)
  assert.deepStrictEqual(added[0], { _tag: "User", text: o.text }, `send ${n}: the turn does not start with the user message`)
  // Every ToolCall of the turn's Assistant messages has exactly one ToolResult (model-independent).
  const callIds = added.flatMap((m) => m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : [])
  const resultIds = added.flatMap((m) => m._tag === "ToolResult" ? [m.callId] : [])
  assert.deepStrictEqual([...resultIds].sort(), [...callIds].sort(), `send ${n}: calls and results of the committed turn differ`)
  let at = 1
  const inOrder: Array<Message.ToolResult["envelope"] | undefined> = []
  for (const round of expected.rounds) {
    const answered = new Map<string, Message.ToolResult>()
    const assistant = added[at++]
    assert.deepStrictEqual(assistant, {
      _tag: "Assistant",
      text: round.text,
      toolCalls: round.calls.map((c) => ({ id: c.id, name: c.name, ...(c.arguments === undefined ? {} : { arguments: c.arguments }) }))
    }, `send ${n}: an assistant message of a round`)
    const results = added.slice(at, at + round.calls.length)
    at += round.calls.length
    for (const r of results) {
      check(n, "a ToolResult expected after the assistant message", r?._tag === "ToolResult", () => r)
      if (r?._tag === "ToolResult") answered.set(r.callId, r)
    }
    for (const c of round.calls) {
      checkAnswer(n, c, answered.get(c.id))
      inOrder.push(answered.get(c.id)?.envelope)
    }
  }
  assert.deepStrictEqual(added.slice(at), [{ _tag: "Assistant", text: expected.finalText, toolCalls: [] }], `send ${n}: the answer closes the turn`)
  check(n, "turn.text", turn.text === expected.finalText, () => turn.text)
  check(n, "turn.turn (sends that recorded their user message)", turn.turn === expected.turn, () => turn.turn)
  assert.deepStrictEqual(turn.calls.map((c) => c.callId), callIds, `send ${n}: turn.calls`)
  assert.deepStrictEqual(turn.calls.map((c) => c.envelope), inOrder, `send ${n}: turn.calls envelopes`)
  check(n, "usage tokens", turn.usage.inputTokens === expected.inputTokens && turn.usage.outputTokens === expected.outputTokens, () => turn.usage)
  check(n, "usage.repairs", turn.usage.repairs === expected.repairs, () => turn.usage)
  check(n, "usage.roundTrips", turn.usage.roundTrips === expected.roundTrips, () => turn.usage)
}

const checkAnswer = (n: number, call: ExpectedCall, result: Message.ToolResult | undefined): void => {
  check(n, `call ${call.id} has no ToolResult`, result !== undefined)
  const kind = kindOf(result!.envelope)
  check(n, `call ${call.id} answered ${kind}, expected one of`, call.answers.includes(kind as never), () => ({ answers: call.answers, envelope: result!.envelope }))
  if (call.field !== undefined && !result!.envelope.ok) {
    check(n, `broken ref ${call.id} names the wrong field`, result!.envelope.field === call.field, () => result!.envelope)
  }
}

const outcomeOfCall = (call: ExpectedCall): ReadonlyArray<string> =>
  call.answers[0] === "tool_not_found" ? ["unknown_tool"] :
  call.answers[0] === "invalid_args" ? ["invalid"] :
  call.answers[0] === "rejected" ? ["skipped"] :
  call.runs === "maybe" ? ["valid", "skipped"] : ["valid"]

/** The events of the send: started first, committed/rolled back last, one RoundStarted per request, a ToolCalled per answered call, a RepairSpent per repair. */
const checkEvents = (o: Observed, expected: ExpectedTurn, tag: string | undefined): void => {
  const n = o.index
  const t = expected.turn
  if (t === 0) return check(n, "a send refused before its user message publishes nothing", o.events.length === 0, () => o.events)
  const first = o.events[0]
  check(n, "first event", first?._tag === "TurnStarted" && first.turn === t && first.text === o.text, () => first)
  const last = o.events.at(-1)
  check(n, "last event", tag === undefined ?
    last?._tag === "TurnCommitted" && last.turn === t && last.rounds === expected.roundTrips :
    last?._tag === "TurnRolledBack" && last.turn === t && last.error === tag, () => last)
  const compensated = o.events.filter((e) => e._tag === "TurnCompensated")
  check(n, "one TurnCompensated exactly when a failed send had run tools", compensated.length === (tag !== undefined && o.received.length > 0 ? 1 : 0), () => o.events.map((e) => e._tag))
  check(n, "RoundStarted events", o.events.filter((e) => e._tag === "RoundStarted").length === expected.roundTrips, () => o.events.map((e) => e._tag))
  check(n, "RepairSpent events", o.events.filter((e) => e._tag === "RepairSpent").length === expected.repairs, () => o.events.map((e) => e._tag))
  for (const round of expected.rounds) {
    for (const call of round.calls) {
      const called = o.events.find((e): e is SessionEvent.ToolCalled => e._tag === "ToolCalled" && e.callId === call.id && e.round === round.round)
      check(n, `ToolCalled for ${call.id} in round ${round.round}`, called !== undefined && outcomeOfCall(call).includes(called.outcome), () => called)
      check(n, `ToolAnswered for ${call.id} in round ${round.round}`, o.events.some((e) => e._tag === "ToolAnswered" && e.callId === call.id && e.round === round.round))
    }
  }
}

/** Every answered call has an `execute_tool {tool}` span naming it, with the outcome its `ToolCalled` event has. */
const checkSpans = (o: Observed, expected: ExpectedTurn): void => {
  // ids may repeat across rounds and spans carry no round: each call takes one matching span out of the pool
  const pool = [...o.spans]
  for (const round of expected.rounds) {
    for (const call of round.calls) {
      const called = o.events.find((e): e is SessionEvent.ToolCalled => e._tag === "ToolCalled" && e.callId === call.id && e.round === round.round)
      const at = pool.findIndex((s) =>
        s.get("gen_ai.tool.call.id") === call.id && s.get("gen_ai.tool.name") === call.name && s.get("toolgate.tool.outcome") === called?.outcome &&
        s.get("toolgate.tool.issue_count") === called?.issues.length)
      check(o.index, `a toolCall span for ${call.id} (${called?.outcome})`, at >= 0, () => o.spans.map((s) => Object.fromEntries(s)))
      pool.splice(at, 1)
    }
  }
  const called = o.events.filter((e) => e._tag === "ToolCalled").length
  check(o.index, "one toolCall span per ToolCalled event (calls of a round that failed included)", o.spans.length === called, () => [o.spans.length, called])
}

/** Checks one send against the plan's limits and the model's expectation. */
export const checkSend = (plan: SessionPlan, expected: ExpectedTurn, o: Observed): void => {
  const n = o.index
  const tag = failureTag(o)
  for (const r of o.received) check(n, `executor ${r.tool} received invalid arguments`, r.problems.length === 0, () => r)
  const rounds = o.events.filter((e) => e._tag === "RoundStarted").length
  check(n, "round trips over the limit", o.requests.length <= plan.roundTrips && rounds <= plan.roundTrips, () => [o.requests.length, rounds])
  const wireRepairs = repairsOnTheWire(o.requests)
  check(n, "repairs over the limit", wireRepairs <= plan.repairs, () => wireRepairs)
  check(n, "outcome", (tag ?? "Committed") === expected.outcome, () => ({ got: tag ?? "Committed", expected: expected.outcome, error: Exit.isFailure(o.exit) ? Cause.pretty(o.exit.cause) : undefined }))
  check(n, "provider requests", o.requests.length === expected.requests, () => o.requests.length)
  check(n, "repairs on the wire", wireRepairs === expected.carried, () => wireRepairs)
  for (const request of o.requests) {
    const users = request.messages.flatMap((m) => m._tag === "User" ? [m.text] : [])
    const filtered = plan.network === undefined ? o.text : o.text.toUpperCase()
    check(n, "the request's user message (pre-transmit filter on every request exactly when networking)", users.at(-1) === filtered, () => users)
    check(n, "the request's tool choice", request.toolChoice === expected.choice, () => request.toolChoice)
    const sent = request.tools.map((t) => `${t.name}:${t.strict}`)
    const strict = plan.dialect === "openai-strict"
    check(n, "tool definitions", sent.join(",") === toolNames.map((t) => `${t}:${strict}`).join(","), () => sent)
  }
  checkExecuted(n, expected, o.received)
  check(n, "a prototype was polluted", Object.keys(Object.prototype).length === 0 && ({} as { level?: unknown }).level === undefined)
  if (Exit.isSuccess(o.exit)) checkCommitted(o, expected, o.exit.value)
  else if (expected.turn === 0) assert.deepStrictEqual(o.after, o.before, `send ${n}: a send refused before its user message leaves history as it was`)
  else checkRolledBack(o)
  checkEvents(o, expected, tag)
  checkSpans(o, expected)
}

/**
 * One app-driven round's calls: every call is prepared (and its refs resolved) before any runs; a round
 * with an invalid call spends a repair and runs nothing (valid siblings are told they were not run);
 * otherwise the valid calls run (concurrently when the provider allows) and unknown tools are answered
 * `tool_not_found`. Every call, valid or not, gets an `execute_tool {tool}` span and its events.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { JsonValue as J, Validator } from "@toolgate/json-schema"
import type * as AgentSession from "../AgentSession.js"
import * as Errors from "../Errors.js"
import type { ToolArgumentRepairExhausted } from "../Errors.js"
import type * as Message from "../Message.js"
import type * as RepairBudget from "../RepairBudget.js"
import * as RunLimits from "../RunLimits.js"
import * as Tool from "../Tool.js"
import * as ToolChain from "../ToolChain.js"
import * as Telemetry from "../Telemetry.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Deadline from "./deadline.js"
import { clip } from "@toolgate/json-schema/Text"
import * as SessionJournal from "./sessionJournal.js"
import * as ToolDiscovery from "./toolDiscovery.js"
import { budgetOf, forModel, timed, timeoutEnvelope } from "./toolOutcome.js"
import { type Breath, breath, breathe } from "./breath.js"
import { type Env, type Execution, idempotencyKey, publish, type UndoStep } from "./sessionState.js"

/** What a round's calls need besides the session. */
export interface RoundInput {
  readonly turn: number
  readonly round: number
  readonly calls: ReadonlyArray<Message.ToolCall>
  /** Tools whose definition was sent with `strict: true`. */
  readonly strict: ReadonlySet<string>
  /** The tools the request carried: a call of any other is not run. */
  readonly active: ReadonlySet<string>
  readonly budget: RepairBudget.RepairBudget
  /** What refs may point at (this turn's answered calls, plus the session's with scope "session"). */
  readonly results: ToolChain.Results
  /** What `$artifact` refs may point at, likewise. */
  readonly artifacts: ToolChain.Artifacts
  /** The turn's executions: every call whose executor starts is appended before it runs. */
  readonly executions: Array<Execution>
}

/** Every call of the round with its envelope, in call order. */
export interface RoundOutput {
  readonly answered: ReadonlyArray<AgentSession.Answered>
}

/** A call after preparation. */
type Checked =
  | { readonly _tag: "Valid"; readonly call: Message.ToolCall; readonly tool: Tool.Tool<any, never>; readonly prepared: Tool.Prepared<any> }
  | { readonly _tag: "Invalid"; readonly call: Message.ToolCall; readonly issues: ReadonlyArray<Validator.Issue>; readonly envelope: ToolEnvelope.Failure }
  | { readonly _tag: "Unknown"; readonly call: Message.ToolCall; readonly envelope: ToolEnvelope.Failure }

type Outcome = "valid" | "invalid" | "unknown_tool" | "skipped"

/** The answer of a valid call that did not run because a sibling was invalid. */
export const notRun = (tool: string): ToolEnvelope.Failure =>
  ToolEnvelope.failure("rejected", "not run: another call of this round had invalid arguments; send it again", {
    tool,
    retryable: true
  })

/** The answer of a call to a tool the toolkit does not have. */
const notFound = (env: Env, name: string): ToolEnvelope.Failure => {
  const names = clip(Array.from(env.toolkit.tools.keys()).join(", "), 500)
  return ToolEnvelope.failure("tool_not_found", `There is no tool named \`${clip(name, 200)}\`. The tools are: ${names === "" ? "(none)" : names}.`, {
    tool: name
  })
}

/** The answer of a call to a tool whose domain is not active (the request did not carry it). */
const inactive = (env: Env, name: string): ToolEnvelope.Failure => {
  const domain = ToolDiscovery.domainOf(env.toolkit, name)
  const how = env.toolkit.tools.has(ToolDiscovery.activateDomain) && domain !== undefined
    ? `activate its domain \`${domain}\` with \`${ToolDiscovery.activateDomain}\` first`
    : "it was not among the tools offered to you (the model takes only so many); use one that was"
  return ToolEnvelope.failure("tool_not_found", `Tool \`${clip(name, 200)}\` is not active: ${how}.`, { tool: name })
}

/** Prepares one call: unknown tool, invalid arguments (refs resolved first), or ready to run. */
const check = (env: Env, input: RoundInput, call: Message.ToolCall): Effect.Effect<Checked, Errors.InvalidToolSchema> => {
  const tool = env.toolkit.tools.get(call.name)
  if (tool === undefined) return Effect.succeed({ _tag: "Unknown", call, envelope: notFound(env, call.name) })
  if (!input.active.has(call.name)) return Effect.succeed({ _tag: "Unknown", call, envelope: inactive(env, call.name) })
  const fromStrictProvider = input.strict.has(call.name)
  return env.validator.prepare(tool, call.arguments, { callId: call.id, fromStrictProvider }).pipe(
    Effect.flatMap((outcome) =>
      outcome._tag === "Referencing"
        ? ToolChain.resolve(env.validator, tool, outcome, input.results, { fromStrictProvider, artifacts: input.artifacts })
        : Effect.succeed(outcome)
    ),
    Effect.map((prepared): Checked => ({ _tag: "Valid", call, tool, prepared })),
    Effect.catchTag("InvalidToolArguments", (e) => Effect.succeed<Checked>({ _tag: "Invalid", call, issues: e.issues, envelope: e.envelope }))
  )
}

const issuesOf = (checked: Checked): ReadonlyArray<Validator.Issue> => checked._tag === "Invalid" ? checked.issues : []

/** Where a call stands: its turn and round. */
export interface At {
  readonly turn: number
  readonly round: number
}

/**
 * One call, reported at its edges: the `ToolCalled` event, then `answer` (the executor, or an envelope
 * already known), then `ToolAnswered`, all in one `execute_tool {tool}` span with the tool's name, the
 * call id, the outcome (`provider`: the provider ran it), the issue count and what it answered.
 */
export const reportCall = <E>(
  env: Env,
  at: At,
  call: Message.ToolCall,
  outcome: Outcome | "provider",
  issues: ReadonlyArray<Validator.Issue>,
  answer: Effect.Effect<ToolEnvelope.Envelope, E>
): Effect.Effect<AgentSession.Answered, E> =>
  Effect.gen(function*() {
    const args = call.arguments === undefined ? {} : { arguments: call.arguments }
    const where = { ...at, callId: call.id, tool: call.name }
    yield* publish(env, { _tag: "ToolCalled", ...where, ...args, outcome: outcome === "provider" ? "valid" : outcome, issues })
    // the model (and history) gets at most maxToolResultBytes; the whole envelope stays in the turn's calls
    const { envelope, whole } = forModel(yield* answer, env.limits.maxToolResultBytes ?? RunLimits.defaultMaxToolResultBytes)
    yield* Effect.annotateCurrentSpan("toolgate.tool.result", envelope.ok ? "success" : envelope.kind)
    yield* publish(env, { _tag: "ToolAnswered", ...where, envelope })
    return { callId: call.id, tool: call.name, ...args, envelope, ...(whole === undefined ? {} : { wholeEnvelope: whole }) }
  }).pipe(
    Telemetry.executeTool(call.name, call.id, {
      "toolgate.tool.outcome": outcome,
      "toolgate.tool.issue_count": issues.length
    })
  )

/** What running a call needs from the session: its id (for idempotency keys) and the context executors run in. */
export type Runner = Pick<Env, "id" | "keys" | "context" | "durable">

/** Where a call runs: the turn, the round and the turn's journal it is recorded in. */
export interface Journal {
  readonly turn: number
  readonly round: number
  readonly executions: Array<Execution>
}

/** How to undo a call that ran and succeeded (`undefined`: its tool has no undo, or it failed). */
const undoOf = (env: Pick<Env, "context">, tool: Tool.Tool<any, never>, prepared: Tool.Prepared<any>, envelope: ToolEnvelope.Envelope, key: string): UndoStep | undefined =>
  tool.undo === undefined || !envelope.ok ? undefined : undoStep(env, tool, prepared, envelope.result as J.JsonValue, key)

/** The undo step of a call of `tool` that answered `result` (also how a resumed session rebuilds one from the store). */
export const undoStep = (env: Pick<Env, "context">, tool: Tool.Tool<any, never>, prepared: Tool.Prepared<any>, result: J.JsonValue, key: string): UndoStep => {
  const ctx = { ...Tool.contextOf(tool, prepared, { idempotencyKey: key }), result }
  const budget = budgetOf(tool)
  const run = Effect.provide(Effect.suspend(() => tool.undo!(prepared.args, ctx)), env.context)
  return {
    callId: prepared.callId,
    tool: tool.name,
    arguments: prepared.value,
    result,
    idempotencyKey: key,
    // an undo has the tool's time budget too: a compensation (uninterruptible) never waits on one for ever
    run: budget === undefined
      ? run
      : Deadline.within(run, budget, () => Effect.fail(new Errors.ToolFailure({ kind: "timeout", message: timeoutEnvelope(tool.name, budget).message })))
  }
}

/**
 * Runs a prepared call, recorded in the turn's journal before it starts and filled in when it answers: the
 * one way an executor runs in a session, whoever asked (the session's round, or a registry-aware provider).
 */
export const journaled = Effect.fnUntraced(function*(
  env: Runner,
  journal: Journal,
  tool: Tool.Tool<any, never>,
  prepared: Tool.Prepared<any>,
  breath?: Breath
) {
  const key = idempotencyKey(env, journal.turn, prepared.callId)
  const execution: Execution = {
    callId: prepared.callId,
    tool: tool.name,
    round: journal.round,
    arguments: prepared.value,
    idempotencyKey: key,
    undoable: tool.undo !== undefined,
    artifacts: new Map(),
    envelope: undefined,
    timedOut: false,
    undo: undefined
  }
  // journaled before it is recorded here: a call the store refused never ran and leaves nothing to compensate
  if (env.durable !== undefined) yield* SessionJournal.started(env.durable, execution, journal.turn)
  journal.executions.push(execution)
  const ctx = Tool.contextOf(tool, prepared, { idempotencyKey: key, onArtifact: (name, value) => execution.artifacts.set(name, value) })
  const body = Effect.suspend(() => tool.execute(prepared.args, ctx))
  // a call interrupted while it waits for its breath never ran: it leaves the journal
  const forget = Effect.sync(() => void journal.executions.splice(journal.executions.indexOf(execution), 1))
  const run = breath === undefined ? body : Effect.zipRight(Effect.onInterrupt(breathe(breath), () => forget), body)
  // the session's context is provided by `timed`, in the same step that annotates the call's logs
  const { envelope, timedOut } = yield* timed(tool, prepared.callId, run, env.context)
  execution.envelope = envelope
  execution.timedOut = timedOut
  execution.undo = undoOf(env, tool, prepared, envelope, key)
  if (env.durable !== undefined) yield* SessionJournal.finished(env.durable, journal.turn, prepared.callId, envelope)
  return envelope
})

/** Runs a valid call of the round. */
const execute = (env: Env, input: RoundInput, c: Checked & { readonly _tag: "Valid" }, breath: Breath) =>
  journaled(env, { turn: input.turn, round: input.round, executions: input.executions }, c.tool, c.prepared, breath)

/** A round with an invalid call: nothing runs, every call is answered (valid ones "not run"), and it costs one repair. */
const rejectRound = Effect.fnUntraced(function*(env: Env, input: RoundInput, checked: ReadonlyArray<Checked>) {
  const spent = yield* Effect.either(input.budget.repair(checked.flatMap(issuesOf)))
  const answered = yield* Effect.forEach(checked, (c) =>
    c._tag === "Valid"
      ? reportCall(env, input, c.call, "skipped", [], Effect.succeed(notRun(c.call.name)))
      : reportCall(env, input, c.call, c._tag === "Invalid" ? "invalid" : "unknown_tool", issuesOf(c), Effect.succeed(c.envelope)))
  if (Either.isLeft(spent)) return yield* spent.left
  const usage = yield* input.budget.usage()
  const issues = checked.flatMap(issuesOf)
  yield* publish(env, { _tag: "RepairSpent", turn: input.turn, round: input.round, repairs: usage.repairs, limit: env.limits.maxToolArgumentRepairs, issues })
  return { answered } satisfies RoundOutput
})

/**
 * A round of valid (and unknown) calls: each runs in its span, concurrently when the provider allows. Before
 * each executor starts, the round yields to the event loop if it has run long (`breathe`), so the turn's
 * deadline can interrupt a round of executors that never yield themselves.
 */
const runRound = Effect.fnUntraced(function*(env: Env, input: RoundInput, checked: ReadonlyArray<Checked>) {
  const concurrency = env.provider.capabilities.supportsParallelToolCalls && checked.length > 1 ? "unbounded" : 1
  const round = breath()
  const answered = yield* Effect.forEach(checked, (c) =>
    c._tag === "Valid"
      ? reportCall(env, input, c.call, "valid", [], execute(env, input, c, round))
      : reportCall(env, input, c.call, "unknown_tool", [], Effect.succeed(c.envelope)), { concurrency })
  return { answered } satisfies RoundOutput
})

/** The answer of a call past the round's `maxToolCallsPerRound`: not run, not checked, may be sent again. */
export const pastRoundCap = (tool: string, cap: number): ToolEnvelope.Failure =>
  ToolEnvelope.failure("rejected", `not run: a round runs at most ${cap} tool call(s); send it again in a later round`, {
    tool,
    retryable: true
  })

/**
 * Answers every call of one round: its first `maxToolCallsPerRound` atomically (all run, or none), the calls
 * after them `rejected` without being checked or run.
 */
export const answerRound = (
  env: Env,
  input: RoundInput
): Effect.Effect<RoundOutput, ToolArgumentRepairExhausted | Errors.InvalidToolSchema | Errors.SessionStoreError | Errors.SessionBusy> =>
  Effect.gen(function*() {
    const cap = env.limits.maxToolCallsPerRound ?? RunLimits.defaultMaxToolCallsPerRound
    const admitted = input.calls.length > cap ? input.calls.slice(0, cap) : input.calls
    const checked = yield* Effect.forEach(admitted, (call) => check(env, input, call))
    const { answered } = checked.some((c) => c._tag === "Invalid")
      ? yield* rejectRound(env, input, checked)
      : yield* runRound(env, input, checked)
    if (admitted.length === input.calls.length) return { answered }
    const refused = yield* Effect.forEach(input.calls.slice(cap), (call) =>
      reportCall(env, input, call, "skipped", [], Effect.succeed(pastRoundCap(call.name, cap))))
    return { answered: [...answered, ...refused] } satisfies RoundOutput
  })

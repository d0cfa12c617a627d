/**
 * A session made with a `SessionStore` in context: its lease taken, a snapshot imported when one is given,
 * its committed state loaded into the session's `Ref`s (undo steps rebuilt from the toolkit by tool name),
 * and every turn a stopped process left pending closed the way a failed turn is: its calls that started and
 * never answered become outstanding effects (reason `interrupted`, the same idempotency key; never run
 * again), its answered calls are compensated by the usual rules, and history keeps its user message and the
 * calls left in effect, each with its result, so every tool call in history is answered.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type { JsonValue as J } from "@toolgate/json-schema"
import type { SessionBusy, SessionStoreError } from "../Errors.js"
import type * as Compensation from "../Compensation.js"
import { InvalidOptions, ToolFailure } from "../Errors.js"
import type * as Message from "../Message.js"
import * as RunLimits from "../RunLimits.js"
import * as SessionStore from "../SessionStore.js"
import type * as Tool from "../Tool.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import { undoStep } from "./sessionCalls.js"
import { compensate } from "./sessionCompensate.js"
import * as SessionJournal from "./sessionJournal.js"
import type { Env, Execution, UndoEntry, UndoStep } from "./sessionState.js"

/** How a session takes its store's lease. */
export interface LeaseOptions {
  readonly ttl: Duration.Duration
  /** `fail`: `SessionBusy` while another holds the session; `wait`: until its lease is released or expires, at most `waitMillis`. */
  readonly onBusy: "fail" | "wait"
  /** How long `wait` waits at most (default twice `ttl`: a holder that stopped has let its lease expire by then); past it, `SessionBusy`. */
  readonly waitMillis?: number | undefined
}

/**
 * The session's journal on `store`: the lease taken for a fresh owner (released when the scope the session
 * was made in closes, when there is one; otherwise it expires), `snapshot` imported when given.
 */
export const open = Effect.fnUntraced(function*(
  store: SessionStore.Service,
  session: string,
  lease: LeaseOptions,
  snapshot: SessionStore.SessionSnapshot | undefined
) {
  const owner = crypto.randomUUID()
  const acquire = store.acquire(session, owner, lease.ttl)
  const held = yield* lease.onBusy === "fail"
    ? acquire
    : Effect.retry(acquire, {
      while: (e) => e._tag === "SessionBusy",
      // the last `SessionBusy` is the answer once the wait is over
      schedule: Schedule.upTo(Schedule.spaced(Duration.millis(50)), Duration.millis(lease.waitMillis ?? 2 * Duration.toMillis(lease.ttl)))
    })
  const durable = SessionJournal.make(store, held, lease.ttl)
  const scope = yield* Effect.serviceOption(Scope.Scope)
  if (Option.isSome(scope)) {
    yield* Scope.addFinalizer(
      scope.value,
      Effect.catchAll(SessionJournal.release(durable), (e) => Effect.logWarning(`The lease of session ${session} was not released; it expires`, e))
    )
    // forked after the release is added: the scope stops renewing before it releases
    yield* SessionJournal.keepRenewed(durable, scope.value)
  }
  if (snapshot !== undefined) yield* store.import(snapshot)
  return durable
})

/** A step whose tool or arguments no longer fit the toolkit: it fails when run, saying why. */
const unrunnable = (step: SessionStore.UndoStep, why: string): UndoStep => ({
  ...step,
  run: Effect.fail(new ToolFailure({ kind: "unavailable", message: `The undo of \`${step.tool}\` cannot run: ${why}.` }))
})

/** An undo step rebuilt from the store: the toolkit's tool of that name, given the stored arguments, result and key. */
const rebuild = (env: Env, step: SessionStore.UndoStep): Effect.Effect<UndoStep> => {
  const tool = env.toolkit.tools.get(step.tool) as Tool.Tool<any, never> | undefined
  if (tool?.undo === undefined) return Effect.succeed(unrunnable(step, "the toolkit has no tool of that name with an undo"))
  return env.validator.prepare(tool, step.arguments, { callId: step.callId }).pipe(
    Effect.map((prepared) =>
      prepared._tag === "Prepared"
        ? undoStep(env, tool, prepared, step.result as J.JsonValue, step.idempotencyKey)
        : unrunnable(step, "its stored arguments hold refs")
    ),
    Effect.catchAll((e) => Effect.succeed(unrunnable(step, `its stored arguments no longer fit the tool (${e.message})`)))
  )
}

/** A committed undo entry, its steps rebuilt. */
const entryOf = (env: Env, entry: SessionStore.UndoEntry): Effect.Effect<UndoEntry> =>
  Effect.map(Effect.forEach(entry.steps, (s) => rebuild(env, s)), (steps) => ({ ...entry, steps }))

/** Sets the session's state to a stored session's committed state. */
export const restore = (env: Env, stored: SessionStore.Stored): Effect.Effect<void> =>
  Effect.gen(function*() {
    const s = stored.snapshot
    yield* Ref.set(env.history, s.history)
    yield* Ref.set(env.undoLog, yield* Effect.forEach(s.undoLog, (e) => entryOf(env, e)))
    yield* Ref.set(env.results, new Map(s.results.map((r) => [r.callId, r.envelope] as const)))
    yield* Ref.set(env.artifacts, new Map(s.results.filter((r) => r.artifacts.length > 0).map((r) => [r.callId, new Map(r.artifacts)] as const)))
    yield* Ref.set(env.outstanding, s.outstanding)
    yield* Ref.set(env.lastUsage, s.usage === undefined ? Option.none() : Option.some(s.usage))
    yield* Ref.set(env.turns, stored.nextTurn - 1)
  })

/** A journaled call as the turn's execution (its undo rebuilt when it answered a success). */
const executionOf = (env: Env, call: SessionStore.JournalCall): Effect.Effect<Execution> =>
  Effect.gen(function*() {
    const tool = env.toolkit.tools.get(call.tool)
    const envelope = call.envelope
    const undo = envelope?.ok === true && tool?.undo !== undefined
      ? yield* rebuild(env, { callId: call.callId, tool: call.tool, arguments: call.arguments, result: envelope.result as J.JsonValue, idempotencyKey: call.idempotencyKey })
      : undefined
    return {
      callId: call.callId,
      tool: call.tool,
      round: call.round,
      arguments: call.arguments as J.JsonValue,
      idempotencyKey: call.idempotencyKey,
      undoable: tool?.undo !== undefined,
      artifacts: new Map(),
      envelope,
      timedOut: envelope?.ok === false && envelope.kind === "timeout",
      undo
    }
  })

/** Closes a turn a stopped process left pending, as a failed turn closes (see the module's comment). */
const closePending = (env: Env, durable: SessionJournal.Durable, pending: SessionStore.PendingTurn) =>
  Effect.gen(function*() {
    const executions = yield* Effect.forEach(pending.calls, (c) => executionOf(env, c))
    const millis = env.limits.turnDeadlineMillis ?? RunLimits.defaultTurnDeadlineMillis
    const compensated = executions.length === 0 ? undefined : yield* compensate(env, pending.turn, executions, millis)
    const user = pending.messages.find((m): m is Message.User => m._tag === "User")
    const messages = [...(user === undefined ? [] : [user]), ...(compensated?.messages ?? [])]
    yield* SessionJournal.rollback(durable, pending.turn, messages, compensated?.outstanding ?? [], undefined)
    yield* Ref.update(env.history, (h) => [...h, ...messages])
  })

/** The failure an undo step started before its process stopped is reported with. */
const undoInterrupted = (tool: string) =>
  ToolEnvelope.failure("execution_error", "The undo started and its process stopped before it answered: it may have run, so it is not run again.", { tool })

/**
 * Takes every undo step the stored session marks started (its process stopped before the undo answered) out
 * of its turn's steps and makes it an outstanding effect (reason `interrupted`, the call's idempotency key),
 * in the store first; answers the stored session as it is then.
 */
const closeStartedUndos = (durable: SessionJournal.Durable, stored: SessionStore.Stored): Effect.Effect<SessionStore.Stored, SessionStoreError> =>
  Effect.gen(function*() {
    const added: Array<Compensation.OutstandingEffect> = []
    const undoLog: Array<SessionStore.UndoEntry> = []
    for (const entry of stored.snapshot.undoLog) {
      for (const step of entry.steps) {
        if (step.started !== true) continue
        const effect: Compensation.OutstandingEffect = {
          callId: step.callId,
          tool: step.tool,
          round: 0,
          arguments: step.arguments,
          envelope: { ok: true, result: step.result },
          idempotencyKey: step.idempotencyKey,
          turn: entry.turn,
          reason: "interrupted",
          undoFailure: undoInterrupted(step.tool)
        }
        yield* durable.store.undoStepInterrupted(durable.session, entry.turn, step.callId, effect)
        added.push(effect)
      }
      undoLog.push(entry.steps.some((s) => s.started === true) ? { ...entry, steps: entry.steps.filter((s) => s.started !== true) } : entry)
    }
    if (added.length === 0) return stored
    return { ...stored, snapshot: { ...stored.snapshot, undoLog, outstanding: [...stored.snapshot.outstanding, ...added] } }
  })

/** Loads the stored session into `env` (nothing when it was never stored) and closes its pending turns (also when a lapsed lease is taken again: another owner may have changed the session). */
export const resume = (env: Env, durable: SessionJournal.Durable): Effect.Effect<void, SessionStoreError | SessionBusy> =>
  Effect.gen(function*() {
    const stored = yield* durable.store.load(durable.session)
    if (Option.isNone(stored)) return
    yield* restore(env, yield* closeStartedUndos(durable, stored.value))
    for (const pending of stored.value.pending) yield* closePending(env, durable, pending)
  })

/** A session without a store started from `snapshot` (its undo ranges checked against its history). */
const seed = (env: Env, snapshot: SessionStore.SessionSnapshot): Effect.Effect<void, InvalidOptions> =>
  SessionStore.toRows(snapshot, Number.MAX_SAFE_INTEGER).pipe(
    Effect.mapError((e) => new InvalidOptions({ of: "AgentSession", detail: `snapshot: ${e.detail}` })),
    Effect.zipRight(restore(env, { snapshot, nextTurn: snapshot.turns + 1, pending: [] }))
  )

/** A new session's state: resumed from its store (a snapshot given was imported there), seeded from `snapshot`, or empty. */
export const start = (
  env: Env,
  durable: SessionJournal.Durable | undefined,
  snapshot: SessionStore.SessionSnapshot | undefined
): Effect.Effect<void, InvalidOptions | SessionStoreError | SessionBusy> =>
  durable !== undefined ? resume(env, durable) : snapshot !== undefined ? seed(env, snapshot) : Effect.void

/** Before a turn: the lease renewed (the session reloaded when it had lapsed), then the user's message queued for the journal. */
export const beginTurn = (env: Env, durable: SessionJournal.Durable, user: Message.Message): Effect.Effect<void, SessionStoreError | SessionBusy> =>
  Effect.gen(function*() {
    if (yield* SessionJournal.renewLapsed(durable)) yield* resume(env, durable)
    SessionJournal.begin(durable, user)
  })

/** The session's committed state as a snapshot (called between turns: sends and exports are serialized). */
export const snapshotOf = (env: Env): Effect.Effect<SessionStore.SessionSnapshot> =>
  Effect.gen(function*() {
    const undoLog = yield* Ref.get(env.undoLog)
    const artifacts = yield* Ref.get(env.artifacts)
    const turnOf = new Map(undoLog.flatMap((e) => e.calls.map((id) => [id, e.turn] as const)))
    const usage = yield* Ref.get(env.lastUsage)
    return {
      version: 1,
      id: env.id,
      turns: yield* Ref.get(env.turns),
      history: yield* Ref.get(env.history),
      undoLog: undoLog.map((e) => ({ ...e, steps: e.steps.map(SessionJournal.stepData) })),
      results: Array.from(yield* Ref.get(env.results), ([callId, envelope]) => ({
        callId,
        turn: turnOf.get(callId) ?? 0,
        envelope,
        artifacts: [...(artifacts.get(callId) ?? [])]
      })),
      outstanding: yield* Ref.get(env.outstanding),
      ...(Option.isSome(usage) ? { usage: usage.value } : {})
    } satisfies SessionStore.SessionSnapshot
  })

/**
 * The write-ahead journal of a session made with a `SessionStore` in context: every call is journaled
 * before its executor runs and its envelope after, a turn is committed or rolled back in the store before
 * memory changes, and undo steps and reconciliations are written as they happen. The session's `Ref`s stay
 * the one state a running session reads; the store is what a new process rebuilds them from.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { JsonValue as J } from "@toolgate/json-schema"
import type * as AgentSession from "../AgentSession.js"
import type * as Compensation from "../Compensation.js"
import type { SessionBusy, SessionStoreError } from "../Errors.js"
import type * as Message from "../Message.js"
import type * as SessionStore from "../SessionStore.js"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import type { Execution, UndoStep } from "./sessionState.js"

/** The session's store, its lease holder id and what of the running turn is not journaled yet. */
export interface Durable {
  readonly store: SessionStore.Service
  /** The session's id in the store. */
  readonly session: string
  /** Who holds the session's lease: every fenced write names it. */
  readonly owner: string
  /** How long the lease lasts from each renewal. */
  readonly ttl: Duration.Duration
  /** Until when (epoch milliseconds) the lease is surely this owner's: the expiry of its last renewal. */
  heldUntil: number
  /** The running turn's messages the store does not have yet (sends are serialized, so one list serves). */
  unjournaled: Array<Message.Message>
  /** Turns running now (the session-long renewer renews only while one does). */
  running: number
  /** Whether a session-long renewer runs (`keepRenewed`); without one, each turn forks its own. */
  renewer: boolean
  /** Whether calls are journaled outside the turn's own effects (a registry-aware provider runs them): see `refuse`. */
  outside: boolean
  /** While such a turn runs: fails it with the first write the store refused. */
  refused: Deferred.Deferred<never, SessionStoreError | SessionBusy> | undefined
}

/**
 * Before a turn: answers whether the lease had lapsed since the last renewal (another owner may have taken
 * the session and changed it meanwhile, so the caller reloads it), renewing it unless it was renewed within
 * the last third of its time to live (then at least two thirds are left, and the turn's own renewals keep it
 * from there; every journaled write is fenced by the store all the same).
 */
export const renewLapsed = (durable: Durable): Effect.Effect<boolean, SessionBusy | SessionStoreError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (now < durable.heldUntil - (Duration.toMillis(durable.ttl) * 2) / 3) return Effect.succeed(false)
    return Effect.as(renew(durable), now >= durable.heldUntil)
  })

/** A running turn's first message: the store gets it with the turn's first journaled call. */
export const begin = (durable: Durable, user: Message.Message): void => {
  durable.unjournaled = [user]
}

/** Renews the lease and remembers until when it holds. */
const renew = (durable: Durable): Effect.Effect<void, SessionBusy | SessionStoreError> =>
  Effect.map(durable.store.renew(durable.session, durable.owner, durable.ttl), (lease) => void (durable.heldUntil = lease.expiresAt))

/** A durable journal for `session`. */
export const make = (store: SessionStore.Service, lease: SessionStore.Lease, ttl: Duration.Duration): Durable =>
  ({ store, session: lease.session, owner: lease.owner, ttl, heldUntil: lease.expiresAt, unjournaled: [], running: 0, renewer: false, outside: false, refused: undefined })

/** Messages of the running turn to hand to the store with its next journaled call (or its commit). */
export const queue = (durable: Durable, messages: ReadonlyArray<Message.Message>): void => {
  for (const m of messages) durable.unjournaled.push(m)
}

/** Journals `execution` before its executor runs, with the turn's messages the store does not have yet. */
export const started = (durable: Durable, execution: Execution, turn: number): Effect.Effect<void, SessionStoreError | SessionBusy> =>
  Effect.suspend(() => {
    const messages = durable.unjournaled
    durable.unjournaled = []
    return durable.store.callStarted({
      session: durable.session,
      owner: durable.owner,
      turn,
      round: execution.round,
      callId: execution.callId,
      tool: execution.tool,
      arguments: execution.arguments,
      idempotencyKey: execution.idempotencyKey,
      ...(messages.length === 0 ? {} : { messages })
    })
  })

/** Journals the envelope a call answered with. */
export const finished = (durable: Durable, turn: number, callId: string, envelope: ToolEnvelope.Envelope): Effect.Effect<void, SessionStoreError> =>
  durable.store.callFinished({ session: durable.session, turn, callId, envelope })

/** An undo step as the store keeps it. */
export const stepData = (step: UndoStep): SessionStore.UndoStep => ({
  callId: step.callId,
  tool: step.tool,
  arguments: step.arguments,
  result: step.result,
  idempotencyKey: step.idempotencyKey
})

/** What a turn's commit writes. */
export interface TurnCommit {
  readonly turn: number
  readonly messages: ReadonlyArray<Message.Message>
  readonly calls: ReadonlyArray<string>
  readonly steps: ReadonlyArray<UndoStep>
  readonly kept: ReadonlyArray<Compensation.OutstandingEffect>
  readonly results: ReadonlyArray<SessionStore.SessionResult>
  readonly usage: AgentSession.UsageReport
}

/** Commits a turn in the store (before memory changes: a failed write fails the turn, which then rolls back). */
export const commit = (durable: Durable, c: TurnCommit): Effect.Effect<void, SessionStoreError | SessionBusy> =>
  Effect.suspend(() => {
    durable.unjournaled = []
    return durable.store.commitTurn({
      session: durable.session,
      owner: durable.owner,
      turn: c.turn,
      messages: c.messages,
      undo: { calls: c.calls, steps: c.steps.map(stepData), kept: c.kept },
      results: c.results,
      usage: c.usage
    })
  })

/** Closes a failed turn in the store: history keeps `messages`, `outstanding` joins the session's. */
export const rollback = (
  durable: Durable,
  turn: number,
  messages: ReadonlyArray<Message.Message>,
  outstanding: ReadonlyArray<Compensation.OutstandingEffect>,
  usage: AgentSession.UsageReport | undefined
): Effect.Effect<void, SessionStoreError | SessionBusy> =>
  Effect.suspend(() => {
    durable.unjournaled = []
    return durable.store.rollbackTurn({
      session: durable.session,
      owner: durable.owner,
      turn,
      messages,
      outstanding,
      ...(usage === undefined ? {} : { usage })
    })
  })

/** Marks an undo step started in the store before its undo runs (`true`), or not after it failed (`false`). */
export const stepStarted = (durable: Durable, turn: number, callId: string, started: boolean): Effect.Effect<void, SessionStoreError> =>
  durable.store.undoStepStarted(durable.session, turn, callId, started)

/** Marks an undo step done in the store. */
export const stepDone = (durable: Durable, turn: number, callId: string): Effect.Effect<void, SessionStoreError> =>
  durable.store.undoStepDone(durable.session, turn, callId)

/** Takes an undone turn out of the store. */
export const turnUndone = (durable: Durable, turn: number): Effect.Effect<void, SessionStoreError> => durable.store.undoTurn(durable.session, turn)

/** Removes reconciled outstanding effects from the store. */
export const reconciled = (durable: Durable, keys: ReadonlyArray<string>): Effect.Effect<void, SessionStoreError> =>
  Effect.asVoid(durable.store.reconcile(durable.session, keys))

/** A committed turn's results as the store keeps them for chain scope `session`. */
export const sessionResults = (
  turn: number,
  results: ReadonlyMap<string, ToolEnvelope.Envelope>,
  artifacts: ReadonlyMap<string, ReadonlyMap<string, J.JsonValue>>
): Array<SessionStore.SessionResult> =>
  Array.from(results, ([callId, envelope]) => ({ callId, turn, envelope, artifacts: [...(artifacts.get(callId) ?? [])] }))

/** A third of the lease's time to live: how often a running turn renews it. */
const third = (durable: Durable) => Duration.millis(Math.max(1, Math.floor(Duration.toMillis(durable.ttl) / 3)))

/**
 * Renews the lease every third of its time to live while a turn runs, for as long as `scope` is open (the
 * scope the session was made in): one fiber for the session, not one per turn. A renewal that fails is tried
 * again a third later; meanwhile the turn's next fenced write (a journaled call, the commit) fails with
 * `SessionBusy` if another owner took the session.
 */
export const keepRenewed = (durable: Durable, scope: Scope.Scope): Effect.Effect<void> =>
  Effect.suspend(() => {
    durable.renewer = true
    const tick = Effect.delay(Effect.suspend(() => durable.running > 0 ? Effect.ignore(renew(durable)) : Effect.void), third(durable))
    return Effect.asVoid(Effect.forkIn(Effect.forever(tick), scope))
  })

/**
 * Calls of this session are journaled outside its turns' own effects (a registry-aware provider runs them
 * and gets an envelope back, whatever happens): from now on each turn runs so that `refuse` can fail it.
 */
export const journalsOutside = (durable: Durable): void => {
  durable.outside = true
}

/**
 * Fails the running turn with a write the store refused (a call journaled outside the turn's effects, see
 * `journalsOutside`): the turn ends with that error as when its own write fails, and rolls back.
 */
export const refuse = (durable: Durable, error: SessionStoreError | SessionBusy): Effect.Effect<void> =>
  Effect.suspend(() => durable.refused === undefined ? Effect.void : Effect.asVoid(Deferred.fail(durable.refused, error)))

/** `turn`, failed by the first write `refuse` reports while it runs (when the session journals outside its turns). */
const refusable = <A, E, R>(durable: Durable, turn: Effect.Effect<A, E, R>): Effect.Effect<A, E | SessionStoreError | SessionBusy, R> =>
  !durable.outside ? turn : Effect.suspend(() => {
    const refused = Deferred.unsafeMake<never, SessionStoreError | SessionBusy>(FiberId.none)
    durable.refused = refused
    return Effect.raceFirst(turn, Deferred.await(refused)).pipe(Effect.ensuring(Effect.sync(() => void (durable.refused = undefined))))
  })

/**
 * Runs a turn while its lease is renewed every third of its time to live, so a turn longer than the lease
 * keeps it: by the session's renewer (`keepRenewed`), or else by a fiber of the turn's own. A renewal that
 * fails stops the turn's own fiber: the lease was lost, and the turn's next fenced write fails with `SessionBusy`.
 * A write refused outside the turn's effects fails it (`refuse`).
 */
export const renewing = <A, E, R>(durable: Durable, turn: Effect.Effect<A, E, R>): Effect.Effect<A, E | SessionStoreError | SessionBusy, R> => {
  if (durable.renewer) {
    return Effect.suspend(() => {
      durable.running++
      return Effect.ensuring(refusable(durable, turn), Effect.sync(() => void durable.running--))
    })
  }
  return Effect.scoped(Effect.zipRight(Effect.forkScoped(Effect.repeat(Effect.delay(renew(durable), third(durable)), Schedule.forever)), refusable(durable, turn)))
}

/** Gives up the session's lease. */
export const release = (durable: Durable): Effect.Effect<void, SessionStoreError> => durable.store.release(durable.session, durable.owner)

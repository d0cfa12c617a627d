/**
 * Where a session's records live between turns and across processes: committed history, the undo log (as
 * data, replayed through each tool's `undo` by name), session-scope results, outstanding effects, usage, and
 * a write-ahead journal of the turn in progress (every call is recorded before its executor runs and its
 * envelope after). A lease keeps one writer per session. The in-memory layer is the default; `@toolgate/sql`
 * implements the same service on SQLite and Postgres.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { OutstandingEffect } from "./Compensation.js"
import type { SessionBusy, SessionStoreError } from "./Errors.js"
import { Json } from "./internal/schemas.js"
import * as Codec from "./internal/sessionStoreCodec.js"
import * as Memory from "./internal/sessionStoreMemory.js"
import * as Rows from "./internal/sessionStoreRows.js"
import * as Message from "./Message.js"
import * as Telemetry from "./Telemetry.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

const Turn = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/** What a turn spent: round trips, repairs, invalid rounds and tokens (`AgentSession.UsageReport`). */
export const Usage = Schema.Struct({
  roundTrips: Count,
  repairs: Count,
  invalidRounds: Count,
  inputTokens: Count,
  outputTokens: Count
}).annotations({ identifier: "SessionStore.Usage" })
export type Usage = typeof Usage.Type

/** One executed call of a committed turn as its tool's `undo` needs it: replayed later through the tool of that name. */
export const UndoStep = Schema.Struct({
  callId: Schema.String,
  tool: Schema.String,
  arguments: Json,
  /** The call's success result (what `undo` is given as `result`). */
  result: Json,
  idempotencyKey: Schema.String,
  /** Present when the step's undo started and did not record its end: it may have run, so it is never run again. */
  started: Schema.optionalWith(Schema.Literal(true), { exact: true })
}).annotations({ identifier: "SessionStore.UndoStep" })
export type UndoStep = typeof UndoStep.Type

/**
 * One committed turn in the undo log: where its messages sit in history (`start`, `count`, computed when read),
 * its answered calls, its undo steps still to run (execution order) and the calls no undo can take back.
 */
export const UndoEntry = Schema.Struct({
  turn: Turn,
  start: Count,
  count: Count,
  calls: Schema.Array(Schema.String),
  steps: Schema.Array(UndoStep),
  kept: Schema.Array(OutstandingEffect)
}).annotations({ identifier: "SessionStore.UndoEntry" })
export type UndoEntry = typeof UndoEntry.Type

/** `step` marked started, or not (for store implementations). */
export const mark = (step: UndoStep, started: boolean): UndoStep => {
  const { started: _, ...rest } = step
  return started ? { ...rest, started: true } : rest
}

/** The stored part of a committed turn's undo entry (its turn is the row's; `start` and `count` come from where its messages sit). */
export const UndoRecord = Schema.Struct({
  calls: UndoEntry.fields.calls,
  steps: UndoEntry.fields.steps,
  kept: UndoEntry.fields.kept
}).annotations({ identifier: "SessionStore.UndoRecord" })
export type UndoRecord = typeof UndoRecord.Type

/** An artifact a call's executor saved: its name and value (pairs, so no name can be an object's `__proto__`). */
export const Artifact = Schema.Tuple(Schema.String, Json)

/** A committed call's envelope and artifacts, kept for tool chaining with chain scope `session`. */
export const SessionResult = Schema.Struct({
  callId: Schema.String,
  turn: Turn,
  envelope: ToolEnvelope.Envelope,
  artifacts: Schema.Array(Artifact)
}).annotations({ identifier: "SessionStore.SessionResult" })
export type SessionResult = typeof SessionResult.Type

/** A journaled call of a turn not yet committed: `envelope` is absent when its executor started and never answered. */
export const JournalCall = Schema.Struct({
  turn: Turn,
  round: Count,
  callId: Schema.String,
  tool: Schema.String,
  arguments: Json,
  idempotencyKey: Schema.String,
  envelope: Schema.optionalWith(ToolEnvelope.Envelope, { exact: true })
}).annotations({ identifier: "SessionStore.JournalCall" })
export type JournalCall = typeof JournalCall.Type

/** A turn that was journaled but neither committed nor rolled back (its process stopped): its messages so far and its calls in start order. */
export const PendingTurn = Schema.Struct({
  turn: Turn,
  messages: Schema.Array(Message.Message),
  calls: Schema.Array(JournalCall)
}).annotations({ identifier: "SessionStore.PendingTurn" })
export type PendingTurn = typeof PendingTurn.Type

/** The committed state of a session, versioned: what `export` gives and `import` seeds a session from. */
export const SessionSnapshot = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  /** Turns started so far (the next turn is `turns + 1`). */
  turns: Turn,
  history: Schema.Array(Message.Message),
  undoLog: Schema.Array(UndoEntry),
  results: Schema.Array(SessionResult),
  outstanding: Schema.Array(OutstandingEffect),
  /** The usage of the last turn that made a request. */
  usage: Schema.optionalWith(Usage, { exact: true })
}).annotations({ identifier: "SessionSnapshot" })
export type SessionSnapshot = typeof SessionSnapshot.Type

/** A stored session as `load` reads it: the committed state, the turn number to use next and the turns left pending. */
export interface Stored {
  readonly snapshot: SessionSnapshot
  /** The number the next turn takes: past every committed and pending turn. */
  readonly nextTurn: number
  /** Turns journaled but never closed, oldest first: resume reports their calls and closes them with `rollbackTurn`. */
  readonly pending: ReadonlyArray<PendingTurn>
}

/** A call about to run, journaled before its executor starts. */
export interface CallStart {
  readonly session: string
  /** The lease holder writing (fencing): the write fails with `SessionBusy` while another owner holds an unexpired lease on the session. */
  readonly owner?: string
  readonly turn: number
  readonly round: number
  readonly callId: string
  readonly tool: string
  /** The prepared arguments the executor receives. */
  readonly arguments: unknown
  readonly idempotencyKey: string
  /** Messages of the turn not journaled yet (the user message, the assistant message that made the call, …), appended to the turn's pending messages. */
  readonly messages?: ReadonlyArray<Message.Message>
}

/** A call's envelope, journaled when its executor answered. */
export interface CallEnd {
  readonly session: string
  readonly turn: number
  readonly callId: string
  readonly envelope: ToolEnvelope.Envelope
}

/** A turn's commit: its messages join history, its undo entry the log, its results the session's; its journal is dropped. One transaction. */
export interface Commit {
  readonly session: string
  /** The lease holder writing (fencing): the write fails with `SessionBusy` while another owner holds an unexpired lease on the session. */
  readonly owner?: string
  readonly turn: number
  /** Every message of the turn, in order (they replace its pending messages). */
  readonly messages: ReadonlyArray<Message.Message>
  /** Its undo entry, when it executed calls. */
  readonly undo?: UndoRecord
  readonly results: ReadonlyArray<SessionResult>
  readonly usage?: Usage
}

/** A failed or interrupted turn's close: what history keeps of it, and its effects no compensation took back. One transaction. */
export interface Rollback {
  readonly session: string
  /** The lease holder writing (fencing): the write fails with `SessionBusy` while another owner holds an unexpired lease on the session. */
  readonly owner?: string
  readonly turn: number
  /** What history keeps (its user message). */
  readonly messages: ReadonlyArray<Message.Message>
  readonly outstanding: ReadonlyArray<OutstandingEffect>
  readonly usage?: Usage
}

/** A held lease: who holds the session and until when (epoch milliseconds). */
export interface Lease {
  readonly session: string
  readonly owner: string
  readonly expiresAt: number
}

/** One stored session in a listing. */
export interface SessionInfo {
  readonly id: string
  /** Turns started so far. */
  readonly turns: number
  readonly messages: number
  readonly outstanding: number
  /** Turns journaled and never closed. */
  readonly pending: number
  /** The lease, when one is held and not expired. */
  readonly lease: Lease | undefined
}

/** What a store keeps of a session and how it changes it; every effect fails with `SessionStoreError` when the store cannot do it. */
export interface Service {
  /** The session's committed state, next turn and pending turns; `None` when it was never stored. */
  readonly load: (session: string) => Effect.Effect<Option.Option<Stored>, SessionStoreError>
  /** Every stored session, by id. */
  readonly list: Effect.Effect<ReadonlyArray<SessionInfo>, SessionStoreError>
  /** Journals a call before its executor runs (the turn becomes pending if it was not). */
  readonly callStarted: (call: CallStart) => Effect.Effect<void, SessionStoreError | SessionBusy>
  /** Journals the envelope of a call that answered. */
  readonly callFinished: (call: CallEnd) => Effect.Effect<void, SessionStoreError>
  /** Commits a turn (atomically). */
  readonly commitTurn: (commit: Commit) => Effect.Effect<void, SessionStoreError | SessionBusy>
  /** Closes a failed turn (atomically): history keeps `messages`, `outstanding` joins the session's. */
  readonly rollbackTurn: (rollback: Rollback) => Effect.Effect<void, SessionStoreError | SessionBusy>
  /**
   * Marks one undo step of a committed turn as started (`true`, before its undo runs: a process that stops
   * before `undoStepDone` leaves it so) or not (`false`, after its undo failed: it may run again).
   */
  readonly undoStepStarted: (session: string, turn: number, callId: string, started: boolean) => Effect.Effect<void, SessionStoreError>
  /** Takes a started undo step that never recorded its end out of its turn's steps and adds `effect` (its call, reason `interrupted`) to the outstanding effects (atomically). */
  readonly undoStepInterrupted: (session: string, turn: number, callId: string, effect: OutstandingEffect) => Effect.Effect<void, SessionStoreError>
  /** Marks one undo step of a committed turn as done (a retry, in this process or another, does not run it again). */
  readonly undoStepDone: (session: string, turn: number, callId: string) => Effect.Effect<void, SessionStoreError>
  /** Takes a committed turn out (atomically): its messages, undo entry and results leave, its kept calls become outstanding. */
  readonly undoTurn: (session: string, turn: number) => Effect.Effect<void, SessionStoreError>
  /** Removes the outstanding effects with these idempotency keys; answers those removed. */
  readonly reconcile: (session: string, idempotencyKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<OutstandingEffect>, SessionStoreError>
  /** Takes the session's lease for `owner` (or extends it when `owner` holds it); `SessionBusy` while another holds an unexpired one. */
  readonly acquire: (session: string, owner: string, ttl: Duration.DurationInput) => Effect.Effect<Lease, SessionBusy | SessionStoreError>
  /** Extends the lease `owner` holds; `SessionBusy` when another took it (it had expired). */
  readonly renew: (session: string, owner: string, ttl: Duration.DurationInput) => Effect.Effect<Lease, SessionBusy | SessionStoreError>
  /** Gives up the lease when `owner` holds it (otherwise nothing). */
  readonly release: (session: string, owner: string) => Effect.Effect<void, SessionStoreError>
  /** The session's committed state as a snapshot; `None` when it was never stored. */
  readonly export: (session: string) => Effect.Effect<Option.Option<SessionSnapshot>, SessionStoreError>
  /** Stores a session from a snapshot (under `snapshot.id`); fails when that session already exists. */
  readonly import: (snapshot: SessionSnapshot) => Effect.Effect<void, SessionStoreError>
  /** Forgets a session (its records and lease). */
  readonly delete: (session: string) => Effect.Effect<void, SessionStoreError>
}

/** The session store service. */
export class SessionStore extends Context.Tag("@toolgate/runtime/SessionStore")<SessionStore, Service>() {}

/** How big a stored value may be. */
export const Options = Schema.Struct({
  /** The most characters one stored value (a message, an envelope, a call's arguments) may take as JSON (default 16 MiB: a 10 MB tool result fits). */
  maxValueLength: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true })
}).annotations({ identifier: "SessionStore.Options" })
export type Options = typeof Options.Type

/** The default `maxValueLength`: 16 MiB of JSON text. */
export const defaultMaxValueLength = 16 * 1024 * 1024

/** `self` in the span of a store operation: `SessionStore.{operation}` with `toolgate.session.id` (none for `list`). */
const op = (operation: string, session?: string) => Telemetry.span(`SessionStore.${operation}`, session === undefined ? {} : { "toolgate.session.id": session })

/**
 * `service` with every operation in its span (`SessionStore.load`, `SessionStore.callStarted`, …, each with
 * `toolgate.session.id`): the one place store operations are traced, whatever keeps the records. Every store
 * this package and `@toolgate/sql` make is traced so; a store of another implementation is traced by this.
 */
export const traced = (service: Service): Service => ({
  load: (session) => op("load", session)(service.load(session)),
  list: op("list")(service.list),
  callStarted: (call) => op("callStarted", call.session)(service.callStarted(call)),
  callFinished: (call) => op("callFinished", call.session)(service.callFinished(call)),
  commitTurn: (commit) => op("commitTurn", commit.session)(service.commitTurn(commit)),
  rollbackTurn: (rollback) => op("rollbackTurn", rollback.session)(service.rollbackTurn(rollback)),
  undoStepStarted: (session, turn, callId, started) => op("undoStepStarted", session)(service.undoStepStarted(session, turn, callId, started)),
  undoStepInterrupted: (session, turn, callId, effect) => op("undoStepInterrupted", session)(service.undoStepInterrupted(session, turn, callId, effect)),
  undoStepDone: (session, turn, callId) => op("undoStepDone", session)(service.undoStepDone(session, turn, callId)),
  undoTurn: (session, turn) => op("undoTurn", session)(service.undoTurn(session, turn)),
  reconcile: (session, keys) => op("reconcile", session)(service.reconcile(session, keys)),
  acquire: (session, owner, ttl) => op("acquire", session)(service.acquire(session, owner, ttl)),
  renew: (session, owner, ttl) => op("renew", session)(service.renew(session, owner, ttl)),
  release: (session, owner) => op("release", session)(service.release(session, owner)),
  export: (session) => op("export", session)(service.export(session)),
  import: (snapshot) => op("import", snapshot.id)(service.import(snapshot)),
  delete: (session) => op("delete", session)(service.delete(session))
})

/** An in-memory store with `options` (records live as long as the store), traced (`traced`). */
export const makeMemory = (options: Options = {}): Effect.Effect<Service> => Effect.map(Memory.make(options), traced)

/** The in-memory store, the default: a fresh one each time the layer is built. */
export const layerMemory: Layer.Layer<SessionStore> = Layer.effect(SessionStore, makeMemory({}))

/** A session's rows as a store keeps them: JSON text per value, history tagged by turn (for store implementations). */
export type SessionRows = Rows.Rows

/** Encodes a value to store as JSON text through `schema`, at most `maxValueLength` characters (for store implementations). */
export const encodeValue = <A, I>(schema: Schema.Schema<A, I>, value: A, maxValueLength: number, session: string, operation: string): Effect.Effect<string, SessionStoreError> =>
  Codec.encode(schema, value, maxValueLength, { session, operation })

/** Decodes a stored value (a corrupted one is a `SessionStoreError` naming the session and operation; for store implementations). */
export const decodeValue = <A, I>(schema: Schema.Schema<A, I>, text: unknown, session: string, operation: string): Effect.Effect<A, SessionStoreError> =>
  Codec.decode(schema, text, { session, operation })

/**
 * A journal row's call text: `call` with the turn's `messages` not journaled before it (read back by
 * `fromRows` as the pending turn's messages), each value within `maxValueLength` (for store implementations).
 */
export const encodeJournalCall = (call: JournalCall, messages: ReadonlyArray<Message.Message>, maxValueLength: number, session: string): Effect.Effect<string, SessionStoreError> =>
  Rows.journalCall(call, messages, maxValueLength, { session, operation: "callStarted" })

/** The stored session a session's rows hold, every row decoded (for store implementations). */
export const fromRows = (rows: SessionRows, operation: string): Effect.Effect<Stored, SessionStoreError> => Rows.assemble(rows, operation)

/** The rows of a snapshot, its undo ranges checked against its history (for store implementations). */
export const toRows = (snapshot: SessionSnapshot, maxValueLength: number): Effect.Effect<SessionRows, SessionStoreError> => Rows.split(snapshot, maxValueLength)

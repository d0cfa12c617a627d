/**
 * The in-memory session store: the same rows of JSON text a SQL store keeps (so limits, hostile values and
 * reads behave the same), in maps that live as long as the store. Every change is encoded first and then
 * applied in one synchronous step, so no reader sees half of it.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OutstandingEffect } from "../Compensation.js"
import * as Message from "../Message.js"
import * as Errors from "../Errors.js"
import * as SessionStore from "../SessionStore.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Codec from "./sessionStoreCodec.js"
import * as Rows from "./sessionStoreRows.js"

interface Session {
  nextTurn: number
  usage: string | undefined
  /** Committed history. */
  messages: Array<Rows.MessageRow>
  /** The pending turns' messages, by turn. */
  pending: Map<number, Array<string>>
  undo: Map<number, string>
  results: Array<{ readonly turn: number; readonly callId: string; readonly body: string }>
  outstanding: Array<{ readonly key: string; readonly body: string }>
  journal: Map<string, { turn: number; call: string; envelope: string | undefined }>
}

const fresh = (): Session => ({ nextTurn: 1, usage: undefined, messages: [], pending: new Map(), undo: new Map(), results: [], outstanding: [], journal: new Map() })

const rowsOf = (id: string, s: Session): Rows.Rows => ({
  id,
  nextTurn: s.nextTurn,
  usage: s.usage,
  messages: [...s.messages, ...[...s.pending].flatMap(([turn, bodies]) => bodies.map((body) => ({ turn, pending: true, body })))],
  undo: [...s.undo].sort(([a], [b]) => a - b).map(([turn, body]) => ({ turn, body })),
  results: s.results.map((r) => r.body),
  outstanding: s.outstanding.map((o) => o.body),
  journal: [...s.journal.values()]
})

const journalKey = (turn: number, callId: string) => `${turn}\u0000${callId}`

/** A fresh in-memory store. */
export const make = (options: SessionStore.Options): Effect.Effect<SessionStore.Service> =>
  Effect.sync(() => {
    const limit = options.maxValueLength ?? SessionStore.defaultMaxValueLength
    const sessions = new Map<string, Session>()
    const leases = new Map<string, SessionStore.Lease>()
    const fail = (session: string, operation: string, detail: string) => Effect.fail(new Errors.SessionStoreError({ session, operation, detail }))
    const open = (id: string) => {
      let s = sessions.get(id)
      if (s === undefined) sessions.set(id, s = fresh())
      return s
    }
    const bump = (s: Session, turn: number) => (s.nextTurn = Math.max(s.nextTurn, turn + 1))

    /** Fencing: `SessionBusy` when `owner` is given and another owner holds an unexpired lease on `session`. */
    const fence = (session: string, owner: string | undefined) =>
      owner === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const held = leases.get(session)
        return held !== undefined && held.owner !== owner && held.expiresAt > now
          ? Effect.fail(new Errors.SessionBusy({ session, holder: held.owner, expiresAt: held.expiresAt }))
          : Effect.void
      })

    const callStarted = (call: SessionStore.CallStart) =>
      Effect.gen(function*() {
        const site = { session: call.session, operation: "callStarted" }
        const { messages = [], owner: __, session: _, ...record } = call
        const body = yield* Codec.encode(SessionStore.JournalCall, record as SessionStore.JournalCall, limit, site)
        const bodies = yield* Codec.encodeAll(Message.Message, messages, limit, site)
        yield* fence(call.session, call.owner)
        const s = open(call.session)
        const key = journalKey(call.turn, call.callId)
        if (s.journal.has(key)) return yield* fail(call.session, "callStarted", `call ${call.callId} of turn ${call.turn} is already journaled`)
        bump(s, call.turn)
        if (bodies.length > 0) s.pending.set(call.turn, [...(s.pending.get(call.turn) ?? []), ...bodies])
        s.journal.set(key, { turn: call.turn, call: body, envelope: undefined })
      })

    const callFinished = (call: SessionStore.CallEnd) =>
      Effect.gen(function*() {
        const envelope = yield* Codec.encode(ToolEnvelope.Envelope, call.envelope, limit, { session: call.session, operation: "callFinished" })
        const row = sessions.get(call.session)?.journal.get(journalKey(call.turn, call.callId))
        if (row === undefined) return yield* fail(call.session, "callFinished", `call ${call.callId} of turn ${call.turn} was not journaled`)
        row.envelope = envelope
      })

    /** Drops a turn's pending messages and journal, then appends its closing messages. */
    const close = (s: Session, turn: number, bodies: ReadonlyArray<string>, usage: string | undefined) => {
      s.pending.delete(turn)
      for (const [key, row] of s.journal) if (row.turn === turn) s.journal.delete(key)
      for (const body of bodies) s.messages.push({ turn, pending: false, body })
      if (usage !== undefined) s.usage = usage
      bump(s, turn)
    }

    const commitTurn = (commit: SessionStore.Commit) =>
      Effect.gen(function*() {
        const site = { session: commit.session, operation: "commitTurn" }
        const bodies = yield* Codec.encodeAll(Message.Message, commit.messages, limit, site)
        const undo = commit.undo === undefined ? undefined : yield* Codec.encode(SessionStore.UndoRecord, commit.undo, limit, site)
        const results = yield* Codec.encodeAll(SessionStore.SessionResult, commit.results, limit, site)
        const usage = commit.usage === undefined ? undefined : yield* Codec.encode(SessionStore.Usage, commit.usage, limit, site)
        yield* fence(commit.session, commit.owner)
        const s = open(commit.session)
        close(s, commit.turn, bodies, usage)
        if (undo !== undefined) s.undo.set(commit.turn, undo)
        const ids = new Set(commit.results.map((r) => r.callId))
        s.results = s.results.filter((r) => !ids.has(r.callId))
        commit.results.forEach((r, i) => s.results.push({ turn: commit.turn, callId: r.callId, body: results[i]! }))
      })

    const rollbackTurn = (rollback: SessionStore.Rollback) =>
      Effect.gen(function*() {
        const site = { session: rollback.session, operation: "rollbackTurn" }
        const bodies = yield* Codec.encodeAll(Message.Message, rollback.messages, limit, site)
        const outstanding = yield* Codec.encodeAll(OutstandingEffect, rollback.outstanding, limit, site)
        const usage = rollback.usage === undefined ? undefined : yield* Codec.encode(SessionStore.Usage, rollback.usage, limit, site)
        yield* fence(rollback.session, rollback.owner)
        const s = open(rollback.session)
        close(s, rollback.turn, bodies, usage)
        rollback.outstanding.forEach((o, i) => s.outstanding.push({ key: o.idempotencyKey, body: outstanding[i]! }))
      })

    const entryOf = (session: string, turn: number, operation: string) =>
      Effect.gen(function*() {
        const s = sessions.get(session)
        const body = s?.undo.get(turn)
        if (s === undefined || body === undefined) return yield* fail(session, operation, `turn ${turn} is not in the undo log`)
        return { s, record: yield* Codec.decode(SessionStore.UndoRecord, body, { session, operation }) }
      })

    const undoStepDone = (session: string, turn: number, callId: string) =>
      Effect.gen(function*() {
        const { record, s } = yield* entryOf(session, turn, "undoStepDone")
        const body = yield* Codec.encode(SessionStore.UndoRecord, { ...record, steps: record.steps.filter((st) => st.callId !== callId) }, limit, {
          session,
          operation: "undoStepDone"
        })
        s.undo.set(turn, body)
      })

    const undoStepStarted = (session: string, turn: number, callId: string, started: boolean) =>
      Effect.gen(function*() {
        const { record, s } = yield* entryOf(session, turn, "undoStepStarted")
        const steps = record.steps.map((st) => st.callId !== callId ? st : SessionStore.mark(st, started))
        s.undo.set(turn, yield* Codec.encode(SessionStore.UndoRecord, { ...record, steps }, limit, { session, operation: "undoStepStarted" }))
      })

    const undoStepInterrupted = (session: string, turn: number, callId: string, effect: OutstandingEffect) =>
      Effect.gen(function*() {
        const site = { session, operation: "undoStepInterrupted" }
        const { record, s } = yield* entryOf(session, turn, site.operation)
        const body = yield* Codec.encode(SessionStore.UndoRecord, { ...record, steps: record.steps.filter((st) => st.callId !== callId) }, limit, site)
        const outstanding = yield* Codec.encode(OutstandingEffect, effect, limit, site)
        s.undo.set(turn, body)
        s.outstanding.push({ key: effect.idempotencyKey, body: outstanding })
      })

    const undoTurn = (session: string, turn: number) =>
      Effect.gen(function*() {
        const { record, s } = yield* entryOf(session, turn, "undoTurn")
        const kept = yield* Codec.encodeAll(OutstandingEffect, record.kept, limit, { session, operation: "undoTurn" })
        s.undo.delete(turn)
        s.messages = s.messages.filter((m) => m.turn !== turn)
        s.results = s.results.filter((r) => r.turn !== turn)
        record.kept.forEach((k, i) => s.outstanding.push({ key: k.idempotencyKey, body: kept[i]! }))
      })

    const reconcile = (session: string, keys: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const s = sessions.get(session)
        if (s === undefined) return []
        const wanted = new Set(keys)
        const removed = s.outstanding.filter((o) => wanted.has(o.key))
        const decoded = yield* Effect.forEach(removed, (o) => Codec.decode(OutstandingEffect, o.body, { session, operation: "reconcile" }))
        s.outstanding = s.outstanding.filter((o) => !wanted.has(o.key))
        return decoded
      })

    const take = (session: string, owner: string, ttl: Duration.DurationInput) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const held = leases.get(session)
        const free = held === undefined || held.owner === owner || held.expiresAt <= now
        if (!free) {
          return yield* new Errors.SessionBusy({ session, holder: held?.owner ?? "", expiresAt: held?.expiresAt ?? now })
        }
        const lease = { session, owner, expiresAt: now + Duration.toMillis(ttl) }
        leases.set(session, lease)
        return lease
      })

    const load = (session: string, operation: string) => {
      const s = sessions.get(session)
      return s === undefined ? Effect.succeedNone : Effect.asSome(Rows.assemble(rowsOf(session, s), operation))
    }

    const list = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return [...sessions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, s]): SessionStore.SessionInfo => {
        const lease = leases.get(id)
        return {
          id,
          turns: Math.max(s.nextTurn, ...[...s.journal.values()].map((j) => j.turn + 1)) - 1,
          messages: s.messages.length,
          outstanding: s.outstanding.length,
          pending: new Set([...s.journal.values()].map((j) => j.turn).concat([...s.pending.keys()])).size,
          lease: lease !== undefined && lease.expiresAt > now ? lease : undefined
        }
      })
    })

    const importSnapshot = (snapshot: SessionStore.SessionSnapshot) =>
      Effect.gen(function*() {
        const rows = yield* Rows.split(snapshot, limit)
        if (sessions.has(snapshot.id)) return yield* fail(snapshot.id, "import", "the session already exists")
        sessions.set(snapshot.id, {
          nextTurn: rows.nextTurn,
          usage: rows.usage ?? undefined,
          messages: [...rows.messages],
          pending: new Map(),
          undo: new Map(rows.undo.map((u) => [u.turn, u.body])),
          results: rows.results.map((body, i) => ({ body, turn: snapshot.results[i]!.turn, callId: snapshot.results[i]!.callId })),
          outstanding: rows.outstanding.map((body, i) => ({ body, key: snapshot.outstanding[i]!.idempotencyKey })),
          journal: new Map()
        })
      })

    return SessionStore.SessionStore.of({
      load: (session) => load(session, "load"),
      list,
      callStarted,
      callFinished,
      commitTurn,
      rollbackTurn,
      undoStepStarted,
      undoStepInterrupted,
      undoStepDone,
      undoTurn,
      reconcile,
      acquire: (session, owner, ttl) => take(session, owner, ttl),
      renew: (session, owner, ttl) => take(session, owner, ttl),
      release: (session, owner) =>
        Effect.sync(() => {
          if (leases.get(session)?.owner === owner) leases.delete(session)
        }),
      export: (session) => Effect.map(load(session, "export"), Option.map((stored) => stored.snapshot)),
      import: importSnapshot,
      delete: (session) =>
        Effect.sync(() => {
          sessions.delete(session)
          leases.delete(session)
        })
    })
  })

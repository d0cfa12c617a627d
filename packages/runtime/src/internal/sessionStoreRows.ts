/**
 * A session as rows of JSON text, the shape every store keeps (in memory or in SQL tables), and the two
 * directions between rows and a `SessionStore.Stored`: decoding every row on the way in, and splitting a
 * snapshot into rows for `import` (its undo entries' ranges checked against its history).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { OutstandingEffect } from "../Compensation.js"
import * as Message from "../Message.js"
import * as Errors from "../Errors.js"
import * as SessionStore from "../SessionStore.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Codec from "./sessionStoreCodec.js"

/** A history message: the turn it belongs to (0: seeded, no turn) and whether its turn is still pending. */
export interface MessageRow {
  readonly turn: number
  readonly pending: boolean
  readonly body: string
}

/** A journaled call: its start record and, once it answered, its envelope. */
export interface JournalRow {
  readonly turn: number
  readonly call: string
  readonly envelope: string | null | undefined
}

/**
 * A journal row's call text: the call as it started and, when it brought them, the turn's messages not
 * journaled before it (one row, so journaling a call is one write). Rows without `messages` are calls whose
 * messages were journaled as pending message rows.
 */
let journalRecord: Schema.Schema<SessionStore.JournalCall & { readonly messages?: ReadonlyArray<Message.Message> }, any> | undefined
// made on first use: this module and `SessionStore` import each other
const JournalRecord = () =>
  journalRecord ??= Schema.Struct({
    ...SessionStore.JournalCall.fields,
    messages: Schema.optionalWith(Schema.Array(Message.Message), { exact: true })
  })

/**
 * A journal row's call text for `call` and `messages`, each value encoded (and held to `limit`) on its own:
 * the call's JSON object with the messages' JSON texts appended as its `messages` array.
 */
export const journalCall = (call: SessionStore.JournalCall, messages: ReadonlyArray<Message.Message>, limit: number, site: Codec.Site): Effect.Effect<string, Errors.SessionStoreError> =>
  Effect.gen(function*() {
    const body = yield* Codec.encode(SessionStore.JournalCall, call, limit, site)
    if (messages.length === 0) return body
    const bodies = yield* Codec.encodeAll(Message.Message, messages, limit, site)
    return `${body.slice(0, -1)},"messages":[${bodies.join(",")}]}`
  })

/** Everything a store keeps of one session, rows in their order. */
export interface Rows {
  readonly id: string
  readonly nextTurn: number
  readonly usage: string | null | undefined
  /** History in order, pending turns' messages among them. */
  readonly messages: ReadonlyArray<MessageRow>
  /** Undo entries, oldest turn first. */
  readonly undo: ReadonlyArray<{ readonly turn: number; readonly body: string }>
  readonly results: ReadonlyArray<string>
  readonly outstanding: ReadonlyArray<string>
  /** Journaled calls in start order. */
  readonly journal: ReadonlyArray<JournalRow>
}

/** The stored session the rows hold, every row decoded (a corrupted one fails naming the session). */
export const assemble = (rows: Rows, operation: string): Effect.Effect<SessionStore.Stored, Errors.SessionStoreError> =>
  Effect.gen(function*() {
    const site = { session: rows.id, operation }
    const history: Array<Message.Message> = []
    const ranges = new Map<number, { start: number; count: number }>()
    const pending = new Map<number, { messages: Array<Message.Message>; calls: Array<SessionStore.JournalCall> }>()
    const pendingOf = (turn: number) => {
      let p = pending.get(turn)
      if (p === undefined) pending.set(turn, p = { messages: [], calls: [] })
      return p
    }
    for (const row of rows.messages) {
      const message = yield* Codec.decode(Message.Message, row.body, site)
      if (row.pending) {
        pendingOf(row.turn).messages.push(message)
        continue
      }
      const range = ranges.get(row.turn)
      if (range === undefined) ranges.set(row.turn, { start: history.length, count: 1 })
      else range.count = history.length - range.start + 1
      history.push(message)
    }
    const undoLog: Array<SessionStore.UndoEntry> = []
    for (const { body, turn } of rows.undo) {
      const record = yield* Codec.decode(SessionStore.UndoRecord, body, site)
      undoLog.push({ turn, ...(ranges.get(turn) ?? { start: history.length, count: 0 }), ...record })
    }
    const results = yield* Effect.forEach(rows.results, (r) => Codec.decode(SessionStore.SessionResult, r, site))
    const outstanding = yield* Effect.forEach(rows.outstanding, (o) => Codec.decode(OutstandingEffect, o, site))
    for (const row of rows.journal) {
      const { messages, ...call } = yield* Codec.decode(JournalRecord(), row.call, site)
      if (messages !== undefined) pendingOf(row.turn).messages.push(...messages)
      const envelope = typeof row.envelope === "string" ? yield* Codec.decode(ToolEnvelope.Envelope, row.envelope, site) : undefined
      pendingOf(row.turn).calls.push(envelope === undefined ? call : { ...call, envelope })
    }
    const usage = typeof rows.usage === "string" ? yield* Codec.decode(SessionStore.Usage, rows.usage, site) : undefined
    const pendingTurns = [...pending].sort(([a], [b]) => a - b).map(([turn, p]) => ({ turn, ...p }))
    const nextTurn = Math.max(rows.nextTurn, ...pendingTurns.map((p) => p.turn + 1))
    const snapshot: SessionStore.SessionSnapshot = {
      version: 1,
      id: rows.id,
      turns: nextTurn - 1,
      history,
      undoLog,
      results,
      outstanding,
      ...(usage === undefined ? {} : { usage })
    }
    return { snapshot, nextTurn, pending: pendingTurns }
  })

/** The rows of a snapshot (its undo entries' ranges must lie in its history, in order, without overlap). */
export const split = (snapshot: SessionStore.SessionSnapshot, limit: number): Effect.Effect<Rows, Errors.SessionStoreError> =>
  Effect.gen(function*() {
    const site = { session: snapshot.id, operation: "import" }
    const turnOf = new Array<number>(snapshot.history.length).fill(0)
    let end = 0
    let last = 0
    for (const entry of snapshot.undoLog) {
      if (entry.turn <= last || entry.start < end || entry.start + entry.count > snapshot.history.length || entry.turn > snapshot.turns) {
        return yield* new Errors.SessionStoreError({
          ...site,
          detail: `the undo entry of turn ${entry.turn} (messages ${entry.start} to ${entry.start + entry.count}) does not fit the snapshot's history and turns`
        })
      }
      turnOf.fill(entry.turn, entry.start, entry.start + entry.count)
      end = entry.start + entry.count
      last = entry.turn
    }
    const bodies = yield* Codec.encodeAll(Message.Message, snapshot.history, limit, site)
    return {
      id: snapshot.id,
      nextTurn: snapshot.turns + 1,
      usage: snapshot.usage === undefined ? undefined : yield* Codec.encode(SessionStore.Usage, snapshot.usage, limit, site),
      messages: bodies.map((body, i) => ({ turn: turnOf[i]!, pending: false, body })),
      undo: yield* Effect.forEach(snapshot.undoLog, (e) =>
        Effect.map(Codec.encode(SessionStore.UndoRecord, { calls: e.calls, steps: e.steps, kept: e.kept }, limit, site), (body) => ({ turn: e.turn, body }))),
      results: yield* Codec.encodeAll(SessionStore.SessionResult, snapshot.results, limit, site),
      outstanding: yield* Codec.encodeAll(OutstandingEffect, snapshot.outstanding, limit, site),
      journal: []
    }
  })

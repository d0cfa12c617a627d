/**
 * A simple model of a session store, and random command sequences for it: the property test runs each
 * sequence on a store and on the model and compares what `load` reads after every command.
 */
import { Effect, FastCheck as fc, Option } from "effect"
import type { Compensation, Errors, Message, SessionStore } from "@toolgate/runtime"
import * as F from "./fixtures.js"

/** One store command, abstract: which session (0 or 1) and the choices it needs. */
export type Command =
  | { readonly _tag: "Start"; readonly s: number; readonly messages: number }
  | { readonly _tag: "Finish"; readonly s: number; readonly pick: number }
  | { readonly _tag: "Commit"; readonly s: number; readonly messages: number; readonly undo: boolean; readonly kept: number; readonly results: number }
  | { readonly _tag: "Rollback"; readonly s: number; readonly outstanding: number }
  | { readonly _tag: "StepDone"; readonly s: number }
  | { readonly _tag: "Undo"; readonly s: number }
  | { readonly _tag: "Reconcile"; readonly s: number; readonly pick: number }

const s = fc.integer({ min: 0, max: 1 })
const small = fc.integer({ min: 0, max: 3 })

/** Random command sequences. */
export const commands: fc.Arbitrary<ReadonlyArray<Command>> = fc.array(
  fc.oneof(
    fc.record({ _tag: fc.constant("Start" as const), s, messages: small }),
    fc.record({ _tag: fc.constant("Finish" as const), s, pick: fc.nat(5) }),
    fc.record({ _tag: fc.constant("Commit" as const), s, messages: fc.integer({ min: 1, max: 3 }), undo: fc.boolean(), kept: fc.nat(2), results: fc.nat(2) }),
    fc.record({ _tag: fc.constant("Rollback" as const), s, outstanding: fc.nat(2) }),
    fc.record({ _tag: fc.constant("StepDone" as const), s }),
    fc.record({ _tag: fc.constant("Undo" as const), s }),
    fc.record({ _tag: fc.constant("Reconcile" as const), s, pick: fc.nat(5) })
  ),
  { maxLength: 25 }
)

interface Session {
  nextTurn: number
  history: Array<{ turn: number; message: Message.Message }>
  undo: Map<number, SessionStore.UndoRecord>
  results: Array<SessionStore.SessionResult>
  outstanding: Array<Compensation.OutstandingEffect>
  pending: Array<{ turn: number; message: Message.Message }>
  journal: Array<SessionStore.JournalCall>
  usage: SessionStore.Usage | undefined
}

/** The model: what each session must read as. */
export class Model {
  readonly sessions = new Map<string, Session>()
  private counter = 0

  constructor(readonly ids: ReadonlyArray<string>) {}

  private session(id: string): Session {
    let x = this.sessions.get(id)
    if (x === undefined) {
      this.sessions.set(id, x = { nextTurn: 1, history: [], undo: new Map(), results: [], outstanding: [], pending: [], journal: [], usage: undefined })
    }
    return x
  }

  /** The turn a command acts on: the pending one, else the next. */
  private turnOf(x: Session): number {
    return x.journal[0]?.turn ?? x.nextTurn
  }

  /** Runs `command` on the model and on `store`. */
  run(command: Command, store: SessionStore.Service): Effect.Effect<void, Errors.SessionStoreError | Errors.SessionBusy> {
    const id = this.ids[command.s]!
    const x = this.session(id)
    const turn = this.turnOf(x)
    const n = ++this.counter
    switch (command._tag) {
      case "Start": {
        const messages = Array.from({ length: command.messages }, (_, i) => F.user(`pending ${n}.${i} \ud800`))
        const call = F.start(id, turn, `c${n}`, JSON.parse(`{"n":${n},"__proto__":{"x":${n}}}`), messages)
        x.pending.push(...messages.map((message) => ({ turn, message })))
        const { messages: _, session: __, ...record } = call
        x.journal.push(record as SessionStore.JournalCall)
        x.nextTurn = Math.max(x.nextTurn, turn + 1)
        return store.callStarted(call)
      }
      case "Finish": {
        const open = x.journal.filter((c) => c.envelope === undefined)
        const call = open[command.pick % Math.max(open.length, 1)]
        if (call === undefined) return Effect.void
        const envelope = F.ok({ finished: n })
        x.journal[x.journal.indexOf(call)] = { ...call, envelope }
        return store.callFinished({ session: id, turn: call.turn, callId: call.callId, envelope })
      }
      case "Commit": {
        const commit = F.oneCallTurn(id, turn, { n })
        const messages = commit.messages.slice(0, command.messages)
        const undo = command.undo ? { ...commit.undo!, kept: Array.from({ length: command.kept }, (_, i) => F.outstanding(id, turn, `k${n}.${i}`, "no_undo")) } : undefined
        const results = Array.from({ length: command.results }, (_, i) => ({ ...commit.results[0]!, callId: `r${n}.${i}` }))
        this.close(x, turn, messages)
        if (undo !== undefined) x.undo.set(turn, undo)
        x.results.push(...results)
        x.usage = commit.usage
        return store.commitTurn({ session: id, turn, messages, results, usage: commit.usage!, ...(undo === undefined ? {} : { undo }) })
      }
      case "Rollback": {
        const messages = [F.user(`failed ${n}`)]
        const outstanding = Array.from({ length: command.outstanding }, (_, i) => F.outstanding(id, turn, `o${n}.${i}`))
        this.close(x, turn, messages)
        x.outstanding.push(...outstanding)
        return store.rollbackTurn({ session: id, turn, messages, outstanding })
      }
      case "StepDone": {
        const last = [...x.undo.keys()].sort((a, b) => a - b).at(-1)
        if (last === undefined) return Effect.void
        const record = x.undo.get(last)!
        const callId = record.steps[0]?.callId ?? "none"
        x.undo.set(last, { ...record, steps: record.steps.filter((st) => st.callId !== callId) })
        return store.undoStepDone(id, last, callId)
      }
      case "Undo": {
        const last = [...x.undo.keys()].sort((a, b) => a - b).at(-1)
        if (last === undefined) return Effect.void
        const record = x.undo.get(last)!
        x.undo.delete(last)
        x.history = x.history.filter((h) => h.turn !== last)
        x.results = x.results.filter((r) => r.turn !== last)
        x.outstanding.push(...record.kept)
        return store.undoTurn(id, last)
      }
      case "Reconcile": {
        const key = x.outstanding[command.pick % Math.max(x.outstanding.length, 1)]?.idempotencyKey ?? "none"
        x.outstanding = x.outstanding.filter((o) => o.idempotencyKey !== key)
        return Effect.asVoid(store.reconcile(id, [key]))
      }
    }
  }

  private close(x: Session, turn: number, messages: ReadonlyArray<Message.Message>) {
    x.pending = x.pending.filter((p) => p.turn !== turn)
    x.journal = x.journal.filter((c) => c.turn !== turn)
    x.history.push(...messages.map((message) => ({ turn, message })))
    x.nextTurn = Math.max(x.nextTurn, turn + 1)
  }

  /** What `load` must read for `id`. */
  expected(id: string): Option.Option<SessionStore.Stored> {
    const x = this.sessions.get(id)
    if (x === undefined) return Option.none()
    const history = x.history.map((h) => h.message)
    const undoLog = [...x.undo].sort(([a], [b]) => a - b).map(([turn, record]) => {
      const start = x.history.findIndex((h) => h.turn === turn)
      const count = x.history.filter((h) => h.turn === turn).length
      return { turn, start: start === -1 ? history.length : start, count, ...record }
    })
    const pendingTurn = x.journal[0]?.turn
    return Option.some({
      snapshot: {
        version: 1,
        id,
        turns: x.nextTurn - 1,
        history,
        undoLog,
        results: x.results,
        outstanding: x.outstanding,
        ...(x.usage === undefined ? {} : { usage: x.usage })
      },
      nextTurn: x.nextTurn,
      pending: pendingTurn === undefined ? [] : [{ turn: pendingTurn, messages: x.pending.map((p) => p.message), calls: x.journal }]
    })
  }
}

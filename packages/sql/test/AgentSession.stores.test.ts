/**
 * A session on every store (in memory, SQLite, Postgres): resumed by a second store instance (another
 * process's connection), exported and seeded, one writer at a time, and failed typed when the journal cannot
 * be written.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { Errors, type SessionStore } from "@toolgate/runtime"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"
import { everyStore, sessionId } from "./support/backends.js"
import { answering, calling, kit, refusing, scripted, sessionOn } from "./support/sessionKit.js"

const backends = everyStore()

describe.each(backends)("AgentSession on %s", (_name, makeBackend) => {
  it.scopedLive("a second store instance resumes the session: history, undo log and outstanding effects, undo across instances", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("resume")
      const { runs, toolkit, undos } = kit()
      const model = scripted([calling("c1", "book", "a"), answering("booked"), calling("c1", "charge", "b"), answering("charged")])
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(yield* backend.open(), id, model.provider, toolkit)
        yield* s.send("book a")
        yield* s.send("charge b")
        return yield* s.export
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit)
        assert.deepStrictEqual(yield* s.export, first)
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 2, undone: [], notUndone: ["c1"] })
        assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.reason, o.idempotencyKey]), [["no_undo", runs[1]]])
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 1, undone: ["c1"], notUndone: [] })
        assert.deepStrictEqual((yield* s.reconcile([runs[1]!])).map((o) => o.idempotencyKey), [runs[1]])
      }))
      assert.deepStrictEqual(undos, [runs[0]])
      const stored = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.deepStrictEqual([stored.snapshot.history, stored.snapshot.undoLog, stored.snapshot.outstanding, stored.pending], [[], [], [], []])
    }), 120_000)

  it.scopedLive("export and seed: a snapshot under a new id is imported and resumed; importing over a stored session fails typed", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("export")
      const { toolkit, undos } = kit()
      const snapshot = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(yield* backend.open(), id, scripted([calling("c1", "book", "x"), answering("ok")]).provider, toolkit)
        yield* s.send("book x")
        return yield* s.export
      }))
      const copy = sessionId("copy")
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(yield* backend.open(), copy, scripted([]).provider, toolkit, { snapshot: { ...snapshot, id: copy } })
        assert.deepStrictEqual(yield* s.history, snapshot.history)
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn).undone, ["c1"])
      }))
      assert.strictEqual(undos.length, 1)
      const again = yield* Effect.flip(Effect.scoped(sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit, { snapshot })))
      assert.strictEqual(again._tag, "SessionStoreError")
    }), 120_000)

  it.scopedLive("one writer: a second session on the same id fails with SessionBusy while the first is open; after it closes the next one opens", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("lease")
      const { toolkit } = kit()
      yield* Effect.scoped(Effect.gen(function*() {
        yield* sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit)
        const busy = yield* Effect.flip(Effect.scoped(sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit)))
        assert.strictEqual(busy._tag, "SessionBusy")
      }))
      const s = yield* Effect.scoped(sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit))
      assert.strictEqual(s.id, id)
    }), 120_000)

  it.scopedLive("onBusy wait is bounded: past waitMillis a second writer fails with SessionBusy; within it, it gets the session once the first lets go", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("wait")
      const { toolkit } = kit()
      // two writers, each on a store instance of its own (another connection, as another process has)
      const first = yield* backend.open()
      const second = yield* backend.open()
      yield* Effect.scoped(Effect.gen(function*() {
        // the first holds a lease far longer than the wait
        yield* sessionOn(first, id, scripted([]).provider, toolkit, { leaseMillis: 600_000 })
        const busy = yield* Effect.flip(Effect.scoped(sessionOn(second, id, scripted([]).provider, toolkit, { onBusy: "wait", waitMillis: 300 })))
        assert.strictEqual(busy._tag, "SessionBusy")
        // a bound that is no positive integer is refused when the options are decoded
        const refused = yield* Effect.flip(Effect.scoped(sessionOn(second, id, scripted([]).provider, toolkit, { onBusy: "wait", waitMillis: 0 })))
        assert.strictEqual(refused._tag, "InvalidOptions")
        // a waiter with room to wait gets the session when the first one's scope closes
        const waiting = yield* Effect.fork(Effect.scoped(Effect.map(sessionOn(second, id, scripted([]).provider, toolkit, { onBusy: "wait", waitMillis: 60_000 }), (s) => s.id)))
        return waiting
      })).pipe(Effect.flatMap(Fiber.join), Effect.map((got) => assert.strictEqual(got, id)))
    }), 120_000)

  it.scopedLive("an undo that started and never recorded its end is resumed by another instance as outstanding (interrupted, same key), never run again", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("undo-start")
      const { runs, toolkit, undos } = kit()
      yield* Effect.scoped(Effect.flatMap(sessionOn(yield* backend.open(), id, scripted([calling("c1", "book", "a"), answering("booked")]).provider, toolkit), (s) => s.send("book a")))
      // the undo runs, and its process stops before the store hears that it answered
      const stopping = yield* backend.open()
      const store: SessionStore.Service = {
        ...stopping,
        undoStepDone: (session) => Effect.fail(new Errors.SessionStoreError({ session, operation: "undoStepDone", detail: "the process stopped" }))
      }
      yield* Effect.scoped(Effect.flatMap(sessionOn(store, id, scripted([]).provider, toolkit), (s) => Effect.exit(s.undoLastTurn)))
      assert.deepStrictEqual(undos, [runs[0]])
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(yield* backend.open(), id, scripted([]).provider, toolkit)
        assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.turn, o.callId, o.reason, o.idempotencyKey]), [[1, "c1", "interrupted", runs[0]]])
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 1, undone: [], notUndone: [] })
      }))
      assert.deepStrictEqual(undos, [runs[0]])
      const stored = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.deepStrictEqual([stored.snapshot.undoLog, stored.snapshot.outstanding.map((o) => o.idempotencyKey)], [[], [runs[0]]])
    }), 120_000)

  it.scopedLive("every store operation of a turn is traced the same way, whatever keeps the records", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("spans")
      const { toolkit } = kit()
      const { spans, tracer } = RecordingTracer.make()
      yield* Effect.scoped(Effect.flatMap(sessionOn(yield* backend.open(), id, scripted([calling("c1", "book", "a"), answering("booked")]).provider, toolkit), (s) => s.send("book a"))).pipe(
        Effect.withTracer(tracer)
      )
      const store = spans.filter((s) => s.name.startsWith("SessionStore."))
      assert.deepStrictEqual(store.map((s) => s.name), ["SessionStore.acquire", "SessionStore.load", "SessionStore.callStarted", "SessionStore.callFinished", "SessionStore.commitTurn", "SessionStore.release"])
      for (const s of store) {
        assert.strictEqual(s.attributes.get("toolgate.session.id"), id)
        assert.strictEqual(s.exit?._tag, "Success")
      }
    }), 120_000)

  it.scopedLive("a store that cannot journal the call fails the turn with SessionStoreError and the executor never runs", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("refused")
      const { runs, toolkit } = kit()
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* sessionOn(refusing(yield* backend.open()), id, scripted([calling("c1", "charge", "a"), answering("no")]).provider, toolkit)
        return yield* Effect.flip(s.send("charge a"))
      }))
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.deepStrictEqual(runs, [])
      const stored = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.deepStrictEqual([stored.snapshot.history.map((m) => m._tag), stored.snapshot.outstanding, stored.pending], [["User"], [], []])
    }), 120_000)
})

/**
 * One suite, every store: in memory, SQLite (a file in a temporary directory) and Postgres (a throwaway
 * cluster started for this file). Each test opens its store instances on the backend's data; a second
 * `open` is a second instance (a new connection), as another process would have.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { Errors } from "@toolgate/runtime"
import { everyStore, sessionId } from "./support/backends.js"
import * as F from "./support/fixtures.js"
import { commands, Model } from "./support/model.js"

const backends = everyStore()

const storeError = <A>(exit: Exit.Exit<A, unknown>): Errors.SessionStoreError => {
  assert.isTrue(Exit.isFailure(exit))
  const failure = Exit.isFailure(exit) ? exit.cause : undefined
  const error = failure?._tag === "Fail" ? failure.error : undefined
  assert.instanceOf(error, Errors.SessionStoreError)
  return error as Errors.SessionStoreError
}

describe.each(backends)("%s", (_name, makeBackend) => {
  it.scopedLive("commits, rolls back, undoes and exports a session, and reads it back from another instance", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const store = yield* backend.open()
      const id = sessionId("history")
      yield* store.commitTurn(F.oneCallTurn(id, 1))
      yield* store.rollbackTurn({ session: id, turn: 2, messages: [F.user("fails")], outstanding: [F.outstanding(id, 2, "c2", "no_undo")] })
      const third = F.oneCallTurn(id, 3)
      yield* store.commitTurn({ ...third, undo: { ...third.undo!, kept: [F.outstanding(id, 3, "k3", "no_undo")] } })
      const other = yield* backend.open()
      const stored = Option.getOrThrow(yield* other.load(id))
      assert.strictEqual(stored.nextTurn, 4)
      assert.deepStrictEqual(stored.pending, [])
      const s = stored.snapshot
      assert.deepStrictEqual(s.history, [...F.oneCallTurn(id, 1).messages, F.user("fails"), ...F.oneCallTurn(id, 3).messages])
      assert.deepStrictEqual(s.undoLog.map((e) => [e.turn, e.start, e.count, e.steps.length]), [[1, 0, 4, 1], [3, 5, 4, 1]])
      assert.deepStrictEqual(s.results.map((r) => r.callId), ["call_1", "call_3"])
      assert.deepStrictEqual(s.results[0]!.artifacts, [["file", { turn: 1 }]])
      assert.deepStrictEqual(s.outstanding, [F.outstanding(id, 2, "c2", "no_undo")])
      assert.deepStrictEqual(s.usage, F.oneCallTurn(id, 3).usage)

      // undo: a step marked done stays done; the turn's messages and results leave; its kept calls become outstanding
      yield* other.undoStepDone(id, 3, "call_3")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load(id)).snapshot.undoLog[1]!.steps, [])
      yield* store.undoTurn(id, 3)
      const undone = Option.getOrThrow(yield* other.export(id))
      assert.deepStrictEqual(undone.history, [...F.oneCallTurn(id, 1).messages, F.user("fails")])
      assert.deepStrictEqual(undone.undoLog.map((e) => e.turn), [1])
      assert.deepStrictEqual(undone.results.map((r) => r.callId), ["call_1"])
      assert.strictEqual(undone.turns, 3)
      assert.deepStrictEqual(undone.outstanding, [F.outstanding(id, 2, "c2", "no_undo"), F.outstanding(id, 3, "k3", "no_undo")])
      const undoAgain = yield* Effect.exit(store.undoTurn(id, 3))
      assert.strictEqual(storeError(undoAgain).operation, "undoTurn")

      // reconcile removes by idempotency key and answers what it removed
      const removed = yield* store.reconcile(id, [F.key(id, 2, "c2"), "unknown"])
      assert.deepStrictEqual(removed, [F.outstanding(id, 2, "c2", "no_undo")])
      assert.deepStrictEqual(Option.getOrThrow(yield* other.export(id)).outstanding, [F.outstanding(id, 3, "k3", "no_undo")])

      // export → import under another id → the same snapshot
      const copy = sessionId("copy")
      yield* other.import({ ...undone, id: copy, outstanding: [] })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.export(copy)), { ...undone, id: copy, outstanding: [] })
      assert.strictEqual(storeError(yield* Effect.exit(store.import({ ...undone, id: copy }))).operation, "import")
      assert.isTrue(Option.isNone(yield* store.load(sessionId("never"))))
    }))

  it.scopedLive("journals calls in start order; a call started and never finished is read as such after reopening", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("journal")
      const first = yield* backend.open()
      yield* first.commitTurn(F.oneCallTurn(id, 1))
      const asked = [F.user("three writes"), F.assistant("", [{ id: "a", name: "write_file" }, { id: "b", name: "write_file" }, { id: "c", name: "write_file" }])]
      yield* first.callStarted(F.start(id, 2, "a", { n: 1 }, asked))
      yield* first.callFinished({ session: id, turn: 2, callId: "a", envelope: F.ok("A") })
      yield* first.callStarted(F.start(id, 2, "b", { n: 2 }, [F.result("a", "write_file", "A")]))
      yield* first.callStarted(F.start(id, 2, "c", { n: 3 }))
      yield* first.callFinished({ session: id, turn: 2, callId: "c", envelope: F.ok("C") })
      assert.strictEqual(storeError(yield* Effect.exit(first.callStarted(F.start(id, 2, "c")))).operation, "callStarted")
      assert.strictEqual(storeError(yield* Effect.exit(first.callFinished({ session: id, turn: 2, callId: "z", envelope: F.ok(1) }))).operation, "callFinished")

      const reopened = yield* backend.open()
      const stored = Option.getOrThrow(yield* reopened.load(id))
      assert.strictEqual(stored.nextTurn, 3)
      assert.strictEqual(stored.snapshot.turns, 2)
      assert.deepStrictEqual(stored.snapshot.history, F.oneCallTurn(id, 1).messages)
      assert.strictEqual(stored.pending.length, 1)
      const pending = stored.pending[0]!
      assert.strictEqual(pending.turn, 2)
      assert.deepStrictEqual(pending.messages, [...asked, F.result("a", "write_file", "A")])
      assert.deepStrictEqual(pending.calls.map((c) => [c.callId, c.envelope]), [["a", F.ok("A")], ["b", undefined], ["c", F.ok("C")]])
      assert.deepStrictEqual(pending.calls[1], { turn: 2, round: 1, callId: "b", tool: "write_file", arguments: { n: 2 }, idempotencyKey: F.key(id, 2, "b") })
      const listed = (yield* reopened.list).find((s) => s.id === id)
      assert.deepStrictEqual(listed && { ...listed, lease: undefined }, { id, turns: 2, messages: 4, outstanding: 0, pending: 1, lease: undefined })

      // resume closes the turn: the interrupted call becomes outstanding with its key, the journal is gone
      yield* reopened.rollbackTurn({ session: id, turn: 2, messages: [F.user("three writes")], outstanding: [F.outstanding(id, 2, "b")] })
      const closed = Option.getOrThrow(yield* first.load(id))
      assert.deepStrictEqual(closed.pending, [])
      assert.deepStrictEqual(closed.snapshot.outstanding.map((o) => [o.idempotencyKey, o.reason]), [[F.key(id, 2, "b"), "interrupted"]])
      assert.deepStrictEqual(closed.snapshot.history.at(-1), F.user("three writes"))
    }))

  it.scopedLive("one lease holder per session: another owner gets SessionBusy until release or expiry", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("lease")
      const a = yield* backend.open()
      const b = yield* backend.open()
      const held = yield* a.acquire(id, "worker-a", "1 minute")
      assert.strictEqual(held.owner, "worker-a")
      const busy = yield* Effect.flip(b.acquire(id, "worker-b", "1 minute"))
      assert.instanceOf(busy, Errors.SessionBusy)
      assert.deepStrictEqual([busy._tag === "SessionBusy" && busy.holder, busy._tag === "SessionBusy" && busy.expiresAt], ["worker-a", held.expiresAt])
      const renewed = yield* a.renew(id, "worker-a", "2 minutes")
      assert.isTrue(renewed.expiresAt > held.expiresAt)
      assert.strictEqual((yield* b.list).length >= 0, true)
      yield* b.release(id, "worker-b")
      assert.strictEqual((yield* Effect.flip(b.acquire(id, "worker-b", "1 minute")))._tag, "SessionBusy")
      yield* a.release(id, "worker-a")
      assert.strictEqual((yield* b.acquire(id, "worker-b", "20 millis")).owner, "worker-b")
      // a crashed holder's lease expires
      yield* Effect.sleep("60 millis")
      assert.strictEqual((yield* a.acquire(id, "worker-a", "1 minute")).owner, "worker-a")
      assert.strictEqual((yield* Effect.flip(b.renew(id, "worker-b", "1 minute")))._tag, "SessionBusy")
    }))

  it.scopedLive("fencing: a write naming an owner fails SessionBusy while another holds the lease, and writes nothing", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("fence")
      const a = yield* backend.open()
      const b = yield* backend.open()
      yield* a.acquire(id, "worker-a", "150 millis")
      const stale = yield* Effect.flip(b.commitTurn({ ...F.oneCallTurn(id, 1), owner: "worker-b" }))
      assert.deepStrictEqual(stale._tag === "SessionBusy" ? stale.holder : stale, "worker-a")
      assert.strictEqual((yield* Effect.flip(b.callStarted({ ...F.start(id, 1, "c"), owner: "worker-b" })))._tag, "SessionBusy")
      assert.strictEqual((yield* Effect.flip(b.rollbackTurn({ session: id, turn: 1, messages: [], outstanding: [], owner: "worker-b" })))._tag, "SessionBusy")
      assert.isTrue(Option.isNone(yield* a.load(id)))
      yield* a.callStarted({ ...F.start(id, 1, "c"), owner: "worker-a" })
      yield* a.commitTurn({ ...F.oneCallTurn(id, 1), owner: "worker-a" })
      // once the holder's lease has expired, another owner's writes go through
      yield* Effect.sleep("200 millis")
      yield* b.commitTurn({ ...F.oneCallTurn(id, 2), owner: "worker-b" })
      assert.deepStrictEqual(Option.getOrThrow(yield* b.load(id)).snapshot.undoLog.map((e) => e.turn), [1, 2])
    }))

  it.scopedLive("100 sessions at once, each with its own turns", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const store = yield* backend.open()
      const ids = Array.from({ length: 100 }, (_, i) => sessionId(`many${i}`))
      yield* Effect.forEach(ids, (id) =>
        Effect.forEach([1, 2, 3], (turn) =>
          Effect.gen(function*() {
            yield* store.callStarted(F.start(id, turn, `call_${turn}`))
            yield* store.callFinished({ session: id, turn, callId: `call_${turn}`, envelope: F.ok({ written: turn }) })
            yield* store.commitTurn(F.oneCallTurn(id, turn))
          }), { discard: true }), { concurrency: "unbounded", discard: true })
      const loaded = yield* Effect.forEach(ids, (id) => Effect.map(store.load(id), Option.getOrThrow), { concurrency: 10 })
      for (const [i, stored] of loaded.entries()) {
        assert.strictEqual(stored.snapshot.id, ids[i])
        assert.strictEqual(stored.snapshot.history.length, 12)
        assert.deepStrictEqual(stored.snapshot.undoLog.map((e) => e.start), [0, 4, 8])
        assert.deepStrictEqual(stored.pending, [])
      }
      const listed = new Set((yield* store.list).map((s) => s.id))
      assert.isTrue(ids.every((id) => listed.has(id)))
    }))

  it.scopedLive("hostile contents round-trip exactly: lone surrogates, NUL, __proto__ keys, deep nesting", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("hostile\u00e9")
      const store = yield* backend.open()
      const text = "lone \ud800 and \udfff, pair \ud83d\ude00, nul \u0000, bell \u0007, quote \" backslash \\ \u2028"
      const proto = JSON.parse("{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{}},\"x\\u0000\":\"\\udc00\"}")
      let deep: unknown = "bottom \udc00"
      for (let i = 0; i < 400; i++) deep = i % 2 === 0 ? [deep] : { d: deep }
      const value = { text, proto, deep } as never
      const commit = { ...F.oneCallTurn(id, 1, value), messages: [F.user(text), F.assistant(text, [{ id: "call_1", name: "w", arguments: proto }]), F.result("call_1", "w", value)] }
      yield* store.commitTurn(commit)
      yield* store.callStarted(F.start(id, 2, `id ${text}`, proto, [F.user(text)]))
      // ids that differ only in a lone surrogate, or hold NUL, stay apart
      for (const callId of ["\ud800", "\ud801", "nul\u0000"]) yield* store.callStarted(F.start(id, 2, callId))
      yield* store.callFinished({ session: id, turn: 2, callId: "\ud801", envelope: F.ok(text) })
      yield* store.acquire(id, `owner ${text}`, "1 minute")
      const reopened = yield* backend.open()
      assert.strictEqual((yield* Effect.flip(reopened.acquire(id, "other", "1 minute")))._tag === "SessionBusy", true)
      assert.deepStrictEqual((yield* reopened.list).find((s) => s.id === id)?.lease?.owner, `owner ${text}`)
      const stored = Option.getOrThrow(yield* reopened.load(id))
      assert.deepStrictEqual(stored.pending[0]!.calls.map((c) => [c.callId, c.envelope]), [[`id ${text}`, undefined], ["\ud800", undefined], ["\ud801", F.ok(text)], ["nul\u0000", undefined]])
      assert.deepStrictEqual(stored.snapshot.history, commit.messages)
      const first = stored.snapshot.history[0]
      assert.strictEqual(first?._tag === "User" ? first.text : undefined, text)
      const args = stored.pending[0]!.calls[0]!.arguments as Record<string, unknown>
      assert.isTrue(Object.hasOwn(args, "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
      assert.deepStrictEqual(args, proto)
      assert.strictEqual(stored.pending[0]!.calls[0]!.callId, `id ${text}`)
      assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
      assert.deepStrictEqual(stored.snapshot.undoLog[0]!.steps[0]!.result, value)
    }))

  it.scopedLive("every stored value has a size limit: a value over it fails typed and stores nothing", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("limit")
      const store = yield* backend.open({ maxValueLength: 2000 })
      const error = storeError(yield* Effect.exit(store.commitTurn(F.oneCallTurn(id, 1, "x".repeat(3000)))))
      assert.strictEqual(error.session, id)
      assert.match(error.message, /over the limit of 2000/)
      assert.isTrue(Option.isNone(yield* store.load(id)))
      yield* store.commitTurn(F.oneCallTurn(id, 1, "x".repeat(1000)))
      assert.strictEqual(Option.getOrThrow(yield* store.load(id)).snapshot.history.length, 4)
      // the default takes a 10 MB tool result
      const big = yield* backend.open()
      const bigId = sessionId("big")
      const tenMegabytes = "y".repeat(10 * 1024 * 1024)
      yield* big.commitTurn({ ...F.oneCallTurn(bigId, 1, tenMegabytes), messages: [F.user("big")] })
      assert.strictEqual(Option.getOrThrow(yield* big.load(bigId)).snapshot.undoLog[0]!.steps[0]!.result, tenMegabytes)
    }))

  it.scopedLive("a pending turn journaled with its messages in rows of their own (as an earlier version did) is read and closed", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      if (backend.exec === undefined) return
      const id = sessionId("older")
      const store = yield* backend.open()
      yield* store.commitTurn(F.oneCallTurn(id, 1))
      const key = JSON.stringify(id)
      const asked = JSON.stringify({ _tag: "User", text: "again" })
      const call = JSON.stringify({ turn: 2, round: 1, callId: "c1", tool: "book", arguments: {}, idempotencyKey: `${id}:2-0123456789abcdef:c1` })
      yield* backend.exec(`INSERT INTO toolgate_messages (session, seq, turn, pending, body) VALUES ('${key}', 100, 2, 1, '${asked}')`)
      yield* backend.exec(`INSERT INTO toolgate_journal (session, turn, call_id, seq, call, envelope) VALUES ('${key}', 2, '"c1"', 101, '${call}', NULL)`)
      const stored = Option.getOrThrow(yield* store.load(id))
      assert.deepStrictEqual(stored.pending.map((p) => [p.turn, p.messages, p.calls.map((c) => c.callId)]), [[2, [{ _tag: "User", text: "again" }], ["c1"]]])
      assert.strictEqual(stored.nextTurn, 3)
      yield* store.rollbackTurn({ session: id, turn: 2, messages: [{ _tag: "User", text: "again" }], outstanding: [] })
      const closed = Option.getOrThrow(yield* store.load(id))
      assert.deepStrictEqual([closed.pending, closed.snapshot.history.at(-1)], [[], { _tag: "User", text: "again" }])
      assert.strictEqual(closed.snapshot.history.length, F.oneCallTurn(id, 1).messages.length + 1)
    }))

  it.scopedLive("a call's journal row carries the turn's messages: load reads them as the pending turn's, in order", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const id = sessionId("journal-row")
      const store = yield* backend.open()
      const base = { session: id, turn: 1, round: 1, tool: "book", arguments: { v: "a" } }
      yield* store.callStarted({ ...base, callId: "c1", idempotencyKey: "k1", messages: [{ _tag: "User", text: "hi" }, { _tag: "Assistant", text: "", toolCalls: [] }] })
      yield* store.callStarted({ ...base, callId: "c2", idempotencyKey: "k2" })
      yield* store.callStarted({ ...base, round: 2, callId: "c3", idempotencyKey: "k3", messages: [{ _tag: "Assistant", text: "more", toolCalls: [] }] })
      const stored = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.deepStrictEqual(stored.pending.map((p) => [p.turn, p.messages.map((m) => m._tag === "User" ? m.text : m._tag === "Assistant" ? m.text : ""), p.calls.map((c) => c.callId)]), [[1, ["hi", "", "more"], ["c1", "c2", "c3"]]])
      assert.strictEqual(stored.nextTurn, 2)
      assert.deepStrictEqual((yield* store.list).filter((s) => s.id === id).map((s) => [s.turns, s.pending]), [[1, 1]])
    }))

  it.scopedLive("a corrupted row is a SessionStoreError naming the session, not a crash", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      if (backend.exec === undefined) return
      const id = sessionId("corrupt")
      const store = yield* backend.open()
      yield* store.commitTurn(F.oneCallTurn(id, 1))
      yield* backend.exec(`UPDATE toolgate_messages SET body = '{"_tag":"User"' WHERE session = '${JSON.stringify(id)}' AND seq = 1`)
      const notJson = storeError(yield* Effect.exit(store.load(id)))
      assert.deepStrictEqual([notJson.session, notJson.operation], [id, "load"])
      yield* backend.exec(`UPDATE toolgate_messages SET body = '{"_tag":"User","text":7}' WHERE session = '${JSON.stringify(id)}' AND seq = 1`)
      assert.match(storeError(yield* Effect.exit(store.export(id))).message, /corrupted/)
    }))

  it.scopedLive("a commit the database refuses halfway writes nothing: the turn stays pending, and commits once the obstacle is gone", () =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      if (backend.exec === undefined) return
      const id = sessionId("refused-commit")
      const key = JSON.stringify(id)
      const store = yield* backend.open()
      yield* store.commitTurn(F.oneCallTurn(id, 1))
      yield* store.callStarted(F.start(id, 2, "call_2", { n: 2 }, [F.user("write 2")]))
      // a history row where the commit's messages go: its session row and journal are written first, then the
      // messages' INSERT fails on the key, so everything before it must be taken back with it
      const blocker = JSON.stringify(F.user("in the way"))
      yield* backend.exec(`INSERT INTO toolgate_messages (session, seq, turn, pending, body) SELECT id, next_seq, 1, 0, '${blocker}' FROM toolgate_sessions WHERE id = '${key}'`)
      const refused = storeError(yield* Effect.exit(store.commitTurn({ ...F.oneCallTurn(id, 2), usage: { roundTrips: 9, repairs: 0, invalidRounds: 0, inputTokens: 9, outputTokens: 9 } })))
      assert.deepStrictEqual([refused.session, refused.operation], [id, "commitTurn"])
      const after = Option.getOrThrow(yield* (yield* backend.open()).load(id))
      assert.deepStrictEqual(after.pending.map((p) => [p.turn, p.calls.map((c) => c.callId)]), [[2, ["call_2"]]])
      assert.deepStrictEqual([after.snapshot.usage?.inputTokens, after.snapshot.history.length], [101, 5])
      yield* backend.exec(`DELETE FROM toolgate_messages WHERE session = '${key}' AND body = '${blocker}'`)
      yield* store.commitTurn(F.oneCallTurn(id, 2))
      const committed = Option.getOrThrow(yield* store.load(id))
      assert.deepStrictEqual([committed.pending, committed.snapshot.turns, committed.snapshot.history.length], [[], 2, 8])
    }))

  it.scopedLive.prop("random command sequences read as the model says, from the same instance and from another", { commands }, ({ commands }) =>
    Effect.gen(function*() {
      const backend = yield* makeBackend
      const store = yield* backend.open()
      const model = new Model([sessionId("model0"), sessionId("model1")])
      for (const command of commands) yield* model.run(command, store)
      const other = yield* backend.open()
      for (const id of model.ids) {
        assert.deepStrictEqual(yield* store.load(id), model.expected(id))
        assert.deepStrictEqual(yield* other.load(id), model.expected(id))
      }
    }), { fastCheck: { numRuns: 40 } })
})

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Option, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import * as DriftGate from "../src/DriftGate.js"
import * as Errors from "../src/Errors.js"
import * as Provider from "../src/Provider.js"
import * as SessionStore from "../src/SessionStore.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import type * as ToolEnvelope from "../src/ToolEnvelope.js"
import { answer, call, done, make } from "./support/scriptedProvider.js"
import { countingKit, dying, onStore, unanswered } from "./support/storeSessions.js"

describe("AgentSession on a SessionStore", () => {
  it.effect("journals each call before it runs and commits the turn: a new session on the store resumes it, undo included", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const { runs, toolkit, undone } = countingKit()
      const provider = make([[call("c1", "book", { v: "a" }), done], answer("booked"), [call("c1", "charge", { v: "b" }), done], answer("charged")])
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, provider, toolkit)
        yield* s.send("book a")
        yield* s.send("charge b")
        return { history: yield* s.history, exported: yield* s.export }
      }))
      const stored = Option.getOrThrow(yield* store.load("s1"))
      assert.deepStrictEqual(stored.snapshot.history, first.history)
      assert.deepStrictEqual(stored.snapshot, first.exported)
      yield* Effect.scoped(Effect.gen(function*() {
        const again = yield* onStore(store, provider, toolkit)
        assert.deepStrictEqual(yield* again.history, first.history)
        // turn 2 (charge, no undo) and then turn 1 (book, undone through the tool rebuilt by name)
        assert.deepStrictEqual(Option.getOrThrow(yield* again.undoLastTurn).notUndone, ["c1"])
        assert.strictEqual((yield* again.outstanding)[0]!.reason, "no_undo")
        assert.deepStrictEqual(Option.getOrThrow(yield* again.undoLastTurn).undone, ["c1"])
        assert.strictEqual(undone.length, 1)
        assert.match(undone[0]!, /^a \{"booked":"a"\} s1:1-[0-9a-f]{16}:c1$/)
        assert.deepStrictEqual(yield* again.history, [])
      }))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load("s1")).snapshot.history, [])
      assert.deepStrictEqual([...runs.values()], [1, 1])
    }))

  it.effect("with chain scope session, the committed results (with their turn) come back on resume", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const { toolkit } = countingKit()
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([[call("c1", "book", { v: "a" }), done], answer("ok")]), toolkit, { chainScope: "session" })
        yield* s.send("book")
        return yield* s.export
      }))
      assert.deepStrictEqual(first.results.map((r) => [r.callId, r.turn, r.envelope.ok]), [["c1", 1, true]])
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([]), toolkit, { chainScope: "session" })
        assert.deepStrictEqual(yield* s.export, first)
      }))
    }))

  it.effect("a resumed session runs the drift gate again on its first send (a new process has proven nothing)", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const { toolkit } = countingKit()
      let checks = 0
      const gate = { check: () => Effect.sync(() => (checks++, DriftGate.Verdict.Proven({ tools: ["book", "charge"] }))) }
      const cloud = (provider: ReturnType<typeof make>) =>
        AgentSession.make({ id: "s1", provider, toolkit, mode: "cloudProfile" }).pipe(
          Effect.provide(ArgumentValidator.layer),
          Effect.provideService(SessionStore.SessionStore, store),
          Effect.provideService(DriftGate.DriftGate, gate)
        )
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* cloud(make([answer("one"), answer("two")]))
        yield* s.send("one")
        yield* s.send("two")
      }))
      assert.strictEqual(checks, 1)
      const turn = yield* Effect.scoped(Effect.flatMap(cloud(make([answer("three")])), (s) => s.send("three")))
      assert.strictEqual(checks, 2)
      assert.strictEqual(turn.gate?._tag, "Proven")
      assert.strictEqual(turn.turn, 3)
    }))

  it.effect("a store that cannot journal a call fails the turn with SessionStoreError before the executor runs", () =>
    Effect.gen(function*() {
      const { store } = dying(yield* SessionStore.makeMemory(), 0)
      const { runs, toolkit } = countingKit()
      const s = yield* Effect.scoped(onStore(store, make([[call("c1", "charge", { v: "a" }), done], answer("no")]), toolkit))
      const error = yield* Effect.flip(s.send("charge"))
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.strictEqual(runs.size, 0)
      assert.deepStrictEqual(yield* s.outstanding, [])
    }))

  it.effect("a registry-aware provider's call the store cannot journal fails the turn with SessionStoreError before the executor runs", () =>
    Effect.gen(function*() {
      // only the call's journal write fails: the turn's commit would succeed
      const memory = yield* SessionStore.makeMemory()
      const store: SessionStore.Service = {
        ...memory,
        callStarted: (call) => Effect.fail(new Errors.SessionStoreError({ session: call.session, operation: "callStarted", detail: "the disk is full" }))
      }
      const { runs, toolkit } = countingKit()
      const heard: Array<ToolEnvelope.Envelope> = []
      const provider = Provider.registryAware((registry) => ({
        capabilities: { ...make([]).capabilities, executionModel: "providerDriven" },
        stream: () =>
          Stream.fromEffect(Effect.map(registry.get("charge")!.execute({ v: "a" }, "p1"), (envelope) => void heard.push(envelope))).pipe(
            Stream.flatMap(() => Stream.make<Array<StreamEvent.StreamEvent>>({ _tag: "TextDelta", text: "charged" }, { _tag: "Done" }))
          )
      }))
      const s = yield* Effect.scoped(onStore(store, provider, toolkit))
      const error = yield* Effect.flip(s.send("charge"))
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.strictEqual(error._tag === "SessionStoreError" ? error.operation : "", "callStarted")
      assert.strictEqual(runs.size, 0)
      assert.deepStrictEqual(heard.map((e) => e.ok ? "ok" : e.kind), ["unavailable"])
      assert.deepStrictEqual(yield* s.outstanding, [])
      assert.deepStrictEqual((yield* s.history).map((m) => m._tag), ["User"])
    }))

  it.effect("a call journaled and never answered is resumed as outstanding (interrupted, same key), never run again; history is answered", () =>
    Effect.gen(function*() {
      const memory = yield* SessionStore.makeMemory()
      const { runs, toolkit } = countingKit()
      const provider = make([
        answer("hello"),
        [call("c1", "charge", { v: "a" }), call("c2", "book", { v: "b" }), done],
        answer("never")
      ], { supportsParallelToolCalls: false })
      // writes: callStarted c1, callFinished c1, callStarted c2, then the process "dies" before c2's answer is journaled
      yield* Effect.scoped(Effect.gen(function*() {
        const s0 = yield* onStore(memory, provider, toolkit)
        yield* s0.send("hi")
      }))
      const { store } = dying(memory, 3)
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, provider, toolkit)
        assert.isTrue(Exit.isFailure(yield* Effect.exit(s.send("pay"))))
      }))
      const keys = [...runs.keys()]
      assert.strictEqual(keys.length, 2)
      const pending = Option.getOrThrow(yield* memory.load("s1")).pending
      assert.deepStrictEqual(pending.map((p) => p.calls.map((c) => [c.callId, c.envelope !== undefined])), [[["c1", true], ["c2", false]]])
      const next = make([answer("resumed")])
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(memory, next, toolkit)
        const outstanding = yield* s.outstanding
        assert.deepStrictEqual(outstanding.map((o) => [o.turn, o.callId, o.reason, o.idempotencyKey]), [
          [2, "c1", "no_undo", keys[0]],
          [2, "c2", "interrupted", keys[1]]
        ])
        const history = yield* s.history
        assert.deepStrictEqual(unanswered(history), [])
        assert.deepStrictEqual(history.map((m) => m._tag), ["User", "Assistant", "User", "Assistant", "ToolResult", "ToolResult"])
        yield* s.send("again")
        assert.deepStrictEqual(unanswered(next.requests[0]!.messages), [])
        // committed turn 1 is still undoable after turn 3
        assert.strictEqual(Option.getOrThrow(yield* s.undoLastTurn).turn, 3)
        assert.strictEqual(Option.getOrThrow(yield* s.undoLastTurn).turn, 1)
      }))
      assert.deepStrictEqual([...runs.values()], [1, 1])
      assert.deepStrictEqual(Option.getOrThrow(yield* memory.load("s1")).pending, [])
    }))

  it.effect("an undo that started and never recorded its end is resumed as outstanding (interrupted, same key), never run again", () =>
    Effect.gen(function*() {
      const memory = yield* SessionStore.makeMemory()
      const { toolkit, undone } = countingKit()
      yield* Effect.scoped(Effect.flatMap(onStore(memory, make([[call("c1", "book", { v: "a" }), done], answer("booked")]), toolkit), (s) => s.send("book a")))
      // the process stops while the undo runs: its end never reaches the store
      const { store } = dying(memory, 1)
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([]), toolkit)
        yield* Effect.exit(s.undoLastTurn)
      }))
      assert.strictEqual(undone.length, 1)
      const key = undone[0]!.split(" ").at(-1)!
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(memory, make([]), toolkit)
        assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.turn, o.callId, o.tool, o.reason, o.idempotencyKey]), [[1, "c1", "book", "interrupted", key]])
        // the turn's undo has no step left to run: it leaves history, running nothing
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn), { turn: 1, undone: [], notUndone: [] })
        assert.deepStrictEqual(yield* s.history, [])
      }))
      assert.strictEqual(undone.length, 1)
      // a second resume reports it once, from the store
      const stored = Option.getOrThrow(yield* memory.load("s1"))
      assert.deepStrictEqual(stored.snapshot.outstanding.map((o) => o.idempotencyKey), [key])
    }))

  it.effect("an undo that failed stays to run again after a resume: its start mark is taken back", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      let fail = true
      const ran: Array<string> = []
      const flaky = Tool.make("flaky", {
        description: "f",
        parameters: { type: "object" },
        execute: () => Effect.succeed({ done: true }),
        undo: (_args, ctx) => Effect.suspend(() => (ran.push(ctx.idempotencyKey), fail ? Effect.fail(new Errors.ToolFailure({ kind: "execution_error", message: "not now" })) : Effect.void))
      })
      const toolkit = Either.getOrThrow(Toolkit.make(flaky))
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([[call("c1", "flaky"), done], answer("ok")]), toolkit)
        yield* s.send("go")
        assert.strictEqual((yield* Effect.flip(s.undoLastTurn))._tag, "UndoIncomplete")
      }))
      fail = false
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([]), toolkit)
        assert.deepStrictEqual(yield* s.outstanding, [])
        assert.deepStrictEqual(Option.getOrThrow(yield* s.undoLastTurn).undone, ["c1"])
      }))
      assert.strictEqual(ran.length, 2)
    }))

  it.effect("one writer per session: a second make fails with SessionBusy until the first session's scope closes", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const { toolkit } = countingKit()
      const provider = make([answer("one")])
      yield* Effect.scoped(Effect.gen(function*() {
        yield* onStore(store, provider, toolkit)
        const busy = yield* Effect.flip(Effect.scoped(onStore(store, provider, toolkit)))
        assert.strictEqual(busy._tag, "SessionBusy")
      }))
      const s = yield* Effect.scoped(onStore(store, provider, toolkit))
      assert.strictEqual(s.id, "s1")
    }))

  it.live("a turn longer than the lease renews it: another session stays busy until the turn ends and the scope closes", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const entered = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const slow = Tool.make("slow", {
        description: "s",
        parameters: { type: "object" },
        execute: () => Effect.zipRight(Deferred.succeed(entered, undefined), Deferred.await(release))
      })
      const toolkit = Either.getOrThrow(Toolkit.make(slow))
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* onStore(store, make([[call("c1", "slow"), done], answer("done")]), toolkit, { leaseMillis: 150 })
        const sending = yield* Effect.fork(s.send("slow"))
        yield* Deferred.await(entered)
        // three lease lifetimes into the turn, the lease is still held
        yield* Effect.sleep("450 millis")
        const busy = yield* Effect.flip(Effect.scoped(onStore(store, make([]), toolkit)))
        assert.strictEqual(busy._tag, "SessionBusy")
        yield* Deferred.succeed(release, undefined)
        assert.strictEqual((yield* Fiber.join(sending)).text, "done")
      }))
      assert.strictEqual((yield* Effect.scoped(onStore(store, make([]), toolkit))).id, "s1")
    }))

  it.live("a session whose lease lapsed while idle reloads the session before its next turn: another owner's turns are not lost", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const { toolkit } = countingKit()
      yield* Effect.scoped(Effect.gen(function*() {
        const a = yield* onStore(store, make([answer("one"), answer("three")]), toolkit, { leaseMillis: 100 })
        yield* a.send("one")
        yield* Effect.sleep("200 millis")
        // a's lease lapsed: b takes the session, runs a turn and lets it go
        yield* Effect.scoped(Effect.flatMap(onStore(store, make([answer("two")]), toolkit), (b) => b.send("two")))
        const turn = yield* a.send("three")
        assert.strictEqual(turn.turn, 3)
        assert.deepStrictEqual((yield* a.history).map((m) => m._tag === "User" ? m.text : m._tag), ["one", "Assistant", "two", "Assistant", "three", "Assistant"])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.export("s1")), yield* a.export)
      }))
    }))

  it.effect("export and seed: a snapshot starts a session without a store, or is imported into one", () =>
    Effect.gen(function*() {
      const { toolkit, undone } = countingKit()
      const a = yield* AgentSession.make({ provider: make([[call("c1", "book", { v: "x" }), done], answer("ok")]), toolkit, mode: "local", id: "s1" }).pipe(
        Effect.provide(ArgumentValidator.layer)
      )
      yield* a.send("book x")
      const snapshot = yield* a.export
      assert.strictEqual(snapshot.version, 1)
      const b = yield* AgentSession.make({ provider: make([]), toolkit, mode: "local", snapshot }).pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual(b.id, "s1")
      assert.deepStrictEqual(yield* b.history, yield* a.history)
      assert.deepStrictEqual(yield* b.export, snapshot)
      // an undo entry whose messages are not in the history, or a value that is no snapshot, is refused
      for (const bad of [{ ...snapshot, history: [] }, { ...snapshot, version: 2 }]) {
        const refused = yield* Effect.flip(AgentSession.make({ provider: make([]), toolkit, mode: "local", snapshot: bad as typeof snapshot }).pipe(Effect.provide(ArgumentValidator.layer)))
        assert.strictEqual(refused._tag, "InvalidOptions")
      }
      const store = yield* SessionStore.makeMemory()
      yield* Effect.scoped(Effect.gen(function*() {
        const c = yield* onStore(store, make([]), toolkit, { snapshot })
        assert.deepStrictEqual(Option.getOrThrow(yield* c.undoLastTurn).undone, ["c1"])
      }))
      assert.strictEqual(undone.length, 1)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load("s1")).snapshot.history, [])
      // importing over a stored session fails typed
      const exists = yield* Effect.flip(Effect.scoped(onStore(store, make([]), toolkit, { snapshot })))
      assert.strictEqual(exists._tag, "SessionStoreError")
      const wrongId = yield* Effect.flip(onStore(store, make([]), toolkit, { snapshot, id: "other" }))
      assert.instanceOf(wrongId, Errors.InvalidOptions)
    }))
})

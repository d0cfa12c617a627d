/**
 * The in-memory `SessionStore` and the store's records: a fresh store per layer build, snapshots that decode
 * through their Schema, snapshots whose undo ranges do not fit their history refused, values over the limit
 * refused. The behaviour every store shares is tested on every store in packages/sql (`SessionStore.stores.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { SessionStore } from "@toolgate/runtime"

const turn = (session: string, n: number): SessionStore.Commit => ({
  session,
  turn: n,
  messages: [{ _tag: "User", text: `hello ${n}` }, { _tag: "Assistant", text: `hi ${n}`, toolCalls: [] }],
  undo: { calls: [], steps: [], kept: [] },
  results: [],
  usage: { roundTrips: 1, repairs: 0, invalidRounds: 0, inputTokens: 3, outputTokens: 4 }
})

describe("SessionStore", () => {
  it.effect("layerMemory is a fresh store each time it is built", () =>
    Effect.gen(function*() {
      const first = yield* Effect.provide(SessionStore.SessionStore, SessionStore.layerMemory)
      yield* first.commitTurn(turn("s", 1))
      const second = yield* Effect.provide(SessionStore.SessionStore, SessionStore.layerMemory)
      assert.isTrue(Option.isSome(yield* first.load("s")))
      assert.isTrue(Option.isNone(yield* second.load("s")))
    }))

  it.effect("an exported snapshot is a SessionSnapshot: it survives JSON and seeds another store", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      yield* store.commitTurn(turn("s", 1))
      yield* store.commitTurn(turn("s", 2))
      const snapshot = Option.getOrThrow(yield* store.export("s"))
      const json = JSON.stringify(Schema.encodeSync(SessionStore.SessionSnapshot)(snapshot))
      const decoded = Schema.decodeUnknownSync(SessionStore.SessionSnapshot)(JSON.parse(json))
      assert.deepStrictEqual(decoded, snapshot)
      assert.deepStrictEqual(decoded.undoLog.map((e) => [e.turn, e.start, e.count]), [[1, 0, 2], [2, 2, 2]])
      const other = yield* SessionStore.makeMemory()
      yield* other.import(decoded)
      yield* other.undoTurn("s", 2)
      assert.deepStrictEqual(Option.getOrThrow(yield* other.export("s")).history, turn("s", 1).messages)
      assert.isTrue(Option.isSome(Schema.decodeUnknownOption(SessionStore.SessionSnapshot)({ ...snapshot, version: 1 })))
      assert.isTrue(Option.isNone(Schema.decodeUnknownOption(SessionStore.SessionSnapshot)({ ...snapshot, version: 2 })))
    }))

  it.effect("a snapshot whose undo entries do not fit its history is refused, naming the session", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory()
      const base: SessionStore.SessionSnapshot = { version: 1, id: "bad", turns: 2, history: turn("bad", 1).messages, undoLog: [], results: [], outstanding: [] }
      const entry = { calls: [], steps: [], kept: [] }
      for (const undoLog of [
        [{ turn: 1, start: 0, count: 3, ...entry }],
        [{ turn: 1, start: 0, count: 2, ...entry }, { turn: 1, start: 1, count: 1, ...entry }],
        [{ turn: 3, start: 0, count: 1, ...entry }]
      ]) {
        const error = yield* Effect.flip(store.import({ ...base, undoLog }))
        assert.deepStrictEqual([error._tag, error.session, error.operation], ["SessionStoreError", "bad", "import"])
      }
      assert.isTrue(Option.isNone(yield* store.load("bad")))
    }))

  it.effect("a value over maxValueLength fails the write typed; nothing of it is kept", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory({ maxValueLength: 100 })
      const error = yield* Effect.flip(store.commitTurn({ ...turn("s", 1), messages: [{ _tag: "User", text: "x".repeat(200) }] }))
      assert.deepStrictEqual(error._tag === "SessionStoreError" && [error.session, error.operation], ["s", "commitTurn"])
      assert.match(error.message, /over the limit of 100/)
      assert.isTrue(Option.isNone(yield* store.load("s")))
    }))
})

/** Stored sessions for the `toolgate sessions` tests, written through the `SessionStore` API as an app's turns would. */
import type { SessionStore } from "@toolgate/runtime"
import { Effect } from "effect"

/** The session with every kind of record. */
export const id = "support-42"

/** The lease holder of `id`. */
export const owner = "worker-7"

/** An idempotency key as the runtime makes them. */
export const key = (turn: number, callId: string) => `${id}:${turn}-5f1c9a0e:${callId}`

/**
 * `id`: turn 1 committed with one call (`write_file`, undoable), turn 2 rolled back leaving `delete_file` as an
 * outstanding effect, turn 3 committed without calls, turn 4 journaled and never closed (its `send_email` started,
 * no answer), leased to `owner` for an hour. Then `other`, one committed turn and no lease.
 */
export const seed = (store: SessionStore.Service) =>
  Effect.gen(function*() {
    yield* store.commitTurn({
      session: id,
      turn: 1,
      messages: [
        { _tag: "User", text: "write the report" },
        { _tag: "Assistant", text: "", toolCalls: [{ id: "call_1", name: "write_file", arguments: { path: "report.md" } }] },
        { _tag: "ToolResult", callId: "call_1", name: "write_file", envelope: { ok: true, result: { written: 120 } } },
        { _tag: "Assistant", text: "Written.", toolCalls: [] }
      ],
      undo: {
        calls: ["call_1"],
        steps: [{ callId: "call_1", tool: "write_file", arguments: { path: "report.md" }, result: { written: 120 }, idempotencyKey: key(1, "call_1") }],
        kept: []
      },
      results: [{ callId: "call_1", turn: 1, envelope: { ok: true, result: { written: 120 } }, artifacts: [] }],
      usage: { roundTrips: 2, repairs: 0, invalidRounds: 0, inputTokens: 300, outputTokens: 20 }
    })
    yield* store.rollbackTurn({
      session: id,
      turn: 2,
      messages: [{ _tag: "User", text: "delete the draft" }],
      outstanding: [{ callId: "call_2", tool: "delete_file", round: 1, arguments: { path: "draft.md" }, idempotencyKey: key(2, "call_2"), turn: 2, reason: "no_undo" }]
    })
    yield* store.commitTurn({
      session: id,
      turn: 3,
      messages: [{ _tag: "User", text: "thanks" }, { _tag: "Assistant", text: "You are welcome.", toolCalls: [] }],
      results: [],
      usage: { roundTrips: 1, repairs: 0, invalidRounds: 0, inputTokens: 410, outputTokens: 6 }
    })
    yield* store.callStarted({
      session: id,
      turn: 4,
      round: 1,
      callId: "call_4",
      tool: "send_email",
      arguments: { to: "ops@example.com" },
      idempotencyKey: key(4, "call_4"),
      messages: [
        { _tag: "User", text: "mail it to ops" },
        { _tag: "Assistant", text: "", toolCalls: [{ id: "call_4", name: "send_email", arguments: { to: "ops@example.com" } }] }
      ]
    })
    const lease = yield* store.acquire(id, owner, "1 hour")
    yield* store.commitTurn({ session: "other", turn: 1, messages: [{ _tag: "User", text: "hello" }, { _tag: "Assistant", text: "Hi.", toolCalls: [] }], results: [] })
    return lease
  })

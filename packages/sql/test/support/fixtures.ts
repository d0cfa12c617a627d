/** Records for the store tests: messages, envelopes, journal entries and outstanding effects of a turn. */
import type { JsonValue as J } from "@toolgate/json-schema"
import type { Compensation, Message, SessionStore, ToolEnvelope } from "@toolgate/runtime"

export const user = (text: string): Message.Message => ({ _tag: "User", text })

export const assistant = (text: string, calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments?: J.JsonValue }> = []): Message.Message => ({
  _tag: "Assistant",
  text,
  toolCalls: calls.map((c) => c.arguments === undefined ? { id: c.id, name: c.name } : { id: c.id, name: c.name, arguments: c.arguments })
})

export const ok = (result: J.JsonValue): ToolEnvelope.Envelope => ({ ok: true, result })

export const result = (callId: string, name: string, value: J.JsonValue): Message.Message => ({ _tag: "ToolResult", callId, name, envelope: ok(value) })

export const key = (session: string, turn: number, callId: string) => `${session}:${turn}-0123456789abcdef:${callId}`

/** A call of `turn` as the journal gets it before its executor runs. */
export const start = (session: string, turn: number, callId: string, args: J.JsonValue = { n: turn }, messages?: ReadonlyArray<Message.Message>): SessionStore.CallStart => ({
  session,
  turn,
  round: 1,
  callId,
  tool: "write_file",
  arguments: args,
  idempotencyKey: key(session, turn, callId),
  ...(messages === undefined ? {} : { messages })
})

export const outstanding = (session: string, turn: number, callId: string, reason: Compensation.OutstandingEffect["reason"] = "interrupted"): Compensation.OutstandingEffect => ({
  callId,
  tool: "write_file",
  round: 1,
  arguments: { path: `/tmp/${callId}` },
  idempotencyKey: key(session, turn, callId),
  turn,
  reason
})

/** A committed one-call turn: user, assistant with the call, its result, the closing answer; one undo step. */
export const oneCallTurn = (session: string, turn: number, value: J.JsonValue = { written: turn }): SessionStore.Commit => {
  const callId = `call_${turn}`
  return {
    session,
    turn,
    messages: [user(`write ${turn}`), assistant("", [{ id: callId, name: "write_file", arguments: { n: turn } }]), result(callId, "write_file", value), assistant(`done ${turn}`)],
    undo: {
      calls: [callId],
      steps: [{ callId, tool: "write_file", arguments: { n: turn }, result: value, idempotencyKey: key(session, turn, callId) }],
      kept: []
    },
    results: [{ callId, turn, envelope: ok(value), artifacts: [["file", { turn }]] }],
    usage: { roundTrips: 2, repairs: 0, invalidRounds: 0, inputTokens: 100 + turn, outputTokens: 10 }
  }
}

/**
 * What `toolgate sessions list` and `show` print: text for a person (ids and texts quoted as JSON strings,
 * so a hostile id can neither break a line nor reach the terminal as an escape) and `--json` objects of the
 * commands' `_tag`-ed family. History is summarized: each message's role and its text clipped.
 *
 * @internal
 */
import * as Text from "@toolgate/json-schema/Text"
import type { Compensation, Message } from "@toolgate/runtime"
import * as SessionStore from "@toolgate/runtime/SessionStore"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { jsonLine } from "./output.js"

/** How many characters of a message's text `show` prints. */
export const clipAt = 120

/** A lease as printed: who holds it and until when. */
export interface LeaseView {
  readonly owner: string
  readonly expiresAt: number
  readonly expires: string
}

/** An epoch-milliseconds instant in ISO form (or the number, past the range of a `Date`). */
const instant = (millis: number): string => {
  const date = new Date(millis)
  return Number.isNaN(date.getTime()) ? `${millis} ms after the epoch` : date.toISOString()
}

const leaseView = (lease: SessionStore.Lease | undefined): LeaseView | null =>
  lease === undefined ? null : { owner: lease.owner, expiresAt: lease.expiresAt, expires: instant(lease.expiresAt) }

const leaseText = (lease: SessionStore.Lease | undefined): string =>
  lease === undefined ? "none" : `${JSON.stringify(lease.owner)} until ${instant(lease.expiresAt)}`

const quote = (s: string): string => JSON.stringify(s)

/** A tool's name or a call's id: as is when it is plain, else quoted. */
const name = (s: string): string => /^[\w.:@/-]+$/.test(s) ? s : quote(s)

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** One message as `show` summarizes it: its role and a clipped text. */
export const summary = (message: Message.Message): { readonly role: "user" | "assistant" | "tool"; readonly text: string } => {
  switch (message._tag) {
    case "User":
      return { role: "user", text: Text.clip(message.text, clipAt) + (message.images === undefined ? "" : ` [${plural(message.images.length, "image")}]`) }
    case "Assistant": {
      const calls = message.toolCalls.map((call) => `${name(call.name)} (${name(call.id)})`)
      const text = Text.clip(message.text, clipAt)
      return { role: "assistant", text: calls.length === 0 ? text : `${text}${text === "" ? "" : " "}→ ${calls.join(", ")}` }
    }
    case "ToolResult": {
      const envelope = message.envelope
      const outcome = envelope.ok ? `ok ${JSON.stringify(envelope.result) ?? "null"}` : `${envelope.kind}: ${envelope.message}`
      return { role: "tool", text: `${name(message.name)} (${name(message.callId)}) ${Text.clip(outcome, clipAt)}` }
    }
  }
}

/** An outstanding effect as `show` prints it: the call, its key and why it is still in the world. */
const outstandingView = (effect: Compensation.OutstandingEffect) => ({
  turn: effect.turn,
  callId: effect.callId,
  tool: effect.tool,
  idempotencyKey: effect.idempotencyKey,
  reason: effect.reason
})

/** `list`: one line per session. */
export const listText = (sessions: ReadonlyArray<SessionStore.SessionInfo>, database: string): string =>
  sessions.length === 0
    ? `No sessions in ${database}.`
    : sessions.map((s) =>
      `${quote(s.id)}  turns ${s.turns}  messages ${s.messages}  outstanding ${s.outstanding}  pending ${s.pending}  lease ${leaseText(s.lease)}`
    ).join("\n")

/** `list --json`. */
export const listJson = (sessions: ReadonlyArray<SessionStore.SessionInfo>): string =>
  jsonLine({
    _tag: "Sessions",
    exitCode: 0,
    sessions: sessions.map((s) => ({ id: s.id, turns: s.turns, messages: s.messages, outstanding: s.outstanding, pending: s.pending, lease: leaseView(s.lease) }))
  })

/** What `show` prints of a stored session, as data (the `--json` object without its `_tag` and exit code). */
export const show = (stored: SessionStore.Stored, lease: SessionStore.Lease | undefined) => {
  const { snapshot } = stored
  return {
    id: snapshot.id,
    turns: snapshot.turns,
    nextTurn: stored.nextTurn,
    history: snapshot.history.map(summary),
    undoLog: snapshot.undoLog.map((entry) => ({
      turn: entry.turn,
      start: entry.start,
      count: entry.count,
      calls: entry.calls,
      steps: entry.steps.map((step) => ({ callId: step.callId, tool: step.tool, idempotencyKey: step.idempotencyKey })),
      kept: entry.kept.map(outstandingView)
    })),
    outstanding: snapshot.outstanding.map(outstandingView),
    pending: stored.pending.map((turn) => ({
      turn: turn.turn,
      messages: turn.messages.length,
      calls: turn.calls.map((call) => ({
        round: call.round,
        callId: call.callId,
        tool: call.tool,
        idempotencyKey: call.idempotencyKey,
        answered: call.envelope !== undefined
      }))
    })),
    lease: leaseView(lease),
    usage: snapshot.usage ?? null
  }
}

/** `show --json`. */
export const showJson = (stored: SessionStore.Stored, lease: SessionStore.Lease | undefined): string =>
  jsonLine({ _tag: "Session", exitCode: 0, ...show(stored, lease) })

/** `show`: the session's counts and lease, its history summarized, its undo log, outstanding effects and pending turns. */
export const showText = (stored: SessionStore.Stored, lease: SessionStore.Lease | undefined, database: string): string => {
  const view = show(stored, lease)
  const width = String(Math.max(0, view.history.length - 1)).length
  const lines = [
    `session ${quote(view.id)} in ${database}: ${plural(view.turns, "turn")} started (next ${view.nextTurn}), ${plural(view.history.length, "message")}, ` +
    `${plural(view.outstanding.length, "outstanding effect")}, ${plural(view.pending.length, "pending turn")}`,
    `lease: ${leaseText(lease)}`,
    `history:${view.history.length === 0 ? " none" : ""}`,
    ...view.history.map((m, i) => `  ${String(i).padStart(width)} ${m.role.padEnd(9)} ${quote(m.text)}`),
    `undo log:${view.undoLog.length === 0 ? " none" : ""}`,
    ...view.undoLog.map((entry) =>
      `  turn ${entry.turn}: messages ${entry.start}–${entry.start + entry.count - 1}` +
      (entry.steps.length === 0 ? ", nothing to undo" : `, undo ${entry.steps.map((s) => `${name(s.tool)} (${name(s.callId)}, key ${quote(s.idempotencyKey)})`).join(", ")}`) +
      (entry.kept.length === 0 ? "" : `, kept ${entry.kept.map((k) => `${name(k.tool)} (${name(k.callId)}, ${k.reason})`).join(", ")}`)
    ),
    `outstanding effects:${view.outstanding.length === 0 ? " none" : ""}`,
    ...view.outstanding.map((e) => `  turn ${e.turn}: ${name(e.tool)} (${name(e.callId)}) key ${quote(e.idempotencyKey)} reason ${e.reason}`),
    `pending turns:${view.pending.length === 0 ? " none" : " (journaled, never committed nor rolled back)"}`,
    ...view.pending.map((turn) =>
      `  turn ${turn.turn}: ${plural(turn.messages, "message")}, ` +
      (turn.calls.length === 0
        ? "no calls"
        : turn.calls.map((c) => `${name(c.tool)} (${name(c.callId)}) key ${quote(c.idempotencyKey)} ${c.answered ? "answered" : "started, no answer"}`).join(", "))
    )
  ]
  if (view.usage !== null) {
    const u = view.usage
    lines.push(`usage (last turn): ${plural(u.roundTrips, "round trip")}, ${plural(u.repairs, "repair")}, ${plural(u.invalidRounds, "invalid round")}, ${u.inputTokens} input and ${u.outputTokens} output tokens`)
  }
  return lines.join("\n")
}

/** `export`: the snapshot encoded through its Schema, as one line of JSON. */
export const snapshotJson = (snapshot: SessionStore.SessionSnapshot): Effect.Effect<string> =>
  Effect.gen(function*() {
    // the store decoded it through the same Schema: encoding it back cannot fail
    const encoded = yield* Effect.orDie(Schema.encode(SessionStore.SessionSnapshot)(snapshot))
    return jsonLine(encoded)
  })

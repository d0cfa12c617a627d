/**
 * The session's events to UI message chunks, one event at a time: the state of the message being built
 * (the open text part, the open step, the tool parts begun, what the step sent besides text).
 *
 * @internal
 */
import type { AgentSession, SessionEvent, ToolEnvelope } from "@toolgate/runtime"
import type { FinishReason, UIMessage, UIMessageChunk } from "ai"

type TurnEvent = AgentSession.TurnEvent

/** The data parts a chat stream sends, by name (`data-<name>` chunks); each carries the session event it reports. */
export interface DataTypes {
  [name: string]: unknown
  /** The drift gate's verdict on a cloud-profile turn (`proven` or `degraded`). */
  "toolgate-gate": SessionEvent.DriftGateChecked
  /** A round with invalid arguments spent a repair. */
  "toolgate-repair": SessionEvent.RepairSpent
  /** The text of the step this part is in is not the answer (the round called tools, or the turn failed): which round, and why. */
  "toolgate-round-discarded": SessionEvent.RoundDiscarded
  /** A failing or interrupted turn took back the calls it had run; `notCompensated` are still in effect. */
  "toolgate-compensated": SessionEvent.TurnCompensated
}

/** The UI message a chat stream builds. */
export type ChatMessage = UIMessage<unknown, DataTypes>

/** One chunk of a chat stream. */
export type Chunk = UIMessageChunk<unknown, DataTypes>

type ToolState = "started" | "input" | "errored"

/** The text of a call's issues, one a line. */
const issuesText = (event: SessionEvent.ToolCalled): string =>
  event.outcome === "unknown_tool"
    ? `unknown tool: ${event.tool} is not a tool of this session`
    : event.issues.length === 0 ? "invalid arguments" : event.issues.map((i) => i.message).join("\n")

const envelopeError = (envelope: ToolEnvelope.Failure): string => `${envelope.kind}: ${envelope.message}`

/** What a discarded round's text becomes: kept and marked by a data part, or removed from the message (`reset-step`). */
export type Discarded = "mark" | "remove"

/** The chunk state machine of one streamed turn. */
export class Mapper {
  constructor(private readonly discardedText: Discarded) {}

  private text: string | undefined = undefined
  private texts = 0
  private stepOpen = false
  /** What the open step sent besides text, sent again after a reset so the reset takes back only the text. */
  private stepChunks: Array<Chunk> = []
  private readonly tools = new Map<string, ToolState>()
  private ended = false

  /** The first chunk. */
  start(messageId: string | undefined): Chunk {
    return messageId === undefined ? { type: "start" } : { type: "start", messageId }
  }

  private closeText(out: Array<Chunk>): void {
    if (this.text === undefined) return
    out.push({ type: "text-end", id: this.text })
    this.text = undefined
  }

  private closeStep(out: Array<Chunk>): void {
    this.closeText(out)
    if (!this.stepOpen) return
    out.push({ type: "finish-step" })
    this.stepOpen = false
    this.stepChunks = []
    // the AI SDK's reader finds a tool part only within its step: a call's parts never span two
    this.tools.clear()
  }

  private openStep(out: Array<Chunk>): void {
    if (this.stepOpen) return
    out.push({ type: "start-step" })
    this.stepOpen = true
  }

  /** A chunk of the step that is not text (kept to be sent again after a reset). */
  private part(out: Array<Chunk>, chunk: Chunk): void {
    this.closeText(out)
    out.push(chunk)
    if (this.stepOpen) this.stepChunks.push(chunk)
  }

  private toolCalled(out: Array<Chunk>, event: SessionEvent.ToolCalled): void {
    const input = event.arguments ?? {}
    if (event.outcome === "invalid" || event.outcome === "unknown_tool") {
      this.tools.set(event.callId, "errored")
      this.part(out, { type: "tool-input-error", toolCallId: event.callId, toolName: event.tool, input, errorText: issuesText(event) })
      return
    }
    this.tools.set(event.callId, "input")
    this.part(out, { type: "tool-input-available", toolCallId: event.callId, toolName: event.tool, input })
  }

  private toolAnswered(out: Array<Chunk>, event: SessionEvent.ToolAnswered): void {
    const state = this.tools.get(event.callId)
    // an invalid call's part already shows its issues (the envelope fed back says the same)
    if (state === "errored") return
    if (state === undefined) {
      this.tools.set(event.callId, "input")
      this.part(out, { type: "tool-input-available", toolCallId: event.callId, toolName: event.tool, input: {} })
    }
    const envelope = event.envelope
    this.part(
      out,
      envelope.ok
        ? { type: "tool-output-available", toolCallId: event.callId, output: envelope.result }
        : { type: "tool-output-error", toolCallId: event.callId, errorText: envelopeError(envelope) }
    )
  }

  /**
   * The text this step streamed is not the answer: the text part ends (later text starts a new one) and a data
   * part in the same step names the round; with "remove" the step is reset first (the AI SDK drops its parts)
   * and its parts other than text are sent again.
   */
  private discarded(out: Array<Chunk>, event: SessionEvent.RoundDiscarded): void {
    this.closeText(out)
    if (this.discardedText === "remove" && this.stepOpen) {
      const kept = this.stepChunks
      out.push({ type: "reset-step" })
      this.stepChunks = []
      for (const chunk of kept) this.part(out, chunk)
    }
    this.part(out, { type: "data-toolgate-round-discarded", data: event })
  }

  /** The chunks one event adds. */
  push(event: TurnEvent, out: Array<Chunk>): void {
    if (this.ended) return
    switch (event._tag) {
      case "RoundStarted":
        this.closeStep(out)
        this.openStep(out)
        return
      case "TextDelta":
        if (event.text === "") return
        this.openStep(out)
        if (this.text === undefined) {
          this.text = `text-${++this.texts}`
          out.push({ type: "text-start", id: this.text })
        }
        out.push({ type: "text-delta", id: this.text, delta: event.text })
        return
      case "RoundDiscarded":
        return this.discarded(out, event)
      case "ToolCallStarted":
        if (this.tools.has(event.callId)) return
        this.tools.set(event.callId, "started")
        return this.part(out, { type: "tool-input-start", toolCallId: event.callId, toolName: event.tool })
      case "ToolCalled":
        return this.toolCalled(out, event)
      case "ToolAnswered":
        return this.toolAnswered(out, event)
      case "DriftGateChecked":
        return this.part(out, { type: "data-toolgate-gate", data: event })
      case "RepairSpent":
        return this.part(out, { type: "data-toolgate-repair", data: event })
      case "TurnCompensated":
        this.closeStep(out)
        return this.part(out, { type: "data-toolgate-compensated", data: event })
      case "TurnFinished":
        return this.finish(out, "stop")
      case "TurnStarted":
      case "TurnCommitted":
      case "TurnRolledBack":
        return
    }
  }

  /** The last chunks: open parts closed, then `finish` (once). */
  finish(out: Array<Chunk>, reason: FinishReason): void {
    if (this.ended) return
    this.closeStep(out)
    out.push({ type: "finish", finishReason: reason })
    this.ended = true
  }

  /** The turn failed: open parts closed, an `error` chunk, then `finish`. */
  fail(out: Array<Chunk>, errorText: string): void {
    if (this.ended) return
    this.closeStep(out)
    out.push({ type: "error", errorText })
    this.finish(out, "error")
  }
}

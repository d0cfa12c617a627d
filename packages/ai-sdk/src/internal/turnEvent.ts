/**
 * The events of one streamed turn as the chat stream reads them: the session's events and the turn's end.
 *
 * @internal
 */
import type { AgentSession, SessionEvent } from "@toolgate/runtime"

/** Text the provider passed, as it came. */
export interface TextDelta {
  readonly _tag: "TextDelta"
  readonly turn: number
  readonly round: number
  readonly text: string
}

/** The text a round streamed is taken back. */
export interface RoundDiscarded {
  readonly _tag: "RoundDiscarded"
  readonly turn: number
  readonly round: number
  readonly reason: string
}

/** A provider-driven call began. */
export interface ToolCallStarted {
  readonly _tag: "ToolCallStarted"
  readonly turn: number
  readonly round: number
  readonly callId: string
  readonly tool: string
}

/** The turn committed. */
export interface TurnFinished {
  readonly _tag: "TurnFinished"
  readonly turn: AgentSession.Turn
}

/** What `session.stream` emits. */
export type TurnEvent = SessionEvent.SessionEvent | TextDelta | RoundDiscarded | ToolCallStarted | TurnFinished

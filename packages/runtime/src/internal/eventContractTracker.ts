/**
 * The event contract's bookkeeping for one run of a stream: plain mutable state, fed one chunk's events at
 * a time, with no effects, so the stage around it costs one channel step per chunk.
 */
import type * as StreamEvent from "../StreamEvent.js"

/** The rule an event stream broke (mirrored by `EventContract.Rule`). */
export type Rule =
  | "terminal_without_start"
  | "duplicate_start"
  | "duplicate_terminal"
  | "start_without_terminal"
  | "event_after_done"
  | "missing_done"
  | "wrong_execution_model"
  | "duplicate_tool_call"

/** A broken rule and the call it concerns (absent when the event names no call). */
export interface Broken {
  readonly rule: Rule
  readonly callId: string | undefined
}

/** Which vocabulary the stream must keep to; `none` (an unknown model) allows no tool events at all. */
type Vocabulary = "app" | "provider" | "none"

/** The event's id when it is a string, else undefined (hostile input may carry anything). */
const idOf = (event: unknown): string | undefined => {
  const id = (event as { readonly id?: unknown }).id
  return typeof id === "string" ? id : undefined
}

/** The contract state of one run: ids seen, open calls, whether `Done` arrived, and the first broken rule. */
export class Tracker {
  private readonly vocabulary: Vocabulary
  private done = false
  /** provider-driven: id → still open (no terminal yet); app-driven: ids of `ToolCallComplete`. */
  private readonly calls = new Map<string, boolean>()
  private open = 0
  /** The first rule broken, once one is. */
  broken: Broken | undefined = undefined

  constructor(model: unknown) {
    this.vocabulary = model === "appDriven" ? "app" : model === "providerDriven" ? "provider" : "none"
  }

  /** The index of the first event in `events` that breaks a rule (and records it in `broken`), or -1. */
  scan(events: ReadonlyArray<StreamEvent.StreamEvent>): number {
    for (let i = 0; i < events.length; i++) {
      if (!this.step(events[i])) return i
    }
    return -1
  }

  /** The rule broken by the stream ending here, if any. */
  end(): Broken | undefined {
    if (this.broken !== undefined) return this.broken
    if (this.open > 0) return this.fail("start_without_terminal", this.firstOpen())
    return this.done ? undefined : this.fail("missing_done", undefined)
  }

  /** Checks one event; false when it breaks a rule. */
  private step(event: StreamEvent.StreamEvent | null | undefined): boolean {
    if (event === null || typeof event !== "object") return this.broke("wrong_execution_model", undefined)
    if (this.done) return this.broke("event_after_done", idOf(event))
    switch (event._tag) {
      case "TextDelta":
      case "Usage":
        return true
      case "Done":
        this.done = true
        return this.open === 0 || this.broke("start_without_terminal", this.firstOpen())
      case "ToolCallPartial":
        return this.vocabulary === "app" && idOf(event) !== undefined ||
          this.broke("wrong_execution_model", idOf(event))
      case "ToolCallComplete":
        return this.complete(idOf(event))
      case "ToolCallStarted":
        return this.start(idOf(event))
      case "ToolCallCompleted":
      case "ToolCallDenied":
      case "ToolCallFailed":
      case "ToolCallCancelled":
      case "ToolCallConflict":
        return this.terminal(idOf(event))
      default:
        return this.broke("wrong_execution_model", idOf(event))
    }
  }

  private complete(id: string | undefined): boolean {
    if (this.vocabulary !== "app" || id === undefined) return this.broke("wrong_execution_model", id)
    if (this.calls.has(id)) return this.broke("duplicate_tool_call", id)
    this.calls.set(id, true)
    return true
  }

  private start(id: string | undefined): boolean {
    if (this.vocabulary !== "provider" || id === undefined) return this.broke("wrong_execution_model", id)
    if (this.calls.has(id)) return this.broke("duplicate_start", id)
    this.calls.set(id, true)
    this.open++
    return true
  }

  private terminal(id: string | undefined): boolean {
    if (this.vocabulary !== "provider" || id === undefined) return this.broke("wrong_execution_model", id)
    const open = this.calls.get(id)
    if (open === undefined) return this.broke("terminal_without_start", id)
    if (!open) return this.broke("duplicate_terminal", id)
    this.calls.set(id, false)
    this.open--
    return true
  }

  /** The earliest started call still open (Map keeps insertion order). */
  private firstOpen(): string | undefined {
    for (const [id, open] of this.calls) if (open) return id
    return undefined
  }

  private fail(rule: Rule, callId: string | undefined): Broken {
    this.broken = { rule, callId }
    return this.broken
  }

  private broke(rule: Rule, callId: string | undefined): false {
    this.fail(rule, callId)
    return false
  }
}

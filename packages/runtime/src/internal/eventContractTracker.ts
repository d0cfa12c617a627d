/**
 * The event contract's bookkeeping for one run of a stream: plain mutable state, fed one chunk's events at
 * a time, with no effects, so the stage around it costs one channel step per chunk.
 */
import type { EventContractRule as Rule } from "../Errors.js"
import * as StreamEvent from "../StreamEvent.js"

/** A broken rule and the call it concerns (absent when the event names no call). */
export interface Broken {
  readonly rule: Rule
  readonly callId: string | undefined
}

/** Which vocabulary the stream must keep to; `none` (an unknown model) allows no tool events at all. */
type Vocabulary = "app" | "provider" | "none"

/** The event's id when it is a string, else undefined (hostile input may carry anything, even a throwing getter). */
const idOf = (event: unknown): string | undefined => {
  try {
    const id = event == null ? undefined : (event as { readonly id?: unknown }).id
    return typeof id === "string" ? id : undefined
  } catch {
    return undefined
  }
}

/** The contract state of one run: ids seen, open calls, whether `Done` arrived, and the first broken rule. */
export class Tracker {
  private readonly vocabulary: Vocabulary
  private done = false
  /**
   * Every call id seen in this run, in order, with its index into `isOpen` (provider-driven: 1 until its
   * terminal). One hash operation per lifecycle event: this is the stage's only cost beyond a tag test.
   */
  private readonly calls = new Map<string, number>()
  private isOpen = new Uint8Array(64)
  private open = 0
  /** The first rule broken, once one is. */
  broken: Broken | undefined = undefined

  private readonly toolCalling: boolean
  private readonly maxToolCalls: number

  constructor(model: unknown, options: { readonly toolCalling?: boolean; readonly maxToolCalls?: number } = {}) {
    this.vocabulary = model === "appDriven" ? "app" : model === "providerDriven" ? "provider" : "none"
    this.toolCalling = options.toolCalling ?? true
    this.maxToolCalls = options.maxToolCalls ?? Number.POSITIVE_INFINITY
  }

  /** The index of the first event in `events` that breaks a rule (and records it in `broken`), or -1. */
  scan(events: ReadonlyArray<StreamEvent.StreamEvent>): number {
    const length = events.length
    if (length === 0) return -1
    // `Done` can only be last, so `done` is looked at once per chunk and after a `Done`, not per event.
    if (this.done) return this.at(0, "event_after_done", idOf(events[0]))
    let i = 0
    try {
      for (; i < length; i++) {
        const event = events[i]
        // The hot path: text is most of any stream, so it costs one comparison.
        if (event != null && event._tag === "TextDelta") continue
        if (!this.step(event)) return i
        if (this.done && i + 1 < length) return this.at(i + 1, "event_after_done", idOf(events[i + 1]))
      }
    } catch {
      // Only a hostile element gets here (a getter or proxy that throws): it is no event of any model.
      return this.at(i, "wrong_execution_model", undefined)
    }
    return -1
  }

  /** The rule broken by the stream ending here, if any. */
  end(): Broken | undefined {
    if (this.broken !== undefined) return this.broken
    if (this.open > 0) return this.fail("start_without_terminal", this.firstOpen())
    return this.done ? undefined : this.fail("missing_done", undefined)
  }

  /** Checks one event against its role in the vocabulary (`StreamEvent.roles`); false when it breaks a rule. */
  private step(event: StreamEvent.StreamEvent | null | undefined): boolean {
    if (event == null) return this.broke("wrong_execution_model", undefined)
    const role = StreamEvent.roles.get(event._tag)
    if (role === "shared") return event._tag !== "Done" || this.finish()
    const id = idOf(event)
    const model = role === "appDriven" ? "app" : "provider"
    if (role === undefined || this.vocabulary !== model || id === undefined) return this.broke("wrong_execution_model", id)
    if (!this.toolCalling) return this.broke("tool_call_without_tool_calling", id)
    switch (role) {
      case "appDriven":
        return event._tag === "ToolCallPartial" || this.complete(id)
      case "start":
        return this.start(id)
      case "terminal":
        return this.terminal(id)
    }
  }

  private finish(): boolean {
    this.done = true
    return this.open === 0 || this.broke("start_without_terminal", this.firstOpen())
  }

  private complete(id: string): boolean {
    const seen = this.calls.size
    // Setting a known id leaves the size as it was: a repeat, which fails the run (so the overwrite is moot).
    return this.calls.set(id, seen).size > seen || this.broke("duplicate_tool_call", id)
  }

  private start(id: string): boolean {
    const index = this.calls.size
    if (index >= this.maxToolCalls && !this.calls.has(id)) return this.broke("too_many_tool_calls", id)
    if (this.calls.set(id, index).size === index) return this.broke("duplicate_start", id)
    if (index === this.isOpen.length) {
      const grown = new Uint8Array(index * 2)
      grown.set(this.isOpen)
      this.isOpen = grown
    }
    this.isOpen[index] = 1
    this.open++
    return true
  }

  private terminal(id: string): boolean {
    const index = this.calls.get(id)
    if (index === undefined) return this.broke("terminal_without_start", id)
    if (this.isOpen[index] === 0) return this.broke("duplicate_terminal", id)
    this.isOpen[index] = 0
    this.open--
    return true
  }

  /** The earliest started call still open (Map keeps insertion order). */
  private firstOpen(): string | undefined {
    for (const [id, index] of this.calls) if (this.isOpen[index] === 1) return id
    return undefined
  }

  private fail(rule: Rule, callId: string | undefined): Broken {
    this.broken = { rule, callId }
    return this.broken
  }

  private at(index: number, rule: Rule, callId: string | undefined): number {
    this.fail(rule, callId)
    return index
  }

  private broke(rule: Rule, callId: string | undefined): false {
    this.fail(rule, callId)
    return false
  }
}

/**
 * The event contract as a `Stream → Stream` stage. Every round trip's events pass through it: they come out
 * unchanged until one breaks a rule, and then the stream fails with `ProviderEventContractViolation`.
 *
 * Provider-driven streams: every `ToolCallStarted` reaches exactly one terminal event, call ids are unique,
 * and everything lands before `Done`. App-driven streams: `ToolCallComplete` ids are unique. Both: nothing
 * follows `Done`, the stream ends with `Done`, and only the model's own vocabulary appears (`TextDelta`,
 * `Usage` and `Done` belong to both).
 *
 * @since 0.1.0
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Stream from "effect/Stream"
import * as Errors from "./Errors.js"
import { type Broken, Tracker } from "./internal/eventContractTracker.js"
import type * as Provider from "./Provider.js"
import type * as StreamEvent from "./StreamEvent.js"

/**
 * The rule an event stream broke (`Errors.EventContractRule`, the literal union of
 * `ProviderEventContractViolation.rule`).
 *
 * - `terminal_without_start`: a terminal event for an id never started.
 * - `duplicate_start`: `ToolCallStarted` repeats an id, whether that call is still open or already ended.
 * - `duplicate_terminal`: a second terminal for one id (a terminal for a call that already ended).
 * - `start_without_terminal`: `Done` arrived, or the stream ended, while a started call had no terminal;
 *   `callId` is the earliest such call. It wins over `missing_done` when the stream ends without `Done`
 *   while a call is open, because it names the call.
 * - `event_after_done`: anything after `Done`, a second `Done` included.
 * - `missing_done`: the stream ended without `Done` (an empty stream too).
 * - `wrong_execution_model`: an app-driven stream emitted a provider-driven event or the reverse; also any
 *   element that is no event of the model's vocabulary (not an object, an unknown tag, a tool event whose
 *   id is not a string), and every tool event when the model itself is unknown.
 * - `duplicate_tool_call`: `ToolCallComplete` repeats an id.
 * - `tool_call_without_tool_calling`: a tool-call event from a provider that declares
 *   `supportsToolCalling: false` (the session routes its tools through text, so such a call is not its to make).
 * - `too_many_tool_calls`: a provider-driven stream started one call more than `maxToolCallsPerTurn`.
 */
export type Rule = Errors.EventContractRule

/** What else a stream is checked against besides its execution model. */
export interface Options {
  /** `false`: the provider declares no native tool calling, so any tool-call event breaks the contract (default `true`). */
  readonly toolCalling?: boolean
  /** Provider-driven: at most this many `ToolCallStarted` events (default: no limit). */
  readonly maxToolCalls?: number
}

/** The error a broken rule stands for. */
const violation = (broken: Broken): Errors.ProviderEventContractViolation =>
  new Errors.ProviderEventContractViolation(
    broken.callId === undefined ? { rule: broken.rule } : { rule: broken.rule, callId: broken.callId }
  )

/**
 * The stage: the events pass through unchanged until one breaks a rule; then the stream fails.
 *
 * - The first violation wins: the events before the breaking one are emitted, the breaking one is not, and
 *   nothing more is pulled from upstream.
 * - An upstream failure (or defect, or interruption) passes through unchanged, never turned into a
 *   violation; the end-of-stream rules are checked only when upstream ends successfully.
 * - `ToolCallPartial` is never checked against `ToolCallComplete` (before, after or without one): the
 *   session acts on `ToolCallComplete` only, so a stray partial cannot change what it does.
 * - Ids are opaque strings kept in a `Map` (`""`, `"__proto__"`, `"constructor"` are ids like any other).
 *
 * It works a chunk at a time (one pass over each chunk's array, no effect per event) and keeps its state
 * per run (`Stream.suspend`), so one stage value checks any number of streams, and a checked stream can be
 * run again.
 */
export const check = (model: Provider.ExecutionModel, options: Options = {}) =>
<E, R>(
  self: Stream.Stream<StreamEvent.StreamEvent, E, R>
): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderEventContractViolation, R> =>
  Stream.suspend(() => {
    const tracker = new Tracker(model, options)
    const loop: Channel.Channel<
      Chunk.Chunk<StreamEvent.StreamEvent>,
      Chunk.Chunk<StreamEvent.StreamEvent>,
      E | Errors.ProviderEventContractViolation,
      E,
      unknown,
      unknown
    > = Channel.readWithCause({
      onInput: (chunk: Chunk.Chunk<StreamEvent.StreamEvent>) => {
        const at = tracker.scan(Chunk.toReadonlyArray(chunk))
        if (at < 0) return Channel.flatMap(Channel.write(chunk), () => loop)
        const fail = Channel.fail(violation(tracker.broken!))
        return at === 0 ? fail : Channel.zipRight(Channel.write(Chunk.take(chunk, at)), fail)
      },
      onFailure: Channel.failCause,
      onDone: () => {
        const broken = tracker.end()
        return broken === undefined ? Channel.void : Channel.fail(violation(broken))
      }
    })
    return Stream.fromChannel(Channel.pipeTo(Stream.toChannel(self), loop))
  })

/**
 * The same check on a round answered whole (`AgentProvider.complete`): the first broken rule, or undefined. With
 * `complete: false` (only the first events were read, as `Stream.take` reads a stream) the end-of-stream
 * rules are not checked, exactly as the stage does not check them on a stream cut short.
 */
export const violationIn = (
  model: Provider.ExecutionModel,
  options: Options,
  events: ReadonlyArray<StreamEvent.StreamEvent>,
  complete = true
): Errors.ProviderEventContractViolation | undefined => {
  const tracker = new Tracker(model, options)
  const broken = tracker.scan(events) >= 0 ? tracker.broken : complete ? tracker.end() : undefined
  return broken === undefined ? undefined : violation(broken)
}

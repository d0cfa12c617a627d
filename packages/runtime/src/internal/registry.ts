/**
 * The session's scoped tools as a provider-driven provider is given them (`Provider.registryAware`): each
 * call belongs to the turn that is running, counts against its `maxToolCallsPerTurn` (past it the call is
 * answered `rejected` and its executor never runs), goes through layer 2, and runs recorded in the turn's
 * journal exactly as the session's own calls do, so a failed turn compensates it and a committed turn's undo
 * takes it back. Every outcome is an envelope.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Service as ValidatorService } from "../ArgumentValidator.js"
import type * as Provider from "../Provider.js"
import type * as RunLimits from "../RunLimits.js"
import type * as Tool from "../Tool.js"
import * as ToolEnvelope from "../ToolEnvelope.js"
import type * as Toolkit from "../Toolkit.js"
import type { SessionBusy, SessionStoreError } from "../Errors.js"
import { safeString } from "./json.js"
import { journaled, type Runner } from "./sessionCalls.js"
import * as SessionJournal from "./sessionJournal.js"
import type { Live, RunningTurn } from "./sessionState.js"

/** What the registry is made of: the session's scoped tools, its validator and limits, and the running turn. */
export interface Input extends Runner {
  readonly toolkit: Toolkit.Toolkit<never>
  readonly validator: ValidatorService
  readonly limits: RunLimits.Limits
  readonly live: Live
}

/** The answer of a call made while no turn of the session runs. */
const noTurn = (tool: string): ToolEnvelope.Failure =>
  ToolEnvelope.failure("rejected", "not run: tools run only while a turn of the session is running", { tool, retryable: false })

/** The answer of a call past the turn's `maxToolCallsPerTurn`. */
const pastCap = (tool: string, cap: number): ToolEnvelope.Failure =>
  ToolEnvelope.failure("rejected", `not run: this turn may make at most ${cap} tool call(s) and has made them`, { tool, retryable: false })

/** A call the store refused to journal: the running turn is failed with `error`; the provider gets `unavailable`. */
const refused = (input: Input, tool: string, error: SessionStoreError | SessionBusy) =>
  Effect.as(
    input.durable === undefined ? Effect.void : SessionJournal.refuse(input.durable, error),
    ToolEnvelope.failure("unavailable", error.message, { tool, retryable: false }) as ToolEnvelope.Envelope
  )

/** A call the turn admits, prepared and run in its journal. */
const runIn = (input: Input, turn: RunningTurn, tool: Tool.Tool<any, never>, args: unknown, callId: string) =>
  input.validator.prepare(tool, args, { callId }).pipe(
    Effect.flatMap((prepared) =>
      prepared._tag === "Referencing"
        ? Effect.succeed(ToolEnvelope.failure("invalid_args", "Refs to earlier calls are not resolved for calls the provider runs.", { tool: tool.name }))
        : journaled(input, { turn: turn.number, round: turn.rounds, executions: turn.executions }, tool, prepared)
    ),
    Effect.catchTags({
      InvalidToolArguments: (e) => Effect.succeed<ToolEnvelope.Envelope>(e.envelope),
      InvalidToolSchema: (e) => Effect.succeed(ToolEnvelope.failure("unavailable", e.message, { tool: tool.name, retryable: false })),
      // the store could not journal the call (so it never ran) or journal its answer: the turn fails with
      // that error, as when the store refuses one of the session's own calls; the provider hears `unavailable`
      SessionStoreError: (e) => refused(input, tool.name, e),
      SessionBusy: (e) => refused(input, tool.name, e)
    })
  )

/**
 * The session's tools for a provider that runs them itself. Every call it is asked for while a turn runs
 * counts against the turn's `maxToolCallsPerTurn` (invalid ones included, as the provider starts them all).
 */
export const registry = (input: Input): Provider.Registry => {
  if (input.durable !== undefined) SessionJournal.journalsOutside(input.durable)
  // calls asked for per turn; a turn's entry goes with the turn
  const asked = new WeakMap<RunningTurn, number>()
  const admit = (tool: string): RunningTurn | ToolEnvelope.Failure => {
    const turn = input.live.current
    if (turn === undefined) return noTurn(tool)
    const count = asked.get(turn) ?? 0
    const cap = input.limits.maxToolCallsPerTurn
    if (cap !== undefined && count >= cap) return pastCap(tool, cap)
    asked.set(turn, count + 1)
    return turn
  }
  const tools = Array.from(input.toolkit.tools.values(), (tool): Provider.RegistryTool => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
    execute: (args, callId) =>
      Effect.suspend(() => {
        const turn = admit(tool.name)
        return "ok" in turn ? Effect.succeed<ToolEnvelope.Envelope>(turn) : runIn(input, turn, tool, args, safeString(callId))
      })
  }))
  const byName = new Map(tools.map((t) => [t.name, t] as const))
  return { tools, get: (name) => byName.get(name) }
}

/**
 * A turn in progress: what the send asked for, the state its rounds build up (dropped on rollback), the
 * user's message that begins it, and the text its rounds published that is taken back when it is not the answer.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { JsonSchema, JsonValue as J } from "@toolgate/json-schema"
import { clip } from "@toolgate/json-schema/Text"
import type * as AgentSession from "../AgentSession.js"
import type * as Message from "../Message.js"
import type * as Provider from "../Provider.js"
import * as RepairBudget from "../RepairBudget.js"
import type * as ToolEnvelope from "../ToolEnvelope.js"
import type * as RoundEvents from "./roundEvents.js"
import * as SessionResume from "./sessionResume.js"
import type * as SessionRequest from "./sessionRequest.js"
import { textRouted } from "./sessionAdmit.js"
import { type Env, type Execution, publish, startKeys } from "./sessionState.js"

/** What a send asks for besides the text. */
export interface TurnOptions<A, X> {
  readonly toolChoice: Provider.ToolChoice
  /** Sent as the request's `structuredOutput` (generate). */
  readonly structuredOutput?: JsonSchema.JsonSchema
  /** Reads the final text before the commit (generate's decoding); a failure rolls the turn back. */
  readonly accept: (text: string) => Effect.Effect<A, X>
  /** The send's directives (see `SessionRequest.prompt`). */
  readonly directives?: string
  /** The send's sampling, key by key over the session's. */
  readonly sampling: Provider.Sampling
  /** The images the user's message carries. */
  readonly images?: ReadonlyArray<Message.Image>
  /** The model the send chose (see `Provider.modelSelection`). */
  readonly model?: string
}

/** A turn in progress: everything here is dropped on rollback. */
export interface Current {
  readonly number: number
  /** The index of the turn's User message in history. */
  readonly start: number
  readonly budget: RepairBudget.RepairBudget
  readonly definitions: SessionRequest.Definitions
  /** The sampling every request of the turn carries. */
  readonly sampling: Provider.Sampling | undefined
  /** Tools go through text: listed in the system prompt, calls parsed out of the reply. */
  readonly textRouted: boolean
  /** The turn's journal: every call whose executor started, in start order, appended before it starts (compensated on rollback, undo entries on commit). */
  readonly executions: Array<Execution>
  /** The call ids used in the turn so far (a repeated or empty one is renamed). */
  readonly ids: Set<string>
  /** Round trips started. */
  rounds: number
  /** The last round started, and whether its text was published and not yet taken back. */
  mark: RoundEvents.Mark | undefined
  /** What the finished rounds added; changed only by `advance`. */
  readonly progress: Progress
  /** Set by the commit: an interruption that arrives after it does not roll anything back. */
  committed: boolean
  /** What the send answers, set with the commit (a deadline that strikes after the commit still answers it). */
  done: unknown
}

/** What the turn's finished rounds added: the messages after the User message, the answered calls, tokens. */
export interface Progress {
  readonly messages: Array<Message.Message>
  readonly answered: Array<AgentSession.Answered>
  /** The envelopes of the answered calls, by call id (what refs of later rounds read). */
  readonly results: Map<string, ToolEnvelope.Envelope>
  inputTokens: number
  outputTokens: number
}

/** What one finished round adds. */
export interface RoundRecord {
  readonly messages: ReadonlyArray<Message.Message>
  readonly answered: ReadonlyArray<AgentSession.Answered>
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The one place the turn's progress changes: a finished round is added (in place: the turn's own state, dropped on rollback). */
export const advance = (current: Current, round: RoundRecord): void => {
  const p = current.progress
  for (const message of round.messages) p.messages.push(message)
  for (const a of round.answered) {
    p.answered.push(a)
    p.results.set(a.callId, a.envelope)
  }
  p.inputTokens += round.inputTokens
  p.outputTokens += round.outputTokens
}

/** Takes back the last round's published text (a `RoundDiscarded`), when it published any not yet taken back. */
export const discard = (env: Env, current: Current, reason: string): Effect.Effect<void> => {
  const mark = current.mark
  if (mark === undefined || !mark.texted) return Effect.void
  mark.texted = false
  return publish(env, { _tag: "RoundDiscarded", turn: mark.turn, round: mark.round, reason })
}

/** Why a failed turn's last round is taken back: its typed error's message, an interruption or a defect. */
export const lostBecause = (cause: Cause.Cause<{ readonly message: string }>): string => {
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure)
    ? clip(`the turn failed: ${failure.value.message}`, 500)
    : Cause.isInterruptedOnly(cause)
    ? "the turn was interrupted"
    : "the turn failed with a defect"
}

/** The artifacts of the turn's answered calls that succeeded, by call id. */
export const artifactsOf = (current: Current): Map<string, ReadonlyMap<string, J.JsonValue>> =>
  new Map(current.executions.flatMap((e) => e.envelope?.ok === true && e.artifacts.size > 0 ? [[e.callId, e.artifacts] as const] : []))

/** Records the user's message and starts the turn's state. */
export const begin = Effect.fnUntraced(function*(env: Env, text: string, definitions: SessionRequest.Definitions, sampling: Provider.Sampling | undefined, images?: ReadonlyArray<Message.Image>) {
  const routed = textRouted(env.provider.capabilities)
  const user: Message.User = images === undefined ? { _tag: "User", text } : { _tag: "User", text, images }
  // the lease is renewed (or found lost: `SessionBusy`) before the turn records anything
  if (env.durable !== undefined) yield* SessionResume.beginTurn(env, env.durable, user)
  const number = yield* Ref.updateAndGet(env.turns, (n) => n + 1)
  yield* startKeys(env, number)
  const start = yield* Ref.modify(env.history, (h) => [h.length, [...h, user]])
  yield* publish(env, { _tag: "TurnStarted", turn: number, text })
  const current: Current = {
    number,
    start,
    budget: yield* RepairBudget.make(env.limits),
    definitions,
    sampling,
    textRouted: routed,
    executions: [],
    ids: new Set(),
    rounds: 0,
    mark: undefined,
    progress: { messages: [], answered: [], results: new Map(), inputTokens: 0, outputTokens: 0 },
    committed: false,
    done: undefined
  }
  env.live.current = current
  return current
})

/** What the turn spent so far. */
export const usageOf = (current: Current): Effect.Effect<AgentSession.UsageReport> =>
  Effect.map(current.budget.usage(), (usage) => ({ ...usage, inputTokens: current.progress.inputTokens, outputTokens: current.progress.outputTokens }))

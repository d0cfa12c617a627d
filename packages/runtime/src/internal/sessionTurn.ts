/**
 * One turn of a session, as docs/architecture.md draws it: the checks that may refuse a send before the user's
 * message is recorded, then the message, the drift gate, the round trips (app-driven: until a round has
 * no tool calls; provider-driven: one) and the commit. A typed failure (or an interruption) after the
 * user's message rolls the turn back: history keeps only that message and no undo entry is written.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as AgentSession from "../AgentSession.js"
import type * as DriftGate from "../DriftGate.js"
import { TurnDeadlineExceeded } from "../Errors.js"
import type * as Provider from "../Provider.js"
import * as RunLimits from "../RunLimits.js"
import * as Deadline from "./deadline.js"
import { admit } from "./sessionAdmit.js"
import { commit } from "./sessionCommit.js"
import { type Compensated, reported, rollBack } from "./sessionCompensate.js"
import { begin, type Current, discard, lostBecause, type TurnOptions, usageOf } from "./sessionCurrent.js"
import * as SessionJournal from "./sessionJournal.js"
import * as SessionRequest from "./sessionRequest.js"
import { appRounds, providerRound } from "./sessionRoundTrip.js"
import { type Env, publish } from "./sessionState.js"

/** Cloud-profile, app-driven: the drift gate, unless an earlier send proved the toolkit. */
const gate = Effect.fnUntraced(function*(env: Env, turn: number) {
  if (env.gate === undefined || env.provider.capabilities.executionModel !== "appDriven") return undefined
  if (yield* Ref.get(env.proven)) return undefined
  const verdict: DriftGate.Verdict = yield* env.gate.check(env.toolkit)
  if (verdict._tag === "Proven") yield* Ref.set(env.proven, true)
  yield* publish(env, {
    _tag: "DriftGateChecked",
    turn,
    outcome: verdict._tag === "Proven" ? "proven" : "degraded",
    tools: verdict._tag === "Proven" ? verdict.tools : [],
    detail: verdict._tag === "Proven" ? `${verdict.tools.length} exported tool(s) proven` : verdict.detail
  })
  return verdict
})

/** The turn after the user's message: gate, rounds, acceptance of the final text, commit. */
const body = Effect.fnUntraced(function*<A, X>(
  env: Env,
  current: Current,
  options: TurnOptions<A, X>,
  warnings: { readonly tools: ReadonlyArray<Provider.ToolSchemaWarning>; readonly request: ReadonlyArray<string> }
) {
  const verdict = yield* gate(env, current.number)
  const text = env.provider.capabilities.executionModel === "providerDriven"
    ? yield* providerRound(env, current, options)
    : yield* appRounds(env, current, options)
  const value = yield* options.accept(text)
  const turn: AgentSession.Turn = {
    turn: current.number,
    text,
    calls: current.progress.answered,
    usage: yield* usageOf(current),
    warnings: warnings.tools,
    requestWarnings: warnings.request,
    gate: verdict
  }
  current.done = [turn, value] as const
  yield* commit(env, current)
  return [turn, value] as const
})

/** Runs one send: admitted, begun, rounds, committed; or rolled back to the user's message (its executed calls compensated). */
export const run = <A, X extends { readonly _tag: string; readonly message: string }>(
  env: Env,
  text: string,
  options: TurnOptions<A, X>
): Effect.Effect<readonly [AgentSession.Turn, A], AgentSession.SendError | X> =>
  Effect.gen(function*() {
    const { definitions, requestWarnings, warnings } = yield* admit(env, options.toolChoice, options)
    const asked = SessionRequest.sampling(env.provider.capabilities, env.sampling, options.sampling)
    const current = yield* begin(env, text, definitions, asked.sampling, options.images)
    let compensated: Compensated | undefined
    const limitMillis = env.limits.turnDeadlineMillis ?? RunLimits.defaultTurnDeadlineMillis
    const unguarded = body(env, current, options, { tools: warnings, request: [...requestWarnings, ...asked.warnings] })
    const turn = env.durable === undefined ? unguarded : SessionJournal.renewing(env.durable, unguarded)
    // after the turn, however it ended: the registry of a registry-aware provider runs no call for a turn that
    // has ended; a managed conversation cannot have seen more than history now holds; the usage of a turn that
    // made a request is the last one
    const after = Effect.suspend(() => {
      if (env.live.current === current) env.live.current = undefined
      const seen = Effect.flatMap(Ref.get(env.history), (h) => Ref.update(env.seen, (s) => Math.min(s, h.length)))
      return current.rounds === 0 ? seen : Effect.zipRight(seen, Effect.flatMap(usageOf(current), (u) => Ref.set(env.lastUsage, Option.some(u))))
    })
    // past the deadline the turn is interrupted where it is (a running executor included), then compensated
    return yield* Deadline.within(turn, Duration.millis(limitMillis), () => Effect.fail(new TurnDeadlineExceeded({ limitMillis }))).pipe(
      // the deadline struck between the commit and the answer: the turn is committed, so it is the answer
      Effect.catchIf((e) => e instanceof TurnDeadlineExceeded && current.committed, () => Effect.succeed(current.done as readonly [AgentSession.Turn, A])),
      // an onExit finalizer is uninterruptible: an interrupted send is compensated before the interruption completes;
      // the rollback runs disconnected, because an interruption that arrives meanwhile is passed on to the fibers
      // the turn's fiber started (the undos' deadlines among them) even while the finalizer itself cannot be stopped
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && !current.committed
          ? Effect.ensuring(
            Effect.zipRight(
              Effect.sync(() => void (env.live.current === current && (env.live.current = undefined))),
              Effect.disconnect(Effect.zipRight(
                discard(env, current, lostBecause(exit.cause)),
                Effect.flatMap(usageOf(current), (usage) =>
                  Effect.map(rollBack(env, current, { usage: current.rounds === 0 ? undefined : usage, cause: exit.cause, millis: limitMillis }), (c) => void (compensated = c)))
              ))
            ),
            after
          )
          : after
      ),
      Effect.mapError((e) => reported(current.number, compensated, e))
    )
  })

/**
 * Layer 3's budget, made once per turn: `roundTrip()` before every provider request, `repair(issues)`
 * for every round whose calls had invalid arguments. A repair costs one repair and, through the
 * `roundTrip()` that carries it back to the model, one round-trip slot: `repair` itself never spends a
 * slot, so no caller can charge one twice. Several invalid calls of one round spend one repair.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { Validator } from "@toolgate/json-schema"
import { RoundTripLimitExceeded, ToolArgumentRepairExhausted } from "./Errors.js"
import { RunLimits, type Limits } from "./RunLimits.js"

/** What a turn has spent so far. */
export interface Usage {
  /** Provider requests made (slots spent). */
  readonly roundTrips: number
  /** Repairs spent (never more than `maxToolArgumentRepairs`). */
  readonly repairs: number
  /** Rounds that had invalid arguments, including one that found the budget spent. */
  readonly invalidRounds: number
}

/** One turn's budget. */
export interface RepairBudget {
  /** Spends a round-trip slot; call it right before each provider request (the first one too). */
  readonly roundTrip: () => Effect.Effect<void, RoundTripLimitExceeded>
  /**
   * Spends one repair for the current round (the responses since the last `roundTrip`), or fails with
   * `ToolArgumentRepairExhausted` carrying this round's issues when none is left. Calling it again in the
   * same round spends nothing more; it adds the issues to the round's.
   */
  readonly repair: (issues: ReadonlyArray<Validator.Issue>) => Effect.Effect<void, ToolArgumentRepairExhausted>
  /** What has been spent so far. */
  readonly usage: () => Effect.Effect<Usage>
}

interface State extends Usage {
  /** The round `repair` last charged (`-1`: none); rounds are numbered by the round trips before them. */
  readonly chargedRound: number
  readonly exhausted: boolean
  readonly lastIssues: ReadonlyArray<Validator.Issue>
}

/** The outcome of charging a round: the new state, and whether the budget held. */
const charge = (state: State, issues: ReadonlyArray<Validator.Issue>, limit: number): readonly [boolean, State] => {
  if (state.chargedRound === state.roundTrips) {
    return [!state.exhausted, { ...state, lastIssues: [...state.lastIssues, ...issues] }]
  }
  const spendable = state.repairs < limit
  return [spendable, {
    ...state,
    chargedRound: state.roundTrips,
    invalidRounds: state.invalidRounds + 1,
    repairs: spendable ? state.repairs + 1 : state.repairs,
    exhausted: !spendable,
    lastIssues: issues
  }]
}

/** One round trip from `state`, or `RoundTripLimitExceeded` when none is left. */
const spendRoundTrip = (state: Ref.Ref<State>, limits: Limits): Effect.Effect<void, RoundTripLimitExceeded> =>
  Effect.flatMap(
    Ref.modify(state, (s) => s.roundTrips < limits.maxProviderRoundTrips ? [true, { ...s, roundTrips: s.roundTrips + 1 }] as const : [false, s] as const),
    (spent) => spent ? Effect.void : new RoundTripLimitExceeded({ limit: limits.maxProviderRoundTrips })
  )

/** One invalid round charged to `state` (see `charge`), or `ToolArgumentRepairExhausted` when no repair is left. */
const spendRepair = (state: Ref.Ref<State>, limits: Limits, issues: ReadonlyArray<Validator.Issue>): Effect.Effect<void, ToolArgumentRepairExhausted> =>
  Effect.flatMap(
    Ref.modify(state, (s) => {
      const [ok, next] = charge(s, issues, limits.maxToolArgumentRepairs)
      return [[ok, next] as const, next]
    }),
    ([held, after]) =>
      held ? Effect.void : new ToolArgumentRepairExhausted({
        limit: limits.maxToolArgumentRepairs,
        attempts: after.invalidRounds,
        lastIssues: after.lastIssues
      })
  )

/**
 * A fresh budget for one turn, within `limits` (as `RunLimits.make` decodes them). Plain effects, no spans of
 * their own: a budget is spent inside the session's round-trip and tool-call spans, once per turn or round.
 */
export const make = (limits: Limits): Effect.Effect<RepairBudget> =>
  Effect.sync(() => {
    const state = Ref.unsafeMake<State>({ roundTrips: 0, repairs: 0, invalidRounds: 0, chargedRound: -1, exhausted: false, lastIssues: [] })
    return {
      roundTrip: () => spendRoundTrip(state, limits),
      repair: (issues: ReadonlyArray<Validator.Issue>) => spendRepair(state, limits, issues),
      usage: () => Effect.map(Ref.get(state), ({ invalidRounds, repairs, roundTrips }): Usage => ({ roundTrips, repairs, invalidRounds }))
    }
  })

/** A fresh budget for one turn, from the application's `RunLimits`. */
export const fromRunLimits: Effect.Effect<RepairBudget, never, RunLimits> = Effect.flatMap(RunLimits, make)

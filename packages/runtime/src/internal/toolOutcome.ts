/**
 * An executor's outcome (result, failure, defect, interruption) as a tool envelope.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { JsonValue as J } from "@toolgate/json-schema"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Deadline from "./deadline.js"

/** Whether `u` is a plain object with an own boolean `ok`: the only values tried as a ready-made envelope. */
const looksLikeEnvelope = (u: unknown): boolean => {
  try {
    return typeof u === "object" && u !== null && !Array.isArray(u) &&
      Object.prototype.hasOwnProperty.call(u, "ok") && typeof (u as { readonly ok: unknown }).ok === "boolean"
  } catch {
    return false
  }
}

/** A successful result as an envelope; `None` when it is not JSON (a bug in the tool, logged by the caller). */
const fromResult = (tool: string, result: unknown): Option.Option<ToolEnvelope.Envelope> => {
  if (result === undefined) return Option.some(ToolEnvelope.success(null, { tool }))
  if (looksLikeEnvelope(result)) {
    const decoded = ToolEnvelope.decode(result)
    if (Either.isRight(decoded)) {
      return Option.some(decoded.right.tool === undefined ? { ...decoded.right, tool } : decoded.right)
    }
  }
  return J.isJsonValue(result) ? Option.some(ToolEnvelope.success(result, { tool })) : Option.none()
}

/** The envelope of an executor's outcome; interruption is passed on, a defect is logged with its cause. */
export const outcome = <R>(
  tool: string,
  callId: string,
  execution: Effect.Effect<unknown, unknown, R>
): Effect.Effect<ToolEnvelope.Envelope, never, R> =>
  execution.pipe(
    Effect.matchCauseEffect({
      onSuccess: (result) =>
        Option.match(fromResult(tool, result), {
          onSome: Effect.succeed,
          onNone: () =>
            Effect.logError(`Tool \`${tool}\` returned a result that is not JSON`).pipe(
              Effect.as(ToolEnvelope.failure("execution_error", "The tool's result could not be encoded as JSON.", { tool }))
            )
        }),
      onFailure: (cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) return Effect.succeed<ToolEnvelope.Envelope>(ToolEnvelope.fromError(failure.value, tool))
        const defect = Cause.dieOption(cause)
        if (Option.isNone(defect)) return Effect.failCause(cause as Cause.Cause<never>)
        const message = `The tool failed unexpectedly: ${ToolEnvelope.fromError(defect.value).message}`
        return Effect.logError(`Tool \`${tool}\` died`, cause).pipe(
          Effect.as<ToolEnvelope.Envelope>(ToolEnvelope.failure("execution_error", message, { tool }))
        )
      }
    }),
    Effect.annotateLogs({ tool, callId })
  )

/** What a timed run gives: the envelope, and whether the tool's time budget ended it (its effect is then unknown). */
export interface Timed {
  readonly envelope: ToolEnvelope.Envelope
  readonly timedOut: boolean
}

/** A tool's time budget: its own, the default (120 s), or none. */
export const budgetOf = (tool: { readonly timeout?: Duration.Duration | "none" }): Duration.Duration | undefined =>
  tool.timeout === "none" ? undefined : tool.timeout ?? Duration.seconds(120)

/** The `timeout` envelope of a call that ran past `budget`. */
export const timeoutEnvelope = (tool: string, budget: Duration.Duration): ToolEnvelope.Failure =>
  ToolEnvelope.failure("timeout", `The tool ran past its time budget of ${Duration.format(budget)} and was stopped.`, { tool })

/**
 * Runs `execution` within the tool's time budget and answers with its envelope: past the budget its fiber is
 * interrupted (the timeout waits until it stopped) and the answer is a `timeout` envelope.
 */
export const timed = <R>(
  tool: { readonly name: string; readonly timeout?: Duration.Duration | "none" },
  callId: string,
  execution: Effect.Effect<unknown, unknown, R>
): Effect.Effect<Timed, never, R> => {
  const budget = budgetOf(tool)
  const run = Effect.map(outcome(tool.name, callId, execution), (envelope): Timed => ({ envelope, timedOut: false }))
  if (budget === undefined) return run
  return Deadline.within(run, budget, () => Effect.succeed<Timed>({ envelope: timeoutEnvelope(tool.name, budget), timedOut: true }))
}

/**
 * An executor's outcome (result, failure, defect, interruption) as a tool envelope.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { JsonValue as J } from "@toolgate/json-schema"
import * as ToolEnvelope from "../ToolEnvelope.js"
import * as Deadline from "./deadline.js"
import { utf8Length } from "./text.js"
import { groupDigits, truncateBytesForModel } from "./truncate.js"

/** The deepest nesting of a tool result a session keeps: 1,000 levels. */
export const maxResultDepth = 1_000

/** The largest tool result a session keeps, in characters of its JSON text: 64 Mi. */
export const maxResultChars = 64 * 1024 * 1024

/** Why a value is not JSON a session keeps. */
class NotJson {
  constructor(readonly reason: string) {}
}

/** Copies one value; `left` is what is left of the size budget, `ancestors` the objects the value sits in. */
const copyValue = (v: unknown, depth: number, left: { n: number }, ancestors: Set<object>): J.JsonValue => {
  const spend = (n: number) => {
    if ((left.n -= n) < 0) throw new NotJson(`it is larger than ${maxResultChars} characters of JSON`)
  }
  if (v === null) return (spend(4), null)
  switch (typeof v) {
    case "boolean":
      return (spend(5), v)
    case "number":
      if (!Number.isFinite(v)) throw new NotJson(`it holds the number ${v}`)
      return (spend(24), v)
    case "string":
      return (spend(v.length + 2), v)
    case "object":
      break
    default:
      throw new NotJson(`it holds a ${typeof v}`)
  }
  if (depth >= maxResultDepth) throw new NotJson(`it is nested deeper than ${maxResultDepth} levels`)
  if (ancestors.has(v)) throw new NotJson("it holds a cycle")
  ancestors.add(v)
  const out = Array.isArray(v) ? copyArray(v, depth, left, ancestors) : copyObject(v, depth, left, ancestors)
  ancestors.delete(v)
  return out
}

/** An own, enumerable data property's value (no getter is ever called). */
const member = (v: object, key: string | symbol): unknown => {
  if (typeof key === "symbol") throw new NotJson("it has a symbol key")
  const d = Object.getOwnPropertyDescriptor(v, key)
  if (d === undefined || !("value" in d) || !d.enumerable) throw new NotJson(`its member \`${key.slice(0, 100)}\` is not a plain data property`)
  return d.value
}

const copyArray = (v: ReadonlyArray<unknown>, depth: number, left: { n: number }, ancestors: Set<object>): J.JsonArray => {
  const length = v.length
  if (Reflect.ownKeys(v).length !== length + 1) throw new NotJson("it holds an array with holes or extra keys")
  left.n -= length + 2
  const out: Array<J.JsonValue> = new Array(length)
  for (let i = 0; i < length; i++) out[i] = copyValue(member(v, String(i)), depth + 1, left, ancestors)
  return out
}

const copyObject = (v: object, depth: number, left: { n: number }, ancestors: Set<object>): J.JsonObject => {
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) throw new NotJson("it holds an object that is not a plain object")
  const out: Record<string, J.JsonValue> = {}
  for (const key of Reflect.ownKeys(v)) {
    const value = copyValue(member(v, key), depth + 1, left, ancestors)
    left.n -= (key as string).length + 4
    // `__proto__` is an own key like any other, never the copy's prototype
    if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
    else out[key as string] = value
  }
  return out
}

/**
 * A JSON copy of a tool's result, made when the result is produced, so nothing the executor does to its value
 * afterwards reaches history; or why it is not JSON (a cycle, a `bigint`, a function, a getter, a class
 * instance, nesting past `maxResultDepth`, size past `maxResultChars`, a throwing Proxy).
 */
export const copyJson = (u: unknown): Either.Either<J.JsonValue, string> => {
  try {
    return Either.right(copyValue(u, 0, { n: maxResultChars }, new Set()))
  } catch (e) {
    return Either.left(e instanceof NotJson ? e.reason : e instanceof RangeError ? "it is nested too deeply" : "it could not be read")
  }
}

/** Whether `u` is a plain object with an own boolean `ok`: the only values tried as a ready-made envelope. */
const looksLikeEnvelope = (u: J.JsonValue): boolean =>
  typeof u === "object" && u !== null && !Array.isArray(u) &&
  Object.prototype.hasOwnProperty.call(u, "ok") && typeof (u as { readonly ok: unknown }).ok === "boolean"

/** A successful result, copied, as an envelope; `Left` with the reason when it is not JSON (a bug in the tool, logged by the caller). */
const fromResult = (tool: string, result: unknown): Either.Either<ToolEnvelope.Envelope, string> => {
  if (result === undefined) return Either.right(ToolEnvelope.success(null, { tool }))
  return Either.map(copyJson(result), (copy) => {
    if (looksLikeEnvelope(copy)) {
      const decoded = ToolEnvelope.decode(copy)
      if (Either.isRight(decoded)) return decoded.right.tool === undefined ? { ...decoded.right, tool } : decoded.right
    }
    return ToolEnvelope.success(copy, { tool })
  })
}

/** What a call's run replaces for its duration, restored after it. */
interface Saved {
  readonly context: Context.Context<never>
  readonly annotations: HashMap.HashMap<string, unknown>
}

/**
 * `self` with its logs annotated with the call (`tool`, `callId`) and, when `context` is given, that context
 * over the fiber's (as `Effect.provide` does): both set, and restored after, in one step, as one
 * `Effect.locally` would for one of them.
 */
const inCall = <A, E, R>(self: Effect.Effect<A, E, R>, tool: string, callId: string, context: Context.Context<never> | undefined) =>
  Effect.acquireUseRelease(
    Effect.withFiberRuntime<Saved>((fiber) => {
      const saved: Saved = { context: fiber.getFiberRef(FiberRef.currentContext), annotations: fiber.getFiberRef(FiberRef.currentLogAnnotations) }
      const annotate = FiberRef.set(FiberRef.currentLogAnnotations, HashMap.set(HashMap.set(saved.annotations, "tool", tool), "callId", callId))
      return Effect.as(context === undefined ? annotate : Effect.zipRight(FiberRef.set(FiberRef.currentContext, Context.merge(saved.context, context)), annotate), saved)
    }),
    () => self,
    (saved) => Effect.zipRight(FiberRef.set(FiberRef.currentContext, saved.context), FiberRef.set(FiberRef.currentLogAnnotations, saved.annotations))
  )

/**
 * The envelope of an executor's outcome; interruption is passed on, a defect is logged with its cause. Logs
 * are annotated with the call; `context` (the session's), when given, is provided to the whole run.
 */
export const outcome = <R>(
  tool: string,
  callId: string,
  execution: Effect.Effect<unknown, unknown, R>,
  context?: Context.Context<never>
): Effect.Effect<ToolEnvelope.Envelope, never, R> =>
  inCall(
    Effect.matchCauseEffect(execution, {
      onSuccess: (result) =>
        Either.match(fromResult(tool, result), {
          onRight: Effect.succeed,
          onLeft: (reason) =>
            Effect.logError(`Tool \`${tool}\` returned a result that is not JSON: ${reason}`).pipe(
              Effect.as(ToolEnvelope.failure("execution_error", `The tool's result is not JSON: ${reason}.`, { tool }))
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
    tool,
    callId,
    context
  )

/** What a timed run gives: the envelope, and whether the tool's time budget ended it (its effect is then unknown). */
export interface Timed {
  readonly envelope: ToolEnvelope.Envelope
  readonly timedOut: boolean
}

/** How long a tool's run (or undo) may take unless the tool says otherwise: 120 seconds (`Tool.defaultTimeout`). */
export const defaultTimeout: Duration.Duration = Duration.seconds(120)

/** A tool's time budget: its own, the default, or none. */
export const budgetOf = (tool: { readonly timeout?: Duration.Duration | "none" }): Duration.Duration | undefined =>
  tool.timeout === "none" ? undefined : tool.timeout ?? defaultTimeout

/** The `timeout` envelope of a call that ran past `budget`. */
export const timeoutEnvelope = (tool: string, budget: Duration.Duration): ToolEnvelope.Failure =>
  ToolEnvelope.failure("timeout", `The tool ran past its time budget of ${Duration.format(budget)} and was stopped.`, { tool })

/**
 * Runs `execution` within the tool's time budget and answers with its envelope: past the budget its fiber is
 * interrupted (the timeout waits until it stopped) and the answer is a `timeout` envelope. `context`, when
 * given, is provided to the run (see `outcome`).
 */
export const timed = <R>(
  tool: { readonly name: string; readonly timeout?: Duration.Duration | "none" },
  callId: string,
  execution: Effect.Effect<unknown, unknown, R>,
  context?: Context.Context<never>
): Effect.Effect<Timed, never, R> => {
  const budget = budgetOf(tool)
  const run = Effect.map(outcome(tool.name, callId, execution, context), (envelope): Timed => ({ envelope, timedOut: false }))
  if (budget === undefined) return run
  return Deadline.within(run, budget, () => Effect.succeed<Timed>({ envelope: timeoutEnvelope(tool.name, budget), timedOut: true }))
}

/** What the model is sent of an envelope, and the envelope itself when that had to be cut. */
export interface ForModel {
  readonly envelope: ToolEnvelope.Envelope
  /** The whole envelope, when `envelope` is its cut form (`undefined` when it fit). */
  readonly whole: ToolEnvelope.Envelope | undefined
}

/** The envelope as JSON text and its UTF-8 size (`undefined`: it is not JSON). */
const sizeOf = (envelope: ToolEnvelope.Envelope): number | undefined => {
  const text = J.stringify(envelope)
  return text === undefined ? undefined : text.length * 3 <= 1024 ? text.length : utf8Length(text)
}

/** The answer when nothing of an envelope fits: a failure that says so. */
const tooLarge = (maxBytes: number): ToolEnvelope.Failure =>
  ToolEnvelope.failure("execution_error", `The tool's answer could not be cut to ${maxBytes} bytes for the model.`, { retryable: false })

/**
 * `envelope` within `maxBytes` UTF-8 bytes of JSON, as the model is sent it: a success whose result is too
 * large gets the result's JSON text cut head + tail (`truncateBytesForModel`) and a warning saying so; a
 * failure gets its message cut. The cut is shrunk until the whole envelope, escapes included, fits.
 */
export const forModel = (envelope: ToolEnvelope.Envelope, maxBytes: number): ForModel => {
  const size = sizeOf(envelope)
  if (size !== undefined && size <= maxBytes) return { envelope, whole: undefined }
  const text = envelope.ok ? J.stringify(envelope.result) ?? "" : envelope.message
  const warning = `The result was ${groupDigits(utf8Length(text))} bytes of JSON, more than the ${groupDigits(maxBytes)} a tool result may have here: ` +
    "it is given as its JSON text with the middle cut."
  const cut = (budget: number): ToolEnvelope.Envelope =>
    envelope.ok
      ? { ...envelope, result: truncateBytesForModel(text, budget), warnings: [...(envelope.warnings ?? []), warning] }
      : { ...envelope, message: truncateBytesForModel(text, budget) }
  let budget = maxBytes - (sizeOf(cut(0)) ?? maxBytes)
  for (let i = 0; i < 8 && budget > 0; i++) {
    const candidate = cut(budget)
    const candidateSize = sizeOf(candidate) ?? Infinity
    if (candidateSize <= maxBytes) return { envelope: candidate, whole: envelope }
    budget -= Math.max(1, candidateSize - maxBytes)
  }
  const least = cut(0)
  return { envelope: (sizeOf(least) ?? Infinity) <= maxBytes ? least : tooLarge(maxBytes), whole: envelope }
}

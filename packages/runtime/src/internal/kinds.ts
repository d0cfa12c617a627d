/**
 * Failure kinds, their default `retryable`, and the failure builder shared by every module that makes
 * failure envelopes.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { safeGet, safeString } from "./json.js"

/** Every kind, in the order of the contract's table. */
export const allKinds = [
  "invalid_args",
  "rejected",
  "user_denied",
  "timeout",
  "execution_error",
  "not_found",
  "unavailable",
  "tool_not_found"
] as const

/** The kinds as a Schema. */
export const Kind = Schema.Literal(...allKinds).annotations({ identifier: "ToolEnvelope.Kind" })

/** One of the eight failure kinds. */
export type Kind = typeof Kind.Type

/** Each kind's default `retryable`. */
export const defaultRetryable: { readonly [K in Kind]: boolean } = {
  invalid_args: true,
  rejected: false,
  user_denied: false,
  timeout: true,
  execution_error: true,
  not_found: false,
  unavailable: true,
  tool_not_found: false
}

/** Whether `u` is one of the eight kinds. */
export const isKind = (u: unknown): u is Kind => typeof u === "string" && (allKinds as ReadonlyArray<string>).includes(u)

/** The failure envelope's type (the Schema lives in `ToolEnvelope`). */
export interface Failure {
  readonly ok: false
  readonly kind: Kind
  readonly message: string
  readonly field?: string
  readonly expected?: string
  readonly tool?: string
  readonly retryable: boolean
}

/** What a failure may carry besides kind and message. */
export interface FailureOptions {
  readonly field?: string | undefined
  readonly expected?: string | undefined
  readonly tool?: string | undefined
  readonly retryable?: boolean | undefined
}

/**
 * Builds a failure in the wire's key order, leaving out absent options. Defensive: an unknown kind is
 * `execution_error`, a non-string message is stringified, options of the wrong type are ignored.
 */
export const failure = (kind: Kind, message: string, options?: FailureOptions): Failure => {
  const k: Kind = isKind(kind) ? kind : "execution_error"
  const field = safeGet(options, "field")
  const expected = safeGet(options, "expected")
  const tool = safeGet(options, "tool")
  const retryable = safeGet(options, "retryable")
  return {
    ok: false,
    kind: k,
    message: typeof message === "string" ? message : safeString(message),
    ...(typeof field === "string" ? { field } : {}),
    ...(typeof expected === "string" ? { expected } : {}),
    ...(typeof tool === "string" ? { tool } : {}),
    retryable: typeof retryable === "boolean" ? retryable : defaultRetryable[k]
  }
}

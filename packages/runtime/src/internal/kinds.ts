/**
 * Failure kinds, their default `retryable`, and the failure builder shared by every module that makes
 * failure envelopes.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

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

/** Builds a failure in the wire's key order, leaving out absent options; `retryable` defaults by kind. */
export const failure = (kind: Kind, message: string, options: FailureOptions = {}): Failure => ({
  ok: false,
  kind,
  message,
  ...(options.field === undefined ? {} : { field: options.field }),
  ...(options.expected === undefined ? {} : { expected: options.expected }),
  ...(options.tool === undefined ? {} : { tool: options.tool }),
  retryable: options.retryable ?? defaultRetryable[kind]
})

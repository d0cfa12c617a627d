/**
 * Detectors: tell a tool result's shape from a JSON string or a parsed value without decoding all of it.
 *
 * @internal
 */
import * as Option from "effect/Option"
import { defaultRetryable, isKind, type Kind } from "./kinds.js"
import { hasOwnValue, isPlainObject, ownValue, parseJson, safeString } from "./json.js"

/** The legacy prefix of a policy rejection. */
export const legacyRejectedPrefix = "[REJECTED]"

/** The legacy prefix of a timeout. */
export const legacyTimeoutPrefix = "[TIMEOUT]"

/** What a tool result is. `legacy` marks the prefixed-string and `{ "error": … }` forms. */
export type Detected =
  | { readonly _tag: "Success"; readonly result: Option.Option<unknown> }
  | {
    readonly _tag: "Failure"
    readonly kind: Kind
    readonly message: string
    readonly retryable: boolean
    readonly legacy: boolean
  }
  | { readonly _tag: "Neither" }

const neither: Detected = { _tag: "Neither" }

/** A failure classification with `retryable` defaulted by kind. */
const failed = (kind: Kind, message: string, legacy: boolean, retryable?: unknown): Detected => ({
  _tag: "Failure",
  kind,
  message,
  retryable: typeof retryable === "boolean" ? retryable : defaultRetryable[kind],
  legacy
})

/** A legacy prefixed string, or `undefined`. Leading whitespace is allowed before the prefix. */
const fromPrefix = (text: string): Detected | undefined => {
  const t = text.trimStart()
  const kind: Kind | undefined = t.startsWith(legacyRejectedPrefix)
    ? "rejected"
    : t.startsWith(legacyTimeoutPrefix)
    ? "timeout"
    : undefined
  if (kind === undefined) return undefined
  const prefix = kind === "rejected" ? legacyRejectedPrefix : legacyTimeoutPrefix
  const rest = t.slice(prefix.length).trim()
  return failed(kind, rest === "" ? t.trim() : rest, true)
}

/** The message of a legacy `{ "error": … }` object: the string itself, or the nested object's `message`. */
const legacyMessage = (error: unknown, outer: unknown): string | undefined => {
  if (typeof error === "string") return error.trim() === "" ? undefined : error
  if (!isPlainObject(error)) return undefined
  const nested = ownValue(error, "message")
  if (typeof nested === "string" && nested.trim() !== "") return nested
  const top = ownValue(outer, "message")
  return typeof top === "string" && top.trim() !== "" ? top : undefined
}

/** Classifies an already parsed value. */
const classifyValue = (value: unknown): Detected => {
  if (typeof value === "string") return fromPrefix(value) ?? neither
  if (!isPlainObject(value)) return neither
  const ok = ownValue(value, "ok")
  if (ok === true) {
    return { _tag: "Success", result: hasOwnValue(value, "result") ? Option.some(ownValue(value, "result")) : Option.none() }
  }
  if (ok === false) {
    const kind = ownValue(value, "kind")
    const message = ownValue(value, "message")
    return failed(
      isKind(kind) ? kind : "execution_error",
      typeof message === "string" ? message : "The tool failed without a message.",
      false,
      ownValue(value, "retryable")
    )
  }
  if (hasOwnValue(value, "ok")) return neither
  const error = ownValue(value, "error")
  const message = legacyMessage(error, value)
  if (message === undefined) return neither
  const kind = ownValue(value, "kind")
  const code = ownValue(value, "code")
  return failed(isKind(kind) ? kind : isKind(code) ? code : "execution_error", message, true, ownValue(value, "retryable"))
}

/** Classifies a tool result given as a JSON string or as a parsed value; never throws. */
export const classify = (input: unknown): Detected => {
  if (typeof input !== "string") return classifyValue(input)
  const prefixed = fromPrefix(input)
  if (prefixed !== undefined) return prefixed
  const t = input.trimStart()
  // Envelopes are objects; a JSON string may carry a legacy prefix. Nothing else is worth parsing.
  if (!t.startsWith("{") && !t.startsWith("\"")) return neither
  const parsed = parseJson(input)
  return parsed === undefined ? neither : classifyValue(parsed.value)
}

/** The `result` of a success envelope. */
export const successPayload = (input: unknown): Option.Option<unknown> => {
  const d = classify(input)
  return d._tag === "Success" ? d.result : Option.none()
}

/** The message of a failure, or the input itself as text. */
export const failureMessage = (input: unknown): string => {
  const d = classify(input)
  if (d._tag === "Failure") return d.message
  if (typeof input === "string") return input
  try {
    const json = JSON.stringify(input)
    if (typeof json === "string") return json
  } catch {
    // not JSON: fall back to String below
  }
  return safeString(input)
}

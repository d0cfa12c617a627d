/**
 * A scripted model as data: per turn, the rounds it answers with, each round either the `StreamEvent`s
 * of one round trip or a `Failure` (the provider fails that round trip). The same shape is read from JSON
 * scenario files, which the relay serves, so a script works in-process (`Scripted`) and over HTTP alike.
 *
 * A request finds its round by counting messages (`position`): every User message starts a turn, every
 * Assistant message after the last User is a round already answered. A User message made only of
 * `<tool_response>` blocks is not the user speaking: it carries tool results to a model without native tool
 * calling (text-routed), so it starts no turn. A rolled-back turn keeps its User
 * message in history, so it still counts as a turn: a script for "fail, then succeed on the next send"
 * puts the failing rounds under turn 0 and the next send's rounds under turn 1.
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Message } from "@toolgate/runtime"
import { StreamEvent } from "@toolgate/runtime"

/** A round trip the provider fails: a `ProviderError` with this reason and retryability. */
export const Failure = Schema.Struct({
  fail: Schema.Struct({ reason: Schema.String, retryable: Schema.Boolean })
}).annotations({ identifier: "ScriptFailure" })
export type Failure = typeof Failure.Type

/** The events of one round trip (emitted as given, no `Done` added), or a `Failure`. */
export const Round = Schema.Union(Schema.Array(StreamEvent.StreamEvent), Failure).annotations({ identifier: "ScriptRound" })
export type Round = typeof Round.Type

/** Per turn, its rounds in order. */
export const Script = Schema.Struct({
  turns: Schema.Array(Schema.Array(Round))
}).annotations({ identifier: "Script" })
export type Script = typeof Script.Type

/** Where a request stands (0-based): `turn` = User messages − 1 (−1 before any), `round` = Assistant messages after the last User. */
export interface Position {
  readonly turn: number
  readonly round: number
}

/** The round a request asks for: turn = number of User messages − 1; round = Assistant messages after the last User. */
export const position = (messages: ReadonlyArray<Message.Message>): Position => {
  let turn = -1
  let round = 0
  // A plain loop with a tag check per element: messages of any shape are counted, never thrown on.
  const list: ReadonlyArray<unknown> = Array.isArray(messages) ? messages : []
  for (let i = 0; i < list.length; i++) {
    const tag = tagOf(list[i])
    if (tag === "User" && !isToolResponses((list[i] as { readonly text?: unknown }).text)) {
      turn++
      round = 0
    } else if (tag === "Assistant" && turn >= 0) {
      round++
    }
  }
  return { turn, round }
}

/** The round the script gives for `messages`, or `undefined` when it has none (before any User message included). */
export const select = (script: Script, messages: ReadonlyArray<Message.Message>): Round | undefined => {
  const { round, turn } = position(messages)
  return at(at(script?.turns, turn), round)
}

const open = "<tool_response>"
const close = "</tool_response>"

/** Whether `text` is one or more `<tool_response>` blocks and whitespace, nothing else (one pass, no regex backtracking). */
export const isToolResponses = (text: unknown): boolean => {
  if (typeof text !== "string") return false
  let at = 0
  let blocks = 0
  for (;;) {
    while (at < text.length && isSpace(text.charCodeAt(at))) at++
    if (at === text.length) return blocks > 0
    if (!text.startsWith(open, at)) return false
    const end = text.indexOf(close, at + open.length)
    if (end < 0) return false
    at = end + close.length
    blocks++
  }
}

/** Space, tab, line feed, carriage return (what the session puts between blocks). */
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13

/** Validates a script read from JSON (every error, not just the first). */
export const decode = (u: unknown): Either.Either<Script, ParseResult.ParseError> => decodeScript(u)

/** Whether a round is a `Failure` rather than events. */
export const isFailure = (round: Round): round is Failure => !Array.isArray(round)

const decodeScript = Schema.decodeUnknownEither(Script, { errors: "all" })

/** The element at a non-negative index of an array, `undefined` for anything else (no prototype reads). */
const at = <A>(list: ReadonlyArray<A> | undefined, index: number): A | undefined =>
  Array.isArray(list) && Number.isSafeInteger(index) && index >= 0 && index < list.length ? list[index] : undefined

/** A message's own `_tag`, if it has one. */
const tagOf = (u: unknown): unknown =>
  typeof u === "object" && u !== null && Object.hasOwn(u, "_tag") ? (u as { readonly _tag: unknown })._tag : undefined

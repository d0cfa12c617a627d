/**
 * What `DefaultChatTransport` (and `useChat` over it) POSTs: `{ id, messages, trigger, messageId?, …body }`,
 * decoded once at the edge. The chat `id` names the session; the session keeps its own history, so of
 * `messages` only the last one is read: the user's message of this turn (its text parts, joined by a line
 * break). Keys the app adds through the transport's `body` are kept in `body`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** Most messages a request may carry (a whole conversation is resent on every turn). */
export const maxMessages = 10_000

/** Most parts one message may have. */
export const maxParts = 1_000

/** The longest chat id. */
export const maxIdLength = 256

/** A message part: only `text` parts are read; the others (files, tool parts, …) are accepted and left alone. */
const Part = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.Unknown)
})

/** A UI message as the client sends it. */
const Message = Schema.Struct({
  id: Schema.String,
  role: Schema.Literal("system", "user", "assistant"),
  parts: Schema.Array(Part).pipe(Schema.maxItems(maxParts))
})

/** The request body, as a Schema. */
export const Body = Schema.Struct({
  id: Schema.NonEmptyString.pipe(Schema.maxLength(maxIdLength)),
  messages: Schema.NonEmptyArray(Message).pipe(Schema.maxItems(maxMessages)),
  trigger: Schema.Literal("submit-message", "regenerate-message"),
  messageId: Schema.optional(Schema.String)
}).annotations({ identifier: "ChatRequest" })

/** What a turn needs from a request. */
export interface ChatRequest {
  /** The chat id: the session it speaks to. */
  readonly id: string
  /** `submit-message`: a new turn; `regenerate-message`: the last answer again (the last turn taken back first). */
  readonly trigger: "submit-message" | "regenerate-message"
  /** The user's text of this turn. */
  readonly text: string
  /** The whole body as sent (the app's own keys included). */
  readonly body: Readonly<Record<string, unknown>>
}

/** A request body that is not a chat request: why, in a sentence fit for a 400. */
export class ChatRequestInvalid extends Schema.TaggedError<ChatRequestInvalid>()("ChatRequestInvalid", { detail: Schema.String }) {
  override get message(): string {
    return `not a chat request: ${this.detail}`
  }
}

const decodeBody = Schema.decodeUnknownEither(Body, { errors: "all" })

/** A `ParseError`'s first issues in one bounded line (a value too deep to describe is said so). */
const issues = (error: ParseResult.ParseError): string => {
  try {
    const all = ParseResult.ArrayFormatter.formatErrorSync(error)
    const shown = all.slice(0, 5).map((i) => `${i.path.length === 0 ? "" : `at ${i.path.join(".").slice(0, 120)}: `}${i.message.slice(0, 200)}`)
    return `${shown.join("; ")}${all.length > 5 ? ` (and ${all.length - 5} more)` : ""}`
  } catch {
    return "it does not have the expected shape"
  }
}

/** A parsed JSON body as a chat request, or why it is not one. */
export const fromJson = (body: unknown): Either.Either<ChatRequest, ChatRequestInvalid> => {
  const decoded = decodeBody(body)
  if (Either.isLeft(decoded)) return Either.left(new ChatRequestInvalid({ detail: issues(decoded.left) }))
  const last = decoded.right.messages[decoded.right.messages.length - 1]!
  if (last.role !== "user") return Either.left(new ChatRequestInvalid({ detail: `the last message must be the user's (it is the ${last.role}'s)` }))
  const texts = last.parts.flatMap((part) => part.type === "text" && typeof part.text === "string" ? [part.text] : [])
  if (texts.length === 0) return Either.left(new ChatRequestInvalid({ detail: "the user's message has no text part" }))
  return Either.right({ id: decoded.right.id, trigger: decoded.right.trigger, text: texts.join("\n"), body: body as Record<string, unknown> })
}

/** JSON text as a chat request, or why it is not one. */
export const fromText = (text: string): Either.Either<ChatRequest, ChatRequestInvalid> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Either.left(new ChatRequestInvalid({ detail: "the body is not JSON" }))
  }
  return fromJson(parsed)
}

/** `fromJson` as an effect. */
export const decode = (body: unknown): Effect.Effect<ChatRequest, ChatRequestInvalid> =>
  Effect.suspend(() => fromJson(body))

/**
 * @toolgate/ai-sdk: toolgate for the Vercel AI SDK: argument preparation for its tools, and a session behind
 * `useChat` (the UI message stream and its HTTP endpoint). Every module is a namespace.
 *
 * @since 0.1.0
 */

/** `jsonSchema()` with a `validate` built on `Arguments.prepare`: lenient coercion and model-readable issues. */
export * as ToolgateSchema from "./ToolgateSchema.js"

/** A session's streamed turn as the AI SDK's UI message stream (`useChat`), and as its HTTP response. */
export * as ChatStream from "./ChatStream.js"

/** What `DefaultChatTransport` POSTs, decoded: the chat id, the trigger, the user's text. */
export * as ChatRequest from "./ChatRequest.js"

/** Sessions kept per chat id, released when idle. */
export * as ChatSessions from "./ChatSessions.js"

/** The HTTP endpoint `useChat` talks to: a bounded, decoded POST answered with the streamed turn. */
export * as ChatHandler from "./ChatHandler.js"

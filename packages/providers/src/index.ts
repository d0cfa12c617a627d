/**
 * @toolgate/providers: concrete `AgentProvider`s for `@toolgate/runtime` sessions.
 *
 * @since 0.1.0
 */

/** A scripted model as data: per turn, its rounds (events or a failure); `position`/`select` find a request's round. */
export * as Script from "./Script.js"

/** A provider that plays a `Script` and records every request (tests, the demo). */
export * as Scripted from "./Scripted.js"

/** The relay's turns endpoint on the wire: the request (tool names only) and the SSE body of `StreamEvent`s. */
export * as RelayWire from "./RelayWire.js"

/** The relay's profile over HTTP (`GET /v1/agent/capabilities`): the runtime's `RelayProfile` service, single-flight and cached. */
export * as RelayProfileClient from "./RelayProfileClient.js"

/** The cloud-profile provider: tool names to the relay's turns endpoint, its `StreamEvent`s back; also provides the relay's profile probe. */
export * as CloudRelay from "./CloudRelay.js"

/** Any OpenAI-compatible Chat Completions endpoint (llama.cpp, vLLM, Ollama, OpenAI) with streamed tool calls. */
export * as OpenAiCompatible from "./OpenAiCompatible.js"

/** Google Gemini on its own wire (`streamGenerateContent`, `alt=sse`), and Claude through Cloud Code Assist. */
export * as Gemini from "./Gemini.js"

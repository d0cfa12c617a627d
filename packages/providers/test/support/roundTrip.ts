/**
 * One round trip of an HTTP provider under test: the request every provider test starts from, and every
 * event of the round, bounded by a timeout so a bug fails instead of hanging.
 */
import type { Errors, Provider, StreamEvent } from "@toolgate/runtime"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** A request with no tools and one user message, unless told otherwise. */
export const request = (overrides: Partial<Provider.CompletionRequest> = {}): Provider.CompletionRequest => ({
  messages: [{ _tag: "User", text: "What is the weather in Paris and Tokyo?" }],
  tools: [],
  toolChoice: "auto",
  ...overrides
})

/** Every event of one round trip, bounded by a timeout so a bug fails instead of hanging. */
export const collect = (
  p: Provider.AgentProvider,
  r: Provider.CompletionRequest = request()
): Effect.Effect<ReadonlyArray<StreamEvent.StreamEvent>, Errors.ProviderError | string> =>
  p.stream(r).pipe(
    Stream.runCollect,
    Effect.map(Chunk.toReadonlyArray),
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "the test timed out" })
  )

/**
 * The transport side of `Gemini`: a byte budget on a response body, transport failures in words, and the
 * bounded memory of thought signatures (Gemini 3 refuses a history whose calls lost theirs).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"


/** Bytes pass until `max` have passed; the chunk that would exceed it fails the stream with `onExceed()`. */
export const limitBytes = <E2>(max: number, onExceed: () => E2) =>
<E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | E2, R> =>
  Stream.suspend(() => {
    let seen = 0
    return bytes.pipe(Stream.mapChunksEffect((chunk) => {
      for (const piece of chunk) seen += piece.byteLength
      return seen > max ? Effect.fail(onExceed()) : Effect.succeed(chunk)
    }))
  })


/** Thought signatures by call id, the oldest forgotten past `capacity` (histories only need their recent calls'). */
export const signatures = (capacity: number) => {
  const byId = new Map<string, string>()
  return {
    remember: (id: string, signature: string): void => {
      byId.delete(id)
      byId.set(id, signature)
      if (byId.size > capacity) byId.delete(byId.keys().next().value!)
    },
    get: (id: string): string | undefined => byId.get(id)
  }
}

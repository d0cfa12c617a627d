/**
 * An @effect/ai response stream as toolgate `StreamEvent`s, one chunk at a time: text deltas, streamed
 * arguments (`ToolCallPartial`, named by their `tool-params-start`), complete calls with the arguments
 * as the model sent them, usage and `Done` at the `finish` part. An `error` part fails the round; a stream
 * that ends without `finish` (a body cut short) fails it too, retryably, instead of ending quietly.
 */
import type * as Response from "@effect/ai/Response"
import { JsonValue } from "@toolgate/json-schema"
import type { Errors, StreamEvent } from "@toolgate/runtime"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { errorPart, type Failure } from "./errors.js"

/** Parts nobody reads (reasoning, sources, metadata, block boundaries) and parts mapped. */
type Part = Response.StreamPart<any>

/** The stage: parts in, events out; `failure` builds the round's `ProviderError`s. */
export const events = (failure: Failure) =>
<E>(parts: Stream.Stream<Part, E>): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderError> =>
  Stream.suspend(() => {
    const names = new Map<string, string>()
    let finished = false
    const one = (part: Part, out: Array<StreamEvent.StreamEvent>): Errors.ProviderError | undefined => {
      switch (part.type) {
        case "text-delta":
          if (part.delta !== "") out.push({ _tag: "TextDelta", text: part.delta })
          return undefined
        case "tool-params-start":
          names.set(part.id, part.name)
          return undefined
        case "tool-params-delta": {
          const name = names.get(part.id)
          if (name !== undefined && part.delta !== "") out.push({ _tag: "ToolCallPartial", id: part.id, name, argsDelta: part.delta })
          return undefined
        }
        case "tool-call":
          return part.providerExecuted ? undefined : call(part, out, failure)
        case "finish":
          finished = true
          usage(part.usage, out)
          out.push({ _tag: "Done" })
          return undefined
        case "error":
          return errorPart(failure, part.error)
        default:
          return undefined
      }
    }
    const step = (chunk: Chunk.Chunk<Part>) =>
      Effect.suspend(() => {
        const out: Array<StreamEvent.StreamEvent> = []
        for (const part of chunk) {
          if (finished) break
          const error = one(part, out)
          if (error !== undefined) return Effect.fail(error)
        }
        return Effect.succeed(Chunk.unsafeFromArray(out))
      })
    const end = Stream.suspend(() =>
      finished ? Stream.empty : Stream.fail(failure("the response ended before the model finished (no finish part)", true))
    )
    return Stream.concat(Stream.mapChunksEffect(parts, step), end)
  })

const call = (part: Response.ToolCallPart<string, unknown>, out: Array<StreamEvent.StreamEvent>, failure: Failure) => {
  // Providers parse the model's JSON text with `Tool.unsafeSecureJsonParse`, so this holds JSON; say so if not.
  if (!JsonValue.isJsonValue(part.params)) return failure(`the arguments of call ${part.id} to ${part.name} are not JSON`, false)
  out.push({ _tag: "ToolCallComplete", id: part.id, name: part.name, arguments: part.params })
  return undefined
}

const usage = (usage: Response.Usage, out: Array<StreamEvent.StreamEvent>) => {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return
  out.push({ _tag: "Usage", inputTokens: tokens(usage.inputTokens), outputTokens: tokens(usage.outputTokens) })
}

export const tokens = (n: number | undefined): number => n === undefined || !Number.isFinite(n) ? 0 : Math.max(0, Math.round(n))

/**
 * Server-sent Gemini responses → `StreamEvent`s, a chunk of events at a time. Only candidate 0 is read
 * (requests never ask for more). Per part: a `TextDelta` per text (thought summaries are not the answer and
 * are skipped), a `ToolCallComplete` per `functionCall` (Gemini sends a call whole, arguments as an
 * object), its id Gemini's own or, when it sent none, `<responseId>_<n>`; its thought signature is handed
 * to `remember` so the next request can send it back. Each chunk repeats the usage so far: the last one
 * becomes one `Usage` before `Done`.
 *
 * The stream has no end sentinel: a body that ends after a finish reason ends the round (`Usage`, `Done`);
 * one that ends before it has no `Done` (it was cut off), and the session's event-contract stage reports
 * `missing_done`. A finish reason other than STOP / MAX_TOKENS (SAFETY, RECITATION, MALFORMED_FUNCTION_CALL,
 * …), a blocked prompt, an error object mid-stream or a payload that is not a response fails the stream.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Errors } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import { errorRetryable, errorText, finish } from "./geminiErrors.js"
import { clip } from "./transport.js"
import type { ServerSentEvent } from "./sse.js"
import { decodeEvent, type Part, type Response } from "./geminiWire.js"

/** Who is reading, how its payloads are wrapped, where thought signatures go, how texts are scrubbed. */
export interface Options {
  readonly provider: string
  /** Cloud Code Assist: every payload is `{ response }`. */
  readonly wrapped: boolean
  readonly remember: (callId: string, signature: string) => void
  readonly scrub: (text: string) => string
  /** Ids for calls Gemini sent without one when the response has no `responseId` either. */
  readonly freshId: () => string
}

/** A failure of the round, as the reader found it. */
type Failure = { readonly reason: string; readonly retryable: boolean; readonly cause?: string }

/** A token count as `Usage` takes it: a non-negative safe integer (missing or negative is 0). */
const count = (n: number | null | undefined): number =>
  typeof n === "number" && n > 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0

/** The state of one round: calls seen, whether the candidate finished, the last usage. */
class Round {
  calls = 0
  prefix: string | undefined = undefined
  finished = false
  usage: StreamEvent.Usage | undefined = undefined

  constructor(readonly options: Options) {}

  /** Reads one server-sent event into `out`; a failure stops the round. */
  read(event: ServerSentEvent, out: Array<StreamEvent.StreamEvent>): Failure | undefined {
    // Responses are unnamed events; a named one (a proxy's `ping`) is not for this reader, as in an EventSource.
    if (event.event !== "message") return undefined
    const decoded = decodeEvent(event.data, this.options.wrapped)
    if (Either.isLeft(decoded)) return { reason: "malformed event", retryable: false, cause: clip(decoded.left, 200) }
    return this.response(decoded.right, out)
  }

  /** At the end of the body: `Usage` and `Done` when the candidate finished, else nothing (cut off). */
  end(out: Array<StreamEvent.StreamEvent>): void {
    if (!this.finished) return
    if (this.usage !== undefined) out.push(this.usage)
    out.push({ _tag: "Done" })
  }

  private response(response: Response, out: Array<StreamEvent.StreamEvent>): Failure | undefined {
    if (response.error != null) {
      return { reason: `the server reported an error: ${this.options.scrub(errorText(response.error))}`, retryable: errorRetryable(response.error) }
    }
    this.prefix ??= response.responseId ?? undefined
    const usage = response.usageMetadata
    if (usage != null) {
      this.usage = {
        _tag: "Usage",
        inputTokens: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
        outputTokens: count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount)
      }
    }
    const candidate = (response.candidates ?? []).find((c) => (c.index ?? 0) === 0)
    const blocked = response.promptFeedback?.blockReason
    if (candidate === undefined && blocked != null) {
      const detail = response.promptFeedback?.blockReasonMessage
      return { reason: `the prompt was blocked (${blocked})${detail == null ? "" : `: ${clip(detail, 200)}`}`, retryable: false }
    }
    if (candidate === undefined) return undefined
    for (const part of candidate.content?.parts ?? []) this.part(part, out)
    if (candidate.finishReason == null) return undefined
    const ending = finish(candidate.finishReason, candidate.finishMessage ?? undefined)
    if (ending._tag === "Failed") return { reason: ending.reason, retryable: ending.retryable }
    this.finished = true
    return undefined
  }

  private part(part: Part, out: Array<StreamEvent.StreamEvent>): void {
    const call = part.functionCall
    if (call != null) {
      const n = this.calls++
      const id = call.id != null && call.id !== "" ? call.id : `${this.prefix ??= this.options.freshId()}_${n}`
      if (part.thoughtSignature != null && part.thoughtSignature !== "") this.options.remember(id, part.thoughtSignature)
      out.push(call.args == null ? { _tag: "ToolCallComplete", id, name: call.name } : { _tag: "ToolCallComplete", id, name: call.name, arguments: call.args })
      return
    }
    if (part.thought !== true && part.text != null && part.text !== "") out.push({ _tag: "TextDelta", text: part.text })
  }
}

/** The stage: server-sent events in, the round's `StreamEvent`s out; state is created per run. */
export const events = (options: Options) =>
<E, R>(sse: Stream.Stream<ServerSentEvent, E, R>): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderError, R> =>
  Stream.suspend(() => {
    const round = new Round(options)
    const fail = (f: Failure) =>
      new Errors.ProviderError({ provider: options.provider, reason: f.reason, retryable: f.retryable, ...(f.cause === undefined ? {} : { cause: options.scrub(f.cause) }) })
    const body = sse.pipe(Stream.mapChunksEffect((chunk) => {
      const out: Array<StreamEvent.StreamEvent> = []
      for (const event of chunk) {
        const failure = round.read(event, out)
        if (failure !== undefined) return Effect.fail(fail(failure))
      }
      return Effect.succeed(Chunk.unsafeFromArray(out))
    }))
    const tail = Stream.suspend(() => {
      const out: Array<StreamEvent.StreamEvent> = []
      round.end(out)
      return Stream.fromIterable(out)
    })
    return Stream.concat(body, tail)
  })

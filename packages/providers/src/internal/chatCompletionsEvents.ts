/**
 * Server-sent Chat Completions chunks → `StreamEvent`s, a chunk of events at a time. Only choice 0 is read
 * (requests never ask for more). Per piece: a `TextDelta` per content piece, a `ToolCallPartial` per
 * arguments piece (calls are told apart by their `index`, as pieces of parallel calls interleave); when
 * the choice finishes, a `ToolCallComplete` per call in index order with its arguments as the assembled
 * JSON text. `data: [DONE]` ends the round: the last usage the server reported becomes one `Usage`, then
 * `Done`, and the body is no longer read.
 *
 * A body that ends without `[DONE]` still ends the round when the choice finished (some servers omit the
 * sentinel). One that ends before `finish_reason` has no `Done`: it was cut off, its calls may be
 * incomplete, and the session's event-contract stage reports `missing_done`. A payload that is not a chunk
 * fails the stream (not retryable: the same server answers the same way); an error the server reports
 * mid-stream fails it with the server's message.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Errors } from "@toolgate/runtime"
import type { StreamEvent } from "@toolgate/runtime"
import type { ServerSentEvent } from "./sse.js"
import { type Chunk as WireChunk, decodeChunk, type ToolCallDelta } from "./chatCompletionsChunk.js"
import { errorText, streamErrorRetryable } from "./chatCompletionsErrors.js"
import { clip } from "./transport.js"

/** Who is reading (named in errors) and how server texts are scrubbed before they reach an error. */
export interface Options {
  readonly provider: string
  readonly scrub: (text: string) => string
}

interface Call {
  readonly id: string
  name: string
  readonly pieces: Array<string>
}

/** A failure of the round, as the reader found it. */
type Failure = { readonly reason: string; readonly retryable: boolean; readonly cause?: string }

/** The state of one round: the calls by index, whether the choice finished, the last usage, whether it is done. */
class Round {
  readonly calls = new Map<number, Call>()
  lastIndex: number | undefined = undefined
  finished = false
  done = false
  usage: StreamEvent.Usage | undefined = undefined

  constructor(readonly scrub: (text: string) => string) {}

  /** Reads one server-sent event into `out`; a failure stops the round. */
  read(event: ServerSentEvent, out: Array<StreamEvent.StreamEvent>): Failure | undefined {
    if (this.done) return undefined
    if (event.event === "error") return this.serverError(event.data)
    // Chunks are unnamed events; a named one (a proxy's `ping`) is not for this reader, as in an EventSource.
    if (event.event !== "message") return undefined
    if (event.data.trim() === "[DONE]") return this.end(out, true)
    const decoded = decodeChunk(event.data)
    if (Either.isLeft(decoded)) {
      return { reason: "malformed chunk", retryable: false, cause: clip(decoded.left, 200) }
    }
    return this.chunk(decoded.right, out)
  }

  /** At the end of the body: the round ends if the choice finished, else it stays without `Done`. */
  end(out: Array<StreamEvent.StreamEvent>, sentinel: boolean): undefined {
    if (this.done || (!sentinel && !this.finished)) return undefined
    this.complete(out)
    if (this.usage !== undefined) out.push(this.usage)
    out.push({ _tag: "Done" })
    this.done = true
    return undefined
  }

  private chunk(chunk: WireChunk, out: Array<StreamEvent.StreamEvent>): Failure | undefined {
    if (chunk.error !== undefined && chunk.error !== null) {
      return { reason: `the server reported an error: ${this.message(chunk.error)}`, retryable: streamErrorRetryable(chunk.error) }
    }
    if (chunk.usage !== undefined && chunk.usage !== null) {
      this.usage = { _tag: "Usage", inputTokens: count(chunk.usage.prompt_tokens), outputTokens: count(chunk.usage.completion_tokens) }
    }
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue
      const delta = choice.delta
      const content = `${delta?.content ?? ""}${delta?.refusal ?? ""}`
      const calls = delta?.tool_calls ?? []
      if (this.finished && (content !== "" || calls.length > 0)) {
        return { reason: "malformed chunk", retryable: false, cause: "content or a tool call after the choice finished" }
      }
      if (content !== "") out.push({ _tag: "TextDelta", text: content })
      for (const call of calls) this.piece(call, chunk.id ?? undefined, out)
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
        this.complete(out)
        this.finished = true
      }
    }
    return undefined
  }

  /** One tool-call delta: a new call (by index) or more arguments of a known one. */
  private piece(delta: ToolCallDelta, chunkId: string | undefined, out: Array<StreamEvent.StreamEvent>): void {
    const index = delta.index ?? (delta.id !== undefined && delta.id !== null ? this.calls.size : (this.lastIndex ?? 0))
    this.lastIndex = index
    let call = this.calls.get(index)
    if (call === undefined) {
      // a call sent without an id (or with an empty one) gets one: the chunk's id and the call's index
      call = { id: typeof delta.id === "string" && delta.id !== "" ? delta.id : `${chunkId || "call"}_${index}`, name: "", pieces: [] }
      this.calls.set(index, call)
    }
    const name = delta.function?.name
    if (call.name === "" && name !== undefined && name !== null) call.name = name
    const args = delta.function?.arguments
    if (args !== undefined && args !== null && args !== "") {
      call.pieces.push(args)
      out.push({ _tag: "ToolCallPartial", id: call.id, name: call.name, argsDelta: args })
    }
  }

  /** Every call not yet completed, in index order, with its arguments as JSON text (absent when none came). */
  private complete(out: Array<StreamEvent.StreamEvent>): void {
    if (this.finished) return
    const indices = Array.from(this.calls.keys()).sort((a, b) => a - b)
    for (const index of indices) {
      const call = this.calls.get(index)!
      const text = call.pieces.join("")
      out.push(text === "" ? { _tag: "ToolCallComplete", id: call.id, name: call.name } : { _tag: "ToolCallComplete", id: call.id, name: call.name, arguments: text })
    }
    this.finished = true
  }

  private serverError(data: string): Failure {
    const decoded = decodeChunk(data)
    const error = Either.isRight(decoded) ? decoded.right.error : undefined
    if (error === undefined || error === null) return { reason: `the server reported an error: ${clip(this.scrub(data))}`, retryable: false }
    return { reason: `the server reported an error: ${this.message(error)}`, retryable: streamErrorRetryable(error) }
  }

  private message(error: Parameters<typeof errorText>[0]): string {
    const text = clip(this.scrub(errorText(error)))
    return text === "" ? "(no message)" : text
  }
}

/** A token count as the `Usage` event takes it: a non-negative safe integer (a negative or missing count is 0). */
const count = (n: number | null | undefined): number =>
  typeof n === "number" && n > 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0

/** The stage: server-sent events in, the round's `StreamEvent`s out; state is created per run. */
export const events = (options: Options) =>
<E, R>(sse: Stream.Stream<ServerSentEvent, E, R>): Stream.Stream<StreamEvent.StreamEvent, E | Errors.ProviderError, R> =>
  Stream.suspend(() => {
    const round = new Round(options.scrub)
    const fail = (f: Failure) =>
      new Errors.ProviderError({ provider: options.provider, ...f, ...(f.cause === undefined ? {} : { cause: options.scrub(f.cause) }) })
    const body = sse.pipe(Stream.mapChunksEffect((chunk) => {
      const out: Array<StreamEvent.StreamEvent> = []
      for (const event of chunk) {
        const failure = round.read(event, out)
        if (failure !== undefined) return Effect.fail(fail(failure))
        if (round.done) break
      }
      return Effect.succeed(Chunk.unsafeFromArray(out))
    }))
    const tail = Stream.suspend(() => {
      const out: Array<StreamEvent.StreamEvent> = []
      round.end(out, false)
      return Stream.fromIterable(out)
    })
    return Stream.concat(body, tail).pipe(Stream.takeUntil((event) => event._tag === "Done"))
  })

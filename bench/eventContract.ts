/**
 * The event-contract stage on a round's hot path: 1,000,000 events through `EventContract.check` against
 * the same stream drained unchecked, for an app-driven mix (text deltas, calls streamed as partials then
 * completed, usage, `Done`) and a provider-driven mix (text, interleaved starts and terminals, usage, `Done`).
 *
 * The target (≤ 1.5×) is on `Stream.fromIterable(events)` (4,096-event chunks): a source that hands each
 * event over once, as any real source must (a real one also decodes JSON, so the stage's share is smaller
 * still), with about one call per 100 events. For context, not targets: prebuilt chunks of 4,096 and of 16
 * events (an SSE reader's network reads), where the unchecked side touches no event at all (4,096) or is
 * all per-chunk overhead (16), so the ratio is the stage's bare cost (one channel step per chunk, one read
 * of every event's tag); and a tool-heavy mix (one call per 10 events), where the Map of every id of the
 * run (tens of thousands) costs a hash operation per lifecycle event.
 */
import { Channel, Chunk, Effect, Stream } from "effect"
import { EventContract, type StreamEvent } from "@toolgate/runtime"
import { report, time } from "./harness.js"

const events = 1_000_000

/** A deterministic generator (LCG), so every run benches the same trace. */
const random = (seed: number) => () => {
  seed = (seed * 1664525 + 1013904223) >>> 0
  return seed / 0x1_0000_0000
}

/** App-driven: text, a call (four partials, then complete) at `callRate` per step, usage now and then, one `Done`. */
const appDriven = (callRate: number): Array<StreamEvent.StreamEvent> => {
  const next = random(1)
  const out: Array<StreamEvent.StreamEvent> = []
  let call = 0
  while (out.length < events - 1) {
    const r = next()
    if (r < callRate) {
      const id = `call_${call++}`
      for (let i = 0; i < 4; i++) out.push({ _tag: "ToolCallPartial", id, name: "get_weather", argsDelta: "{\"ci" })
      out.push({ _tag: "ToolCallComplete", id, name: "get_weather", arguments: "{\"city\":\"Oslo\"}" })
    } else if (r < callRate + 0.005) out.push({ _tag: "Usage", inputTokens: 12, outputTokens: 34 })
    else out.push({ _tag: "TextDelta", text: "token " })
  }
  out.length = events - 1
  out.push({ _tag: "Done" })
  return out
}

/** Provider-driven: text, starts and terminals at `callRate` each (up to 8 calls open), usage, one `Done`. */
const providerDriven = (callRate: number): Array<StreamEvent.StreamEvent> => {
  const next = random(2)
  const out: Array<StreamEvent.StreamEvent> = []
  const open: Array<string> = []
  let call = 0
  while (out.length < events - 1 - open.length) {
    const r = next()
    if (r < callRate && open.length < 8) {
      const id = `call_${call++}`
      open.push(id)
      out.push({ _tag: "ToolCallStarted", id, name: "search", arguments: { q: "effect" } })
    } else if (r >= callRate && r < 2 * callRate && open.length > 0) {
      const id = open.splice(Math.floor(next() * open.length), 1)[0]!
      out.push(r < 1.8 * callRate ? { _tag: "ToolCallCompleted", id, result: { hits: 3 } } : { _tag: "ToolCallDenied", id, reason: "no" })
    } else if (r >= 2 * callRate && r < 2 * callRate + 0.005) out.push({ _tag: "Usage", inputTokens: 12, outputTokens: 34 })
    else out.push({ _tag: "TextDelta", text: "token " })
  }
  for (const id of open) out.push({ _tag: "ToolCallCancelled", id })
  out.push({ _tag: "Done" })
  return out
}

/** The events cut into chunks of `size`. */
const chunked = (trace: ReadonlyArray<StreamEvent.StreamEvent>, size: number) => {
  const chunks: Array<Chunk.Chunk<StreamEvent.StreamEvent>> = []
  for (let i = 0; i < trace.length; i += size) chunks.push(Chunk.unsafeFromArray(trace.slice(i, i + size)))
  return chunks
}

/** A stream that emits exactly these chunks, as a provider's source would. */
const source = (chunks: ReadonlyArray<Chunk.Chunk<StreamEvent.StreamEvent>>) =>
  Stream.fromChannel(Channel.suspend(() => {
    let i = 0
    const loop: Channel.Channel<Chunk.Chunk<StreamEvent.StreamEvent>> = Channel.suspend(() =>
      i < chunks.length ? Channel.flatMap(Channel.write(chunks[i++]!), () => loop) : Channel.void
    )
    return loop
  }))

/** Times `stream` drained unchecked and through `check(model)`; the target applies when `max` is given. */
const compare = async (
  title: string,
  model: "appDriven" | "providerDriven",
  trace: ReadonlyArray<StreamEvent.StreamEvent>,
  stream: Stream.Stream<StreamEvent.StreamEvent>,
  max?: number
) => {
  const unchecked = Stream.runDrain(stream)
  const checked = Stream.runDrain(stream.pipe(EventContract.check(model)))
  // A checked run that failed would time the failure path: prove the trace passes before timing it.
  await Effect.runPromise(checked)
  const measured = await time([
    { name: "unchecked", ops: trace.length, run: () => Effect.runPromise(unchecked) },
    { name: "EventContract.check", ops: trace.length, run: () => Effect.runPromise(checked) }
  ])
  const targets = max === undefined ? [] : [{ name: "check / unchecked", candidate: "EventContract.check", baseline: "unchecked", max }]
  return report(title, measured, "unchecked", targets)
}

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async () => {
  // Realistic: about one call per 100 events (a round is mostly text). Tool-heavy: ten times as many, so
  // the id bookkeeping (a Map of every id of the run, tens of thousands here) dominates: context only.
  const mixes = [
    ["app-driven", "appDriven", appDriven(0.002), appDriven(0.02)],
    ["provider-driven", "providerDriven", providerDriven(0.005), providerDriven(0.05)]
  ] as const
  const results = []
  let met = true
  for (const [label, model, realistic, heavy] of mixes) {
    const calls = (trace: ReadonlyArray<StreamEvent.StreamEvent>) =>
      trace.filter((e) => e._tag === "ToolCallComplete" || e._tag === "ToolCallStarted").length
    const title = `EventContract: 1,000,000 ${label} events (${calls(realistic)} calls)`
    const target = await compare(`${title}, Stream.fromIterable`, model, realistic, Stream.fromIterable(realistic), 1.5)
    results.push(...target.results)
    met &&= target.met
    for (const size of [4096, 16]) {
      const bare = await compare(`${title}, prebuilt ${size}-event chunks (context)`, model, realistic, source(chunked(realistic, size)))
      results.push(...bare.results)
    }
    const stress = await compare(
      `EventContract: 1,000,000 tool-heavy ${label} events (${calls(heavy)} calls), Stream.fromIterable (context)`,
      model,
      heavy,
      Stream.fromIterable(heavy)
    )
    results.push(...stress.results)
  }
  return { results, met }
}

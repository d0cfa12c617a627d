/**
 * A streamed turn (`AgentSession.stream`), against the same work without the session in between:
 *
 * - latency: a provider whose stream hands over one text delta at a time (a queue the bench feeds); the time
 *   from the delta being handed over to the reader holding it, read (1) from the provider's stream directly
 *   and (2) through `session.stream` (contract stage, the turn's sink, the bounded buffer), one delta in
 *   flight at a time, interleaved. The target is on what the session adds to the 99th percentile (≤ 200 µs);
 *   medians beside it.
 * - a one-call turn (turn (a) of the turn suite: one `get_weather` call, then text, a `Scripted` provider):
 *   `Stream.runFold(session.stream(prompt), …)` against `session.send(prompt)` on a fresh session each time,
 *   CPU time per turn (as the turn suite measures, wall time beside it).
 *   Target: the streamed turn ≤ 1.2× the sent one. For context, the floor of any API that answers a
 *   `Stream`: `send` wrapped in the smallest stream there is (`Stream.fromEffect`), which pays Effect's fixed
 *   cost of running a stream (a channel executor, its scope) and nothing of the turn's events; and the floor
 *   of any streamed turn: `send`, then its events (as many as the streamed turn hands over) read from the
 *   cheapest stream of them there is (`Stream.fromIterable`, one chunk), the same way. No streamed turn costs
 *   less than the turn plus reading a stream of its events, so when that floor is over 1.2× `send`, so is
 *   every design of `stream`.
 */
import { Scripted } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, type Provider, type StreamEvent, Tool, Toolkit } from "@toolgate/runtime"
import { Chunk, Effect, Either, ManagedRuntime, Queue, Schema, Stream } from "effect"
import { printWall, report, type Result, timeCpu } from "./harness.js"

/** Interleaved rounds (`BENCH_ROUNDS` to change). */
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
/** Deltas timed per candidate and round. */
const deltas = 2_000

const runtime = ManagedRuntime.make(ArgumentValidator.layer)

const weather = Tool.make("get_weather", {
  description: "The forecast for a city",
  parameters: Schema.Struct({ city: Schema.String, days: Schema.Int.pipe(Schema.between(1, 14)) }),
  execute: (args) => Effect.sync(() => `${args.city}: sunny for ${args.days} days`)
})
const toolkit = Either.getOrThrow(Toolkit.make(weather))
const prompt = "What is the weather?"
const answer = "Sunny everywhere."

// ---------------------------------------------------------------------------------------------------------
// Latency: one delta in flight at a time, from `Queue.offer` to the reader.

const delta: StreamEvent.StreamEvent = { _tag: "TextDelta", text: "token " }

/**
 * `count` deltas through `read` (given the provider's stream, it calls `arrived` for each delta it reads):
 * each one offered when the previous one arrived, its latency in ns.
 */
const latencies = <R>(
  count: number,
  read: (source: Stream.Stream<StreamEvent.StreamEvent>, arrived: () => Effect.Effect<void>) => Effect.Effect<void, unknown, R>
) =>
  Effect.gen(function*() {
    const source = yield* Queue.unbounded<StreamEvent.StreamEvent>()
    const acks = yield* Queue.unbounded<number>()
    const reader = yield* Effect.fork(read(Stream.fromQueue(source), () => Queue.offer(acks, performance.now())))
    const samples: Array<number> = new Array(count)
    for (let i = 0; i < count; i++) {
      const t0 = performance.now()
      yield* Queue.offer(source, delta)
      samples[i] = ((yield* Queue.take(acks)) - t0) * 1e6
    }
    yield* Queue.offer(source, { _tag: "Done" })
    yield* Effect.fromFiber(reader)
    yield* Queue.shutdown(source)
    return samples
  })

const direct = (source: Stream.Stream<StreamEvent.StreamEvent>, arrived: () => Effect.Effect<void>) =>
  Stream.runForEach(Stream.takeUntil(source, (e) => e._tag === "Done"), (e) => e._tag === "TextDelta" ? arrived() : Effect.void)

const throughSession = (source: Stream.Stream<StreamEvent.StreamEvent>, arrived: () => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const provider: Provider.AgentProvider = {
      capabilities: Scripted.defaults,
      stream: () => Stream.takeUntil(source, (e) => e._tag === "Done"),
      validateTools: () => Effect.succeed([])
    }
    const session = yield* AgentSession.make({ provider, toolkit, mode: "local" })
    yield* Stream.runForEach(session.stream(prompt), (e) => e._tag === "TextDelta" ? arrived() : Effect.void)
  })

const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

// ---------------------------------------------------------------------------------------------------------
// A one-call turn, sent and streamed.

const oneCall: ReadonlyArray<ReadonlyArray<StreamEvent.StreamEvent>> = [
  [{ _tag: "ToolCallComplete", id: "call_0", name: "get_weather", arguments: { city: "Oslo", days: 3 } }, { _tag: "Done" }],
  [{ _tag: "TextDelta", text: answer }, { _tag: "Usage", inputTokens: 10, outputTokens: 5 }, { _tag: "Done" }]
]
const scripted = { turns: [oneCall] }

const sessionOf = Effect.flatMap(Scripted.make(scripted), (provider) => AgentSession.make({ provider, toolkit, mode: "local" }))
const sent = Effect.flatMap(sessionOf, (s) => Effect.map(s.send(prompt), (turn) => turn.text))
const streamed = Effect.flatMap(sessionOf, (s) =>
  Stream.runFold(s.stream(prompt), "", (text, e) => e._tag === "TurnFinished" ? e.turn.text : text))
const sentInAStream = Effect.flatMap(sessionOf, (s) =>
  Stream.runFold(Stream.fromEffect(s.send(prompt)), "", (_, turn) => turn.text))
/** `send`, then `events` (the streamed turn's, its own `TurnFinished` last) read from `Stream.fromIterable` as `streamed` reads them. */
const sentThenRead = (events: ReadonlyArray<AgentSession.TurnEvent>) =>
  Effect.flatMap(sessionOf, (s) =>
    Effect.flatMap(s.send(prompt), (turn) =>
      Stream.runFold(Stream.fromIterable(events), "", (text, e) => e._tag === "TurnFinished" ? turn.text : text)))

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async (): Promise<{ readonly results: ReadonlyArray<Result>; readonly met: boolean }> => {
  console.log(`\nstream: AgentSession.stream against reading the provider directly and against send (${rounds} interleaved rounds)`)
  const results: Array<Result> = []
  let met = true

  const events = Chunk.toReadonlyArray(await runtime.runPromise(Effect.flatMap(sessionOf, (s) => Stream.runCollect(s.stream(prompt)))))
  const floor = sentThenRead(events)
  for (const check of [sent, streamed, sentInAStream, floor]) {
    const text = await runtime.runPromise(check)
    if (text !== answer) throw new Error(`the turn answered ${JSON.stringify(text)}, not ${JSON.stringify(answer)}`)
  }

  const pooled = { direct: [] as Array<number>, session: [] as Array<number> }
  await runtime.runPromise(latencies(200, direct)) // warm
  await runtime.runPromise(latencies(200, throughSession))
  for (let round = 0; round < rounds; round++) {
    pooled.direct.push(...await runtime.runPromise(latencies(deltas, direct)))
    pooled.session.push(...await runtime.runPromise(latencies(deltas, throughSession)))
  }
  const figures = new Map<string, number>([
    ["provider stream read directly, median", percentile(pooled.direct, 0.5)],
    ["provider stream read directly, p99", percentile(pooled.direct, 0.99)],
    ["through session.stream, median", percentile(pooled.session, 0.5)],
    ["through session.stream, p99", percentile(pooled.session, 0.99)]
  ])
  figures.set("added by the session, median", figures.get("through session.stream, median")! - figures.get("provider stream read directly, median")!)
  figures.set("added by the session, p99", figures.get("through session.stream, p99")! - figures.get("provider stream read directly, p99")!)
  const latency = report(`stream: latency from a provider's delta to the reader (${pooled.direct.length} deltas each)`, figures, "provider stream read directly, p99", [
    { name: "added latency, p99", candidate: "added by the session, p99", baseline: "provider stream read directly, p99", maxNs: 200_000 }
  ])
  results.push(...latency.results.map((r) => ({ ...r, name: `${r.name} (ns)` })))
  met &&= latency.met

  // CPU time per turn (wall time printed beside it): the machine is shared, and a wall-clock round of a turn
  // that hands events between two fibers swings with the other processes' load far more than its CPU time
  const candidates = [
    { name: "send, one-call turn", ops: 1, run: () => runtime.runPromise(sent) },
    { name: "stream, one-call turn", ops: 1, run: () => runtime.runPromise(streamed) },
    { name: "send inside Stream.fromEffect (context)", ops: 1, run: () => runtime.runPromise(sentInAStream) },
    { name: `floor: send + ${events.length} events read`, ops: 1, run: () => runtime.runPromise(floor) }
  ]
  for (const c of candidates) { // warm: each compiled before any is timed
    const end = performance.now() + 300
    while (performance.now() < end) await c.run()
  }
  const turns = await timeCpu(candidates, rounds)
  const turn = report("stream: a one-call turn, streamed and sent, CPU time", turns.cpu, "send, one-call turn", [
    { name: "streamed turn / sent turn", candidate: "stream, one-call turn", baseline: "send, one-call turn", max: 1.2 }
  ])
  printWall(turns.wall, "send, one-call turn")
  results.push(...turn.results.map((r) => ({ ...r, name: `${r.name} (CPU)` })))
  met &&= turn.met
  await runtime.dispose()
  return { results, met }
}

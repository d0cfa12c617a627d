/**
 * A whole turn, side by side with the peers, in one run: toolgate (`Scripted` provider,
 * `AgentSession.make` + `send`, Effect Schema tools), the Vercel AI SDK (`generateText` with
 * `MockLanguageModelV4` from `ai/test` and zod input schemas) and @effect/ai (`Chat.empty` + `generateText`
 * until the model stops calling tools, a mock `LanguageModel`, a `Toolkit` with handlers). Every peer builds
 * its tools once and starts a fresh conversation per turn (a new mock model, a new `Chat`, a new session),
 * and every turn is the same rounds of the same scripted model:
 *
 * - (a) one `get_weather` call, then text;
 * - (b) eight `get_weather` calls in one round (run concurrently by all three), then text;
 * - (c) as (a) with 49 more tools in the toolkit (the model still calls `get_weather`);
 * - (d) one invalid call (`days: 30`, above the maximum of 14), repaired once by the model, then text.
 *   toolgate: the `invalid_args` envelope goes back and the turn spends its one repair; Vercel: the call is
 *   marked invalid and its tool-error output goes back in the same loop (no `repairToolCall` hook: the
 *   model repairs it); @effect/ai: `generateText` fails with `MalformedOutput` (the parameters do not
 *   decode) and the app sends the error back as a user message, the closest it offers.
 *
 * Before timing, each peer plays each turn once and the suite fails loudly unless the tool really ran the
 * expected number of times with the decoded arguments and the final text is the model's. Candidates are
 * timed round-robin (`timeCpu`: CPU time per turn, wall time beside it), ratios against the Vercel AI SDK.
 * `AgentSession.make` alone (1 and 50 tools, toolkit prebuilt) is timed before the turns, on a heap they
 * have not used; the heap held per idle session (10,000 sessions) is measured after them.
 */
import { Chat, LanguageModel, Tool as AiTool, Toolkit as AiToolkit } from "@effect/ai"
import { Scripted } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, type Provider, type StreamEvent, Tool, Toolkit } from "@toolgate/runtime"
import { generateText, isStepCount, tool as aiTool, type ToolSet } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect, Either, ManagedRuntime, Schema, Stream } from "effect"
import { getHeapStatistics } from "node:v8"
import { z } from "zod"
import { gcOf, printWall, report, type Result, timeCpu } from "./harness.js"

/** Interleaved rounds (`BENCH_ROUNDS` to change): many short ones, so the median shrugs off bursts of the other agents' load. */
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 9)

// ---------------------------------------------------------------------------------------------------------
// The turns, as data every peer's mock model plays.

interface Call { readonly id: string; readonly name: string; readonly args: { readonly city: string; readonly days: number } }
/** One round trip of the model: calls, or the final text. */
type Round = { readonly calls: ReadonlyArray<Call> } | { readonly text: string }
interface TurnSpec {
  readonly key: "a" | "b" | "c" | "d"
  readonly title: string
  readonly tools: 1 | 50
  readonly rounds: ReadonlyArray<Round>
}

const cities = ["Oslo", "Bergen", "Paris", "Lima", "Kyiv", "Rome", "Quito", "Hanoi"]
const prompt = "What is the weather?"
const answer = "Sunny everywhere."
const call = (i: number, days = 3): Call => ({ id: `call_${i}`, name: "get_weather", args: { city: cities[i % 8]!, days } })

const turns: ReadonlyArray<TurnSpec> = [
  { key: "a", title: "(a) one tool call, then text", tools: 1, rounds: [{ calls: [call(0)] }, { text: answer }] },
  {
    key: "b",
    title: "(b) eight parallel calls, then text",
    tools: 1,
    rounds: [{ calls: cities.map((_, i) => call(i)) }, { text: answer }]
  },
  { key: "c", title: "(c) a 50-tool toolkit, one call, then text", tools: 50, rounds: [{ calls: [call(0)] }, { text: answer }] },
  {
    key: "d",
    title: "(d) one invalid call repaired once, then text",
    tools: 1,
    rounds: [{ calls: [call(0, 30)] }, { calls: [{ ...call(0), id: "call_r" }] }, { text: answer }]
  }
]

/** What the executors and the mock models saw: every peer records here (checked before timing). */
const seen = { recording: false, runs: [] as Array<unknown>, requests: 0 }
const weather = (args: { readonly city: string; readonly days: number }) => {
  if (seen.recording) seen.runs.push(args)
  return `${args.city}: sunny for ${args.days} days`
}
/** The 49 other tools of the 50-tool toolkit: never called, but listed, described and compiled like any. */
const fillers = Array.from({ length: 49 }, (_, i) => `lookup_${String(i + 1).padStart(2, "0")}`)

// ---------------------------------------------------------------------------------------------------------
// toolgate: a `Scripted` provider and a session per turn, tools built once.

const tgWeather = Tool.make("get_weather", {
  description: "The forecast for a city",
  parameters: Schema.Struct({ city: Schema.String, days: Schema.Int.pipe(Schema.between(1, 14)) }),
  execute: (args) => Effect.sync(() => weather(args))
})
const tgFiller = (name: string) =>
  Tool.make(name, {
    description: `Looks up ${name}`,
    parameters: Schema.Struct({ query: Schema.String, limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))) }),
    execute: ({ query }) => Effect.succeed(query)
  })
const tgToolkits = {
  1: Either.getOrThrow(Toolkit.make(tgWeather)),
  50: Either.getOrThrow(Toolkit.make(tgWeather, ...fillers.map(tgFiller)))
}

const tgEvents = (round: Round): Array<StreamEvent.StreamEvent> =>
  "text" in round
    ? [{ _tag: "TextDelta", text: round.text }, { _tag: "Usage", inputTokens: 10, outputTokens: 5 }, { _tag: "Done" }]
    : [...round.calls.map((c) => ({ _tag: "ToolCallComplete" as const, id: c.id, name: c.name, arguments: c.args })), { _tag: "Done" }]

/** The turn; with `count`, the provider's requests are added to `seen.requests` (only while verifying). */
const toolgateTurn = (spec: TurnSpec, count = false) => {
  const script = { turns: [spec.rounds.map(tgEvents)] }
  const toolkit = tgToolkits[spec.tools]
  return Effect.gen(function*() {
    const provider = yield* Scripted.make(script)
    const session = yield* AgentSession.make({ provider, toolkit, mode: "local" })
    const turn = yield* session.send(prompt)
    if (count) seen.requests += (yield* provider.requests).length
    return turn.text
  })
}

/**
 * For context on turn (a): the same session over a provider written inline whose rounds are real streams
 * (`Stream.fromIterable`, as a streaming API's are) instead of rounds answered whole
 * (`AgentProvider.complete`, as `Scripted`'s and the peers' mock models are), so the figure shows what running
 * a stream costs per round.
 */
const toolgateInlineTurn = (spec: TurnSpec) => {
  const events = spec.rounds.map(tgEvents)
  const toolkit = tgToolkits[spec.tools]
  const provider: Provider.AgentProvider = {
    capabilities: Scripted.defaults,
    stream: (request) => {
      seen.requests++
      let round = 0
      for (const m of request.messages) round = m._tag === "User" ? 0 : m._tag === "Assistant" ? round + 1 : round
      return Stream.fromIterable(events[round] ?? [])
    },
    validateTools: () => Effect.succeed([])
  }
  return Effect.gen(function*() {
    const session = yield* AgentSession.make({ provider, toolkit, mode: "local" })
    const turn = yield* session.send(prompt)
    return turn.text
  })
}

// ---------------------------------------------------------------------------------------------------------
// Vercel AI SDK: `generateText` over a new `MockLanguageModelV4` per turn, zod tools built once.

const vcTools = (n: 1 | 50): ToolSet => {
  const tools: ToolSet = {
    get_weather: aiTool({
      description: "The forecast for a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(14) }),
      execute: async (args) => weather(args)
    })
  }
  if (n === 50) {
    for (const name of fillers) {
      tools[name] = aiTool({
        description: `Looks up ${name}`,
        inputSchema: z.object({ query: z.string(), limit: z.number().int().min(1).max(100).optional() }),
        execute: async ({ query }) => query
      })
    }
  }
  return tools
}
const vcToolsets = { 1: vcTools(1), 50: vcTools(50) }

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}
/** The round a prompt asks for: the assistant messages after the last user message. */
const vcRound = (messages: ReadonlyArray<{ readonly role: string }>): number => {
  let round = 0
  for (const m of messages) round = m.role === "user" ? 0 : m.role === "assistant" ? round + 1 : round
  return round
}

const vercelTurn = (spec: TurnSpec) => {
  const tools = vcToolsets[spec.tools]
  const responses = spec.rounds.map((round) => ({
    content: "text" in round
      ? [{ type: "text" as const, text: round.text }]
      : round.calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
    finishReason: { unified: "text" in round ? "stop" as const : "tool-calls" as const, raw: undefined },
    usage,
    warnings: []
  }))
  return async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        seen.requests++
        return responses[vcRound(options.prompt)]!
      }
    })
    const result = await generateText({ model, tools, prompt, stopWhen: isStepCount(10) })
    return result.text
  }
}

// ---------------------------------------------------------------------------------------------------------
// @effect/ai: `Chat.empty` per turn, `generateText` with the toolkit until no call is left; a mock
// `LanguageModel` built once; the toolkit's handlers resolved once.

const EaWeather = AiTool.make("get_weather", {
  description: "The forecast for a city",
  parameters: { city: Schema.String, days: Schema.Int.pipe(Schema.between(1, 14)) },
  success: Schema.String
})
const eaFiller = (name: string) =>
  AiTool.make(name, {
    description: `Looks up ${name}`,
    parameters: { query: Schema.String, limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))) },
    success: Schema.String
  })
/** The toolkit with its handlers resolved (the 50-tool one is typed loosely: its tools are made in a loop). */
const eaToolkit = (n: 1 | 50): AiToolkit.WithHandler<Record<string, AiTool.Any>> => {
  const kit = AiToolkit.make(EaWeather, ...(n === 50 ? fillers.map(eaFiller) : [])) as unknown as AiToolkit.Toolkit<Record<string, AiTool.Any>>
  const handlers: Record<string, (params: never) => Effect.Effect<string>> = {
    get_weather: (args: { readonly city: string; readonly days: number }) => Effect.sync(() => weather(args))
  }
  if (n === 50) for (const name of fillers) handlers[name] = ({ query }: { readonly query: string }) => Effect.succeed(query)
  return Effect.runSync(Effect.flatMap(kit.toContext(handlers as never), (context) => Effect.provide(kit, context)))
}
const eaToolkits = { 1: eaToolkit(1), 50: eaToolkit(50) }

/** The round a prompt asks for: every message after the first user message (tool results aside). */
const eaRound = (messages: ReadonlyArray<{ readonly role: string }>): number => {
  let round = -1
  for (const m of messages) if (m.role === "user" || m.role === "assistant") round++
  return round
}
let eaRounds: ReadonlyArray<Round> = []
const eaModel = Effect.runSync(LanguageModel.make({
  generateText: (options) =>
    Effect.sync(() => {
      seen.requests++
      const round = eaRounds[eaRound(options.prompt.content)]!
      const finish = { type: "finish" as const, reason: "text" in round ? "stop" as const : "tool-calls" as const, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }
      return "text" in round
        ? [{ type: "text" as const, text: round.text }, finish]
        : [...round.calls.map((c) => ({ type: "tool-call" as const, id: c.id, name: c.name, params: c.args })), finish]
    }),
  streamText: () => Stream.die("not used")
}))

const effectAiTurn = (spec: TurnSpec) => {
  const toolkit = eaToolkits[spec.tools]
  const options = { toolkit, concurrency: "unbounded" as const }
  return Effect.gen(function*() {
    eaRounds = spec.rounds
    const chat = yield* Chat.empty
    let response = yield* chat.generateText({ prompt, ...options }).pipe(
      // Parameters that do not decode fail the call: the closest to a repair is telling the model.
      // The failed call left history as it was (the user's message included), so both go again.
      Effect.catchTag("MalformedOutput", (e) =>
        chat.generateText({
          prompt: [{ role: "user", content: prompt }, { role: "user", content: `Invalid tool call: ${e.description}` }],
          ...options
        }))
    )
    while (response.toolCalls.length > 0) response = yield* chat.generateText({ prompt: [], ...options })
    return response.text
  }).pipe(Effect.provideService(LanguageModel.LanguageModel, eaModel))
}

// ---------------------------------------------------------------------------------------------------------

const runtime = ManagedRuntime.make(ArgumentValidator.layer)

/**
 * Each peer plays `spec` once: every round must have been asked for, `get_weather` must have run exactly
 * for the valid calls (in any order), with their arguments decoded (`days` a number), and the final text
 * must be the model's.
 */
const verify = async (peer: string, spec: TurnSpec, play: () => Promise<string>) => {
  seen.runs = []
  seen.requests = 0
  seen.recording = true
  const text = await play().finally(() => { seen.recording = false })
  const sorted = (xs: ReadonlyArray<unknown>) => xs.map((x) => JSON.stringify(x)).sort().join(" ")
  const valid = spec.rounds.flatMap((r) => "calls" in r ? r.calls : []).filter((c) => c.args.days <= 14).map((c) => c.args)
  const ok = text === answer && seen.requests === spec.rounds.length && sorted(seen.runs) === sorted(valid) &&
    seen.runs.every((args) => typeof (args as { days: unknown }).days === "number")
  if (!ok) {
    throw new Error(
      `turn ${spec.key}, ${peer}: expected ${spec.rounds.length} model requests, get_weather run with ${sorted(valid)} and the text ` +
        `${JSON.stringify(answer)}; got ${seen.requests} request(s), runs with ${sorted(seen.runs)}, text ${JSON.stringify(text)}`
    )
  }
}

/** Runs each candidate for `ms` (twice, interleaved): mitata skips its warm-up for anything slower than 0.5 ms. */
const warm = async (runs: ReadonlyArray<() => unknown>, ms = 400) => {
  for (let pass = 0; pass < 2; pass++) {
    for (const run of runs) {
      const end = performance.now() + ms / 2
      while (performance.now() < end) await run()
    }
  }
}

/** Heap held per live object made by `make`, over `count` of them kept reachable. */
const heapPer = (count: number, make: () => unknown): { readonly bytes: number; readonly how: string } => {
  const { gc, how } = gcOf()
  const collect = () => { if (gc) for (let i = 0; i < 3; i++) gc() }
  make() // warm: first-use caches are not per session
  collect()
  const before = getHeapStatistics().used_heap_size
  const kept: Array<unknown> = new Array(count)
  for (let i = 0; i < count; i++) kept[i] = make()
  collect()
  const after = getHeapStatistics().used_heap_size
  if (kept.length !== count) throw new Error("unreachable")
  return { bytes: (after - before) / count, how }
}

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async (): Promise<{ readonly results: ReadonlyArray<Result>; readonly met: boolean }> => {
  await runtime.runPromise(Effect.void)
  console.log(`\nturn: toolgate vs the Vercel AI SDK vs @effect/ai on the same scripted turns (${rounds} interleaved rounds)`)
  console.log("  toolgate   Scripted provider, AgentSession.make + send, Effect Schema tools (lenient validation, envelopes, events, undo log)")
  console.log("  vercel     generateText(stopWhen: isStepCount(10)) over a new MockLanguageModelV4 (ai/test), zod input schemas")
  console.log("  effect-ai  Chat.empty + Chat.generateText (toolkit with handlers, concurrency unbounded) until no tool call is left")
  console.log("  toolgate a, streamed rounds (context): the same session over an inline provider whose rounds are streams")
  console.log("  (d) repair: toolgate sends the invalid_args envelope back (one repair spent); vercel marks the call invalid and")
  console.log("      sends its tool-error back in the same loop; effect-ai fails generateText with MalformedOutput, and the app")
  console.log("      sends the error back as a user message and asks again (its closest equivalent)")
  const results: Array<Result> = []
  let met = true
  // AgentSession.make alone, the toolkit built beforehand (what a server pays per conversation). Timed
  // first, on a heap no turn has used yet: after the turn rounds (the peers' included) the same makes, and
  // Chat.empty's, read 1.3-4x slower on the heap those rounds left, the effect a process per suite removes.
  const provider = await runtime.runPromise(Scripted.make({ turns: [] }))
  const make1 = AgentSession.make({ provider, toolkit: tgToolkits[1], mode: "local" })
  const make50 = AgentSession.make({ provider, toolkit: tgToolkits[50], mode: "local" })
  const chat = Chat.empty
  const times = (n: number, f: () => unknown) => () => {
    for (let i = 0; i < n; i++) f()
  }
  const makes = [
    { name: "AgentSession.make, 1 tool", ops: 16, run: times(16, () => runtime.runSync(make1)) },
    { name: "AgentSession.make, 50 tools", ops: 16, run: times(16, () => runtime.runSync(make50)) },
    { name: "@effect/ai Chat.empty (context)", ops: 16, run: times(16, () => Effect.runSync(chat)) }
  ]
  await warm(makes.map((m) => m.run))
  const made = await timeCpu(makes, rounds)
  const makeOutcome = report("turn: AgentSession.make alone (toolkit prebuilt), CPU time", made.cpu, "AgentSession.make, 1 tool", [
    { name: "AgentSession.make with 50 tools", candidate: "AgentSession.make, 50 tools", baseline: "AgentSession.make, 1 tool", maxNs: 50_000 }
  ])
  printWall(made.wall, "AgentSession.make, 1 tool")
  results.push(...makeOutcome.results.map((r) => ({ ...r, suite: "turn", name: `${r.name} (CPU)` })))
  met &&= makeOutcome.met

  for (const spec of turns) {
    const tg = toolgateTurn(spec)
    const vc = vercelTurn(spec)
    const ea = effectAiTurn(spec)
    const peers = [
      { name: `toolgate ${spec.key}`, run: () => runtime.runPromise(tg) },
      { name: `vercel ${spec.key}`, run: vc },
      { name: `effect-ai ${spec.key}`, run: () => runtime.runPromise(ea) }
    ]
    if (spec.key === "a") {
      const inline = toolgateInlineTurn(spec)
      peers.push({ name: "toolgate a, streamed rounds (context)", run: () => runtime.runPromise(inline) })
    }
    const counted = toolgateTurn(spec, true)
    await verify(`toolgate ${spec.key}`, spec, () => runtime.runPromise(counted))
    for (const p of peers.slice(1)) await verify(p.name, spec, p.run)
    await warm(peers.map((p) => p.run))
    const measured = await timeCpu(peers.map((p) => ({ name: p.name, ops: 1, run: p.run })), rounds)
    const targets = spec.key === "a"
      ? [
        { name: "turn (a): toolgate / vercel", candidate: "toolgate a", baseline: "vercel a", max: 1.5 },
        { name: "turn (a): toolgate / effect-ai", candidate: "toolgate a", baseline: "effect-ai a", max: 1 }
      ]
      : []
    const outcome = report(`turn ${spec.title}: CPU time per turn`, measured.cpu, `vercel ${spec.key}`, targets)
    printWall(measured.wall, `vercel ${spec.key}`)
    results.push(...outcome.results.map((r) => ({ ...r, suite: "turn", name: `${r.name} (CPU)` })))
    met &&= outcome.met
  }

  // Heap per idle session: 10,000 sessions kept reachable.
  const sessions = 10_000
  const heap = heapPer(sessions, () => runtime.runSync(make1))
  const chatHeap = heapPer(sessions, () => Effect.runSync(chat))
  const heapOk = heap.bytes <= 16 * 1024
  met &&= heapOk
  console.log(`\nturn: heap per idle session, ${sessions.toLocaleString("en")} sessions kept (${heap.how})`)
  console.log(`  AgentSession (1 tool)            ${(heap.bytes / 1024).toFixed(1).padStart(8)} KB`)
  console.log(`  @effect/ai Chat.empty (context)  ${(chatHeap.bytes / 1024).toFixed(1).padStart(8)} KB`)
  console.log(`  ${heapOk ? "✔" : "✘"} heap per idle session: ${(heap.bytes / 1024).toFixed(1)} KB (target ≤ 16 KB)`)
  results.push(
    { suite: "turn", name: "heap per idle AgentSession (bytes)", nsPerOp: heap.bytes, baseline: "16 KB target", ratio: heap.bytes / (16 * 1024) },
    { suite: "turn", name: "heap per idle @effect/ai Chat (bytes)", nsPerOp: chatHeap.bytes, baseline: "16 KB target", ratio: chatHeap.bytes / (16 * 1024) }
  )
  await runtime.dispose()
  return { results, met }
}

/**
 * The bridge is transparent to a session: the providers package's random session plans (valid, near-miss,
 * invalid and unknown calls, refs, strict nulls, provider failures, random limits and options) played once
 * through its `Scripted` provider and once through `AiProvider` over an @effect/ai `LanguageModel` answering
 * the same rounds as @effect/ai stream parts, give the same outcome for every send and the same history.
 * Left out: rounds that break the event contract (the bridge ends a round only at @effect/ai's `finish`,
 * so they cannot be said in parts), arguments that are not JSON (@effect/ai's providers refuse those) and
 * calls of unknown tools: @effect/ai decodes every call against the toolkit, so a name outside it fails the
 * round (`MalformedOutput`, see the last test) where toolgate's own providers answer `tool_not_found`.
 */
import { LanguageModel, type Response } from "@effect/ai"
import { assert, describe, it } from "@effect/vitest"
import { AgentSession, ArgumentValidator, type Message, type Provider, type StreamEvent } from "@toolgate/runtime"
import { Effect, Either, Stream } from "effect"
import * as Script from "@toolgate/providers/Script"
import * as Scripted from "@toolgate/providers/Scripted"
import { session as sessionPlan, type SessionPlan } from "@toolgate/test-support/sessionArbitraries"
import { simulate } from "@toolgate/test-support/sessionModel"
import { replay } from "@toolgate/test-support/sessionRun"
import { recorded } from "@toolgate/test-support/sessionTools"
import { AiProvider } from "../src/index.js"

/** A call's arguments as an @effect/ai provider hands them over: parsed JSON text, `{}` for none. */
const params = (args: unknown): unknown => args === undefined ? {} : typeof args === "string" ? JSON.parse(args) : args

const isJsonText = (u: unknown): boolean => {
  if (typeof u !== "string") return true
  try {
    JSON.parse(u)
    return true
  } catch {
    return false
  }
}

/** Whether every round of the plan can be said in @effect/ai parts. */
/**
 * How deep arguments nest (JSON text by its brackets, strings not told apart: a bound for the filter below;
 * parsed values walked without recursion). The plans carry 10,000-level argument values; neither
 * @effect/ai's prompt nor chai's deep equality walks that deep, and the session refuses them anyway
 * (`maxArgumentDepth`), as the providers' own property checks.
 */
const nesting = (args: unknown): number => {
  let deepest = 0
  if (typeof args === "string") {
    let depth = 0
    for (const c of args) {
      if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth)
      else if (c === "]" || c === "}") depth--
    }
    return deepest
  }
  const stack: Array<readonly [unknown, number]> = [[args, 0]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    deepest = Math.max(deepest, depth)
    if (typeof value === "object" && value !== null) for (const member of Object.values(value)) stack.push([member, depth + 1])
  }
  return deepest
}

const expressible = (plan: SessionPlan): boolean =>
  plan.turns.every((rounds) => rounds.every((r) => r._tag === "Fail" || r.violation === undefined)) &&
  plan.turns.every((rounds) => rounds.every((r) => r._tag !== "Calls" || r.calls.every((c) => c._tag !== "Unknown"))) &&
  Either.match(Script.decode(simulate(plan).script), {
    onLeft: () => false,
    onRight: (script) =>
      script.turns.every((rounds) =>
        rounds.every((round) => Script.isFailure(round) || round.every((e) => e._tag !== "ToolCallComplete" || (isJsonText(e.arguments) && nesting(e.arguments) <= 1_000)))
      )
  })

/** One scripted round as the parts an @effect/ai provider would stream. */
const parts = (round: ReadonlyArray<StreamEvent.StreamEvent>): Array<Response.StreamPartEncoded> => {
  const started = new Set<string>()
  let usage = { inputTokens: undefined as number | undefined, outputTokens: undefined as number | undefined, totalTokens: undefined as number | undefined }
  return round.flatMap((e): Array<Response.StreamPartEncoded> => {
    switch (e._tag) {
      case "TextDelta":
        return [{ type: "text-delta", id: "t", delta: e.text }]
      case "ToolCallPartial": {
        const start: Array<Response.StreamPartEncoded> = started.has(e.id) ? [] : [{ type: "tool-params-start", id: e.id, name: e.name }]
        started.add(e.id)
        return [...start, { type: "tool-params-delta", id: e.id, delta: e.argsDelta }]
      }
      case "ToolCallComplete":
        return [{ type: "tool-call", id: e.id, name: e.name, params: params(e.arguments) }]
      case "Usage":
        usage = { inputTokens: e.inputTokens, outputTokens: e.outputTokens, totalTokens: e.inputTokens + e.outputTokens }
        return []
      case "Done":
        return [{ type: "finish", reason: "stop", usage }]
      default:
        return []
    }
  })
}

/** `AiProvider` over a `LanguageModel` that answers each request with the script's round for its history. */
const bridged = (script: Script.Script, capabilities: Provider.ProviderCapabilities): Provider.AgentProvider => {
  const stream = (request: Provider.CompletionRequest) =>
    Stream.unwrap(Effect.gen(function*() {
      const round = Script.select(script, request.messages)
      const answer: Array<Response.StreamPartEncoded> = round === undefined
        ? [{ type: "error", error: { type: "invalid_request_error", message: "no round" } }]
        : Script.isFailure(round)
        ? [{ type: "error", error: { type: round.fail.retryable ? "overloaded_error" : "invalid_request_error", message: round.fail.reason } }]
        : parts(round)
      const model = yield* LanguageModel.make({ streamText: () => Stream.fromIterable(answer), generateText: () => Effect.succeed([]) })
      return AiProvider.fromLanguageModel(model, { capabilities }).stream(request)
    }))
  return { capabilities, stream, validateTools: () => Effect.succeed([]) }
}

/** History with each call's arguments as the provider handed them over (the bridge records parsed values). */
const normalized = (history: ReadonlyArray<unknown>) =>
  (history as ReadonlyArray<Message.Message>).map((m) =>
    m._tag === "Assistant" ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, arguments: params(c.arguments) })) } : m
  )

/** `replay` (the providers' support) over the bridge: each send's outcome, and the history. */
const replayBridged = (plan: SessionPlan) =>
  Effect.gen(function*() {
    const script = yield* Effect.orDie(Script.decode(simulate(plan).script))
    const provider = bridged(script, { ...Scripted.defaults, schemaDialect: plan.dialect, supportsToolChoice: plan.supportsToolChoice })
    const session = yield* AgentSession.make({
      provider,
      toolkit: recorded().toolkit,
      mode: "local",
      limits: { maxToolArgumentRepairs: plan.repairs, maxProviderRoundTrips: plan.roundTrips },
      chainScope: plan.scope
    }).pipe(Effect.orDie, Effect.provide(ArgumentValidator.layerWith({ toolChaining: plan.chaining })))
    const outcomes = yield* Effect.forEach(plan.turns, (_, i) =>
      session.send(`send ${i + 1}`, { toolChoice: plan.choices[i] ?? "auto" }).pipe(
        Effect.match({ onFailure: (e) => e._tag, onSuccess: (turn) => `${turn.turn}: ${turn.text}` }),
        Effect.timeout("10 seconds"),
        Effect.orDie
      ))
    return { outcomes, history: yield* session.history }
  })

describe("AiProvider in a session: transparent", () => {
  it.live.prop(
    "every send's outcome and the history are those of the Scripted provider playing the same rounds",
    [sessionPlan.filter(expressible)],
    ([plan]) =>
      Effect.gen(function*() {
        const [direct, viaBridge] = [yield* replay(plan, false), yield* replayBridged(plan)]
        assert.deepStrictEqual(viaBridge.outcomes, direct.outcomes)
        assert.deepStrictEqual(normalized(viaBridge.history), normalized(direct.history))
      }),
    { timeout: 120_000, fastCheck: { numRuns: 40 } }
  )

  it.effect("a call of a tool the request did not carry fails the round: @effect/ai decodes calls against the toolkit", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        streamText: () =>
          Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "tool-call", id: "c1", name: "launch_rockets", params: {} },
            { type: "finish", reason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
          ),
        generateText: () => Effect.succeed([])
      })
      const provider = AiProvider.fromLanguageModel(model)
      const request: Provider.CompletionRequest = {
        messages: [{ _tag: "User", text: "go" }],
        tools: [{ name: "set_volume", description: "", parameters: { type: "object" }, strict: false }],
        toolChoice: "auto"
      }
      const error = yield* Effect.flip(Stream.runDrain(provider.stream(request)))
      assert.isFalse(error.retryable)
      assert.include(error.message, "could not be read")
    }))
})

/**
 * Every demo scenario end to end: one relay serves `Demo.config`, and a session selects a scenario by base
 * URL (`url + Relay.scenarioPath(name)`). Cloud-profile scenarios run over `CloudRelay.layerWith` with
 * `DriftGate.layer` on top; the provider-driven one over `CloudRelay` declared provider-driven, in local
 * mode; the one whose client speaks Gemini's wire over `Gemini` at the scenario's `/v1beta` (local mode, as the
 * demo runs it), where what the relay received is read back from the model's echo. The app-driven scenarios whose outcome is not the gate's run again through `OpenAiCompatible`
 * (`…/scenarios/<name>/v1`, local mode). Each send is bounded; each asserts `scenario.expect`, the typed
 * error's fields, what the executors received, the gate's verdict, history after a failure (the user's
 * message only) and the requests the relay served for that scenario.
 */
import { assert, describe, it } from "@effect/vitest"
import { JsonValue, Normalize } from "@toolgate/json-schema"
import { type Message, Provider } from "@toolgate/runtime"
import { Effect, Either } from "effect"
import * as Demo from "../src/Demo.js"
import { Relay } from "../src/index.js"
import * as I from "./support/integration.js"
import { demoCloudSession, demoLocalSession, demoOptions, type Ran } from "./support/integrationDemo.js"

/** What one scenario's send left, with the executor runs and the relay's counts for this scenario. */
interface Seen {
  readonly outcome: I.Outcome
  readonly ran: ReadonlyArray<Ran>
  readonly probes: number
  readonly rounds: number
}

/** The scenario-specific checks (the generic ones, the expected tag and rollback, run for all). */
const checks: Readonly<Record<string, (seen: Seen, via: "cloud" | "openai" | "gemini") => void>> = {
  matches: ({ outcome, probes, ran, rounds }, via) => {
    if (via === "cloud") {
      assert.deepStrictEqual(turnOf(outcome).gate, { _tag: "Proven", tools: ["get_weather", "locate_user"] })
      assert.strictEqual(probes, 1)
    }
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "call_1", args: { city: "Paris", units: "metric" } }])
    assert.strictEqual(turnOf(outcome).text, "It is 18 °C and sunny in Paris.")
    assert.strictEqual(rounds, 2)
  },
  drift: ({ outcome, probes, rounds }) => {
    const error = errorOf(outcome)
    assert.strictEqual(error["tool"], "get_weather")
    assert.deepStrictEqual(error["drifted"], ["get_weather"])
    // both differences of the drifted profile, each on a witness of its own
    const reasons = error["reasons"] as ReadonlyArray<{ cloudPath: string; localPath: string; message: string }>
    assert.deepStrictEqual(reasons[0], { cloudPath: "", localPath: "/required", message: "`city` is required locally but optional in the cloud schema" })
    assert.deepStrictEqual(reasons.map((r) => r.localPath), ["/required", "/properties/units/enum"])
    assert.include(reasons[1]!.message, "\"kelvin\"")
    assert.deepStrictEqual([probes, rounds], [1, 0], "the gate failed before any stream request")
  },
  "old-relay": ({ outcome, ran, rounds }, via) => {
    if (via === "cloud") {
      assert.deepStrictEqual(turnOf(outcome).gate, { _tag: "Degraded", reason: "predates", detail: "the relay predates the tool schema export" })
      assert.strictEqual(outcome.warnings.length, 1)
      assert.match(outcome.warnings[0]!, /\[predates\]$/)
    }
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "call_1", args: { city: "Rome" } }])
    assert.strictEqual(rounds, 2)
  },
  "near-miss": ({ outcome, ran }) => {
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "call_1", args: { city: "Berlin", days: 15 } }], "\"15\" coerced to 15")
    assert.deepStrictEqual(turnOf(outcome).calls.map((call) => call.envelope.ok), [true])
  },
  repair: ({ outcome, ran, rounds }) => {
    const calls = turnOf(outcome).calls
    assert.deepStrictEqual(calls.map((call) => [call.callId, call.envelope.ok ? "ok" : call.envelope.kind]), [["call_1", "invalid_args"], ["call_2", "ok"]])
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "call_2", args: { city: "Madrid", units: "metric" } }], "the invalid call never ran")
    assert.strictEqual(outcome.events.filter((event) => event._tag === "RepairSpent").length, 1)
    assert.strictEqual(rounds, 3)
  },
  exhausted: ({ outcome, ran, rounds }) => {
    const error = errorOf(outcome)
    assert.deepStrictEqual([error["limit"], error["attempts"]], [1, 2])
    assert.deepStrictEqual(ran, [])
    assert.strictEqual(rounds, 2, "the third round is never requested")
  },
  "provider-contract": ({ outcome, probes, rounds }) => {
    const error = errorOf(outcome)
    assert.deepStrictEqual([error["rule"], error["callId"]], ["start_without_terminal", "call_1"])
    assert.deepStrictEqual(outcome.events.filter((event) => event._tag === "DriftGateChecked"), [])
    assert.deepStrictEqual([probes, rounds], [0, 1])
  },
  chaining: ({ outcome, ran, rounds }) => {
    assert.deepStrictEqual(ran, [
      { tool: "locate_user", callId: "call_1", args: {} },
      { tool: "get_weather", callId: "call_2", args: { city: "Lisbon" } }
    ], "the ref resolved to locate_user's result.city")
    assert.strictEqual(turnOf(outcome).text, "You are in Lisbon: 21 °C and breezy.")
    assert.strictEqual(rounds, 3)
  },
  "text-tools": ({ outcome, ran, rounds }) => {
    const calls = turnOf(outcome).calls
    assert.deepStrictEqual(calls.map((call) => [call.callId, call.envelope.ok ? "ok" : call.envelope.kind]), [["text_call_1_1", "invalid_args"], ["text_call_2_1", "ok"]])
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "text_call_2_1", args: { city: "Berlin", units: "metric", days: 3 } }], "parsed from text, repaired, coerced")
    assert.include(turnOf(outcome).text, "sampled with temperature=0.2; native tools: (none).")
    assert.strictEqual(rounds, 3, "the <tool_response> user messages did not start new turns")
  },
  discovery: ({ outcome, ran, rounds }) => {
    assert.deepStrictEqual(turnOf(outcome).calls.map((call) => [call.tool, call.envelope.ok]), [
      ["toolgate_list_domains", true],
      ["toolgate_activate_domain", true],
      ["get_weather", true]
    ])
    assert.deepStrictEqual(ran, [{ tool: "get_weather", callId: "call_3", args: { city: "Paris" } }])
    assert.include(turnOf(outcome).text, "Offered this round: toolgate_list_domains, toolgate_activate_domain, get_weather, get_air_quality.")
    assert.strictEqual(rounds, 4)
  },
  "gemini-dialect": ({ outcome, probes, ran, rounds }, via) => {
    assert.strictEqual(via, "gemini")
    const first = outcome.history.find((m) => m._tag === "Assistant")
    const echoed = first?._tag === "Assistant" ? /^Declared to me: (.*)$/m.exec(first.text)?.[1] : undefined
    const declared = { name: Demo.forecastTool.name, parametersJsonSchema: Normalize.google(Demo.forecastTool.parameters).schema }
    assert.isTrue(echoed !== undefined && JsonValue.equals(JSON.parse(echoed), [declared]), `the relay received Google's dialect: ${echoed}`)
    const calls = turnOf(outcome).calls
    assert.deepStrictEqual(calls.map((call) => [call.callId, call.envelope.ok ? "ok" : call.envelope.kind]), [["call_1", "invalid_args"], ["call_2", "ok"]])
    assert.deepStrictEqual(ran, [{ tool: "get_forecast", callId: "call_2", args: { city: "Paris", days: 16, units: "imperial" } }], "checked against the original schema, repaired, coerced")
    assert.strictEqual(turnOf(outcome).text, "Paris for the next 16 days: 64 °F and sunny.")
    assert.deepStrictEqual([probes, rounds], [0, 3])
  }
}

const turnOf = (outcome: I.Outcome) => Either.getOrThrow(outcome.result)
const errorOf = (outcome: I.Outcome): Record<string, unknown> =>
  Either.isLeft(outcome.result) ? outcome.result.left as unknown as Record<string, unknown> : {}

/** The generic checks: `expect` reached; a failure ran nothing, kept only the user's message and was rolled back. */
const assertExpected = (scenario: Demo.Scenario, outcome: I.Outcome) => {
  assert.strictEqual(I.tagOf(outcome), scenario.expect, JSON.stringify(outcome.result))
  if (scenario.expect === "committed") return
  assert.strictEqual(outcome.runs, 0, "no tool ran on a failed turn")
  const user: ReadonlyArray<Message.Message> = [{ _tag: "User", text: scenario.prompt }]
  assert.deepStrictEqual(outcome.history, user)
  const last = outcome.events.at(-1)
  assert.strictEqual(last?._tag === "TurnRolledBack" ? last.error : undefined, scenario.expect)
}

/** Runs `scenario` once over `Gemini` at the scenario's `/v1beta` (local mode: Gemini serves no capabilities profile). */
const runGemini = (scenario: Demo.Scenario, model: string, base: string) =>
  Effect.flatMap(demoLocalSession(undefined, demoOptions(scenario)), (s) => Effect.map(s.turn(scenario.prompt), (outcome) => ({ outcome, ran: s.ran }))).pipe(
    Effect.provide(I.geminiLayer(base, model, { toolChaining: scenario.toolChaining }))
  )

/** Runs `scenario` once through the client its mode and execution model call for. */
const runCloud = (scenario: Demo.Scenario, base: string) => {
  const validator = { toolChaining: scenario.toolChaining }
  const client = scenario.client ?? {}
  const capabilities: Provider.CapabilityOverrides = {
    executionModel: scenario.executionModel,
    ...(client.textTools === true ? { supportsToolCalling: false } : {}),
    ...(client.maxTools === undefined ? {} : { maxTools: client.maxTools, toolDiscovery: Provider.dynamicPerRequest })
  }
  const options = demoOptions(scenario)
  if (scenario.mode === "cloudProfile") {
    return Effect.flatMap(demoCloudSession(undefined, options), (s) => Effect.map(s.turn(scenario.prompt), (outcome) => ({ outcome, ran: s.ran }))).pipe(
      Effect.provide(I.cloudLayer(base, {}, { validator, capabilities }))
    )
  }
  return Effect.flatMap(demoLocalSession(undefined, options), (s) => Effect.map(s.turn(scenario.prompt), (outcome) => ({ outcome, ran: s.ran }))).pipe(
    Effect.provide(I.cloudStreamLayer(base, {}, { validator, capabilities }))
  )
}

/** The app-driven scenarios whose outcome does not come from the gate: they hold without one (a scenario with its own client is declared to CloudRelay only). */
const gateless = Demo.scenarios.filter((s) => s.executionModel === "appDriven" && s.expect !== "SchemaDriftError" && s.client === undefined)

describe("demo scenarios through the relay's /scenarios/<name>", () => {
  it("every scenario has its checks (a new scenario needs a test)", () => {
    assert.deepStrictEqual(Object.keys(checks), Demo.scenarios.map((s) => s.name))
  })

  for (const scenario of Demo.scenarios.filter((s) => s.client?.gemini !== undefined)) {
    const model = scenario.client!.gemini!.model
    it.scopedLive(`${scenario.name} over Gemini (${scenario.mode}, /scenarios/${scenario.name}/v1beta, ${model}) ends ${scenario.expect}`, () =>
      Effect.gen(function*() {
        const relay = yield* I.startRelay(Demo.config)
        const path = Relay.scenarioPath(scenario.name)
        const { outcome, ran } = yield* runGemini(scenario, model, relay.url + path)
        assertExpected(scenario, outcome)
        yield* I.settle(relay, 3)
        const seen = { outcome, ran, probes: relay.count("GET", I.capabilitiesPath), rounds: relay.count("POST", path + I.geminiPath(model)) }
        checks[scenario.name]!(seen, "gemini")
        assert.strictEqual(relay.lines.length, seen.rounds, "every request was a stream request at the scenario's Gemini path")
      }), 30_000)
  }

  for (const scenario of Demo.scenarios.filter((s) => s.client?.gemini === undefined)) {
    it.scopedLive(`${scenario.name} over CloudRelay (${scenario.mode}, ${scenario.executionModel}) ends ${scenario.expect}`, () =>
      Effect.gen(function*() {
        const relay = yield* I.startRelay(Demo.config)
        const path = Relay.scenarioPath(scenario.name)
        const { outcome, ran } = yield* runCloud(scenario, relay.url + path)
        assertExpected(scenario, outcome)
        const seen = { outcome, ran, probes: relay.count("GET", path + I.capabilitiesPath), rounds: relay.count("POST", path + I.turnsPath) }
        checks[scenario.name]!(seen, "cloud")
        assert.strictEqual(relay.count("GET", "/v1/agent/capabilities"), seen.probes, "no request left the scenario's base URL")
      }), 30_000)
  }

  for (const scenario of gateless) {
    it.scopedLive(`${scenario.name} over OpenAiCompatible (local mode, /scenarios/${scenario.name}/v1) ends ${scenario.expect}`, () =>
      Effect.gen(function*() {
        const relay = yield* I.startRelay(Demo.config)
        const path = Relay.scenarioPath(scenario.name)
        const { outcome, ran } = yield* Effect.flatMap(demoLocalSession(), (s) => Effect.map(s.turn(scenario.prompt), (outcome) => ({ outcome, ran: s.ran }))).pipe(
          Effect.provide(I.openAiLayer(relay.url + path, "5 seconds", { toolChaining: scenario.toolChaining }))
        )
        assertExpected(scenario, outcome)
        checks[scenario.name]!({ outcome, ran, probes: 0, rounds: relay.count("POST", path + I.chatPath) }, "openai")
        assert.strictEqual(relay.count("GET", I.capabilitiesPath), 0)
      }), 30_000)
  }

  it.scopedLive("drift without a gate (OpenAiCompatible, local mode): layer 2 keeps the drifted call from the executor, at the cost of a second request", () =>
    Effect.gen(function*() {
      const scenario = Demo.scenarios.find((s) => s.name === "drift")!
      const relay = yield* I.startRelay(Demo.config)
      const path = Relay.scenarioPath(scenario.name)
      const { outcome, ran } = yield* Effect.flatMap(demoLocalSession(), (s) => Effect.map(s.turn(scenario.prompt), (outcome) => ({ outcome, ran: s.ran }))).pipe(
        Effect.provide(I.openAiLayer(relay.url + path))
      )
      assert.strictEqual(I.tagOf(outcome), "committed", JSON.stringify(outcome.result))
      const calls = turnOf(outcome).calls
      assert.deepStrictEqual(calls.map((call) => [call.callId, call.envelope.ok ? "ok" : call.envelope.kind]), [["call_1", "invalid_args"]])
      assert.deepStrictEqual(ran, [], "the call the drifted schema allowed never reached the executor")
      assert.strictEqual(relay.count("POST", path + I.chatPath), 2, "the round the gate would have saved was requested")
    }), 30_000)
})

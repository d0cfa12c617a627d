import { HttpServer } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { Script } from "@toolgate/providers"
import { CloudRelay, RelayProfileClient } from "@toolgate/providers"
import type { Message, Provider } from "@toolgate/runtime"
import { Cause, Chunk, Context, Effect, Exit, Layer, Logger, LogLevel, Stream } from "effect"
import { Relay } from "../src/index.js"
import { afterTool, blocks, firstTurn, polluted, post, profile, requestText, script, start, turnBody } from "./fixtures.js"

/** Scenario "alpha": one turn, one text round. */
const alphaScript: Script.Script = {
  turns: [[[{ _tag: "TextDelta", text: "alpha speaking" }, { _tag: "Done" }]]]
}
/** Scenario "beta-2": two turns; its first turn calls a tool. */
const betaScript: Script.Script = {
  turns: [
    [
      [{ _tag: "ToolCallComplete", id: "call_b", name: "get_time", arguments: { zone: "UTC" } }, { _tag: "Done" }],
      [{ _tag: "TextDelta", text: "beta: it is noon" }, { _tag: "Done" }]
    ],
    [[{ _tag: "TextDelta", text: "beta turn two" }, { _tag: "Done" }]]
  ]
}
const alphaProfile = { capabilities_version: "1.0", tool_schemas: { get_weather: { type: "object" } } }
const betaProfile = { capabilities_version: "1.3", tool_schemas: { get_time: { type: "object", properties: { zone: { type: "string" } } } } }

const scenarios = new Map<string, Relay.Scenario>([
  ["alpha", { profile: alphaProfile, script: alphaScript }],
  ["beta-2", { profile: betaProfile, script: betaScript }],
  ["failing", { profile: { ...alphaProfile, faults: ["fail"] }, script: alphaScript }],
  ["constructor", { profile: betaProfile, script: betaScript }]
])
const config: Relay.Config = { profile, script, scenarios }

const capabilitiesOf = (base: string) => Effect.map(requestText(`${base}/v1/agent/capabilities`), (a) => ({ status: a.status, body: JSON.parse(a.text) }))
const turnEvents = (base: string, messages: ReadonlyArray<unknown>) =>
  Effect.map(post(`${base}/v1/agent/turns`, turnBody(messages)), (a) => blocks(a.text))
const secondTurn = [...firstTurn, { _tag: "Assistant", text: "", toolCalls: [] }, { _tag: "User", text: "and now?" }]

/** One round trip of the providers' cloud-relay client. */
const roundTrip = (baseUrl: string, messages: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const provider = yield* CloudRelay.make({ baseUrl, timeout: "3 seconds", idleTimeout: "3 seconds" })
    const request: Provider.CompletionRequest = {
      messages: messages as ReadonlyArray<Message.Message>,
      tools: [{ name: "get_time", description: "", parameters: { type: "object" }, strict: false }],
      toolChoice: "auto"
    }
    return yield* Stream.runCollect(provider.stream(request)).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either)
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

describe("named scenarios", () => {
  it.scopedLive("each scenario serves its own profile and script; the root serves the config's own", () =>
    Effect.gen(function*() {
      const { url } = yield* start(config)
      assert.deepStrictEqual(yield* capabilitiesOf(url), { status: 200, body: profile })
      assert.deepStrictEqual(yield* capabilitiesOf(`${url}/scenarios/alpha`), { status: 200, body: alphaProfile })
      assert.deepStrictEqual(yield* capabilitiesOf(url + Relay.scenarioPath("beta-2")), { status: 200, body: betaProfile })
      // a name that is also an Object.prototype key is just a name
      assert.deepStrictEqual(yield* capabilitiesOf(`${url}/scenarios/constructor`), { status: 200, body: betaProfile })
      const alpha = yield* turnEvents(`${url}/scenarios/alpha`, firstTurn)
      assert.deepStrictEqual(alpha.map((b) => JSON.parse(b.data)), alphaScript.turns[0]![0] as ReadonlyArray<unknown>)
      const beta = yield* turnEvents(`${url}/scenarios/beta-2`, firstTurn)
      assert.deepStrictEqual(beta.map((b) => JSON.parse(b.data)), betaScript.turns[0]![0] as ReadonlyArray<unknown>)
      const root = yield* turnEvents(url, firstTurn)
      assert.deepStrictEqual(root.map((b) => JSON.parse(b.data)), script.turns[0]![0] as ReadonlyArray<unknown>)
      const chat = yield* post(`${url}/scenarios/beta-2/v1/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "user", content: "time?" }] }))
      assert.strictEqual(chat.status, 200)
      assert.deepStrictEqual(JSON.parse(chat.text).choices[0].message.tool_calls[0].function, { name: "get_time", arguments: "{\"zone\":\"UTC\"}" })
    }))

  it.scopedLive("a request on one scenario never selects another's round", () =>
    Effect.gen(function*() {
      const { url } = yield* start(config)
      // turn 2 exists in beta-2's script and the root's, not in alpha's: alpha says it has no such round
      const alpha = yield* turnEvents(`${url}/scenarios/alpha`, secondTurn)
      assert.strictEqual(alpha.length, 1)
      assert.strictEqual(alpha[0]!.event, "error")
      assert.match(JSON.parse(alpha[0]!.data).reason, /no scripted round 1 of turn 2/)
      const beta = yield* turnEvents(`${url}/scenarios/beta-2`, secondTurn)
      assert.deepStrictEqual(beta.map((b) => JSON.parse(b.data)), betaScript.turns[1]![0] as ReadonlyArray<unknown>)
      const root = yield* turnEvents(url, secondTurn)
      assert.strictEqual(root[0]!.event, "error")
      assert.strictEqual(JSON.parse(root[0]!.data).reason, "the model is overloaded")
      // round 2 of turn 1 on alpha does not exist either, though the root and beta-2 have one
      const alphaRound2 = yield* turnEvents(`${url}/scenarios/alpha`, afterTool)
      assert.strictEqual(alphaRound2[0]!.event, "error")
      // requests interleaved across scenarios each get their own scenario's answer
      const mixed = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, i) => ["alpha", "beta-2", "constructor"][i % 3]!),
        (name) => Effect.map(turnEvents(`${url}/scenarios/${name}`, firstTurn), (events) => ({ name, first: JSON.parse(events[0]!.data) })),
        { concurrency: 10 }
      )
      for (const { first, name } of mixed) assert.strictEqual(first._tag, name === "alpha" ? "TextDelta" : "ToolCallComplete", name)
    }))

  it.scopedLive("CloudRelay and RelayProfileClient with a scenario's base URL run against that scenario", () =>
    Effect.gen(function*() {
      const { url } = yield* start(config)
      const base = `${url}/scenarios/beta-2`
      const first = yield* roundTrip(base, firstTurn)
      assert.deepStrictEqual<unknown>(first._tag === "Right" ? first.right : first.left, betaScript.turns[0]![0] as ReadonlyArray<unknown>)
      const secondRound = [...firstTurn, { _tag: "Assistant", text: "", toolCalls: [{ id: "call_b", name: "get_time", arguments: { zone: "UTC" } }] }, {
        _tag: "ToolResult",
        callId: "call_b",
        name: "get_time",
        envelope: { ok: true, result: "12:00" }
      }]
      const second = yield* roundTrip(base, secondRound)
      assert.deepStrictEqual<unknown>(second._tag === "Right" ? second.right : second.left, betaScript.turns[0]![1] as ReadonlyArray<unknown>)
      const probe = yield* Effect.scoped(Effect.flatMap(RelayProfileClient.make({ baseUrl: base, timeout: "3 seconds" }), (c) => c.probe())).pipe(
        Effect.provide(NodeHttpClient.layerUndici)
      )
      assert.strictEqual(probe._tag, "Exported")
      assert.strictEqual(probe._tag === "Exported" ? probe.version : "", "1.3")
      assert.deepStrictEqual(probe._tag === "Exported" ? Array.from(probe.toolSchemas.keys()) : [], ["get_time"])
      // the failing scenario's profile fault reaches the client as a retryable ProviderError
      const failing = yield* roundTrip(`${url}/scenarios/failing`, firstTurn)
      assert.isTrue(failing._tag === "Left" && failing.left.retryable)
    }))

  it.scopedLive("an unknown scenario is a 404 JSON error naming it; so is a path that is not one", () =>
    Effect.gen(function*() {
      const { url } = yield* start(config)
      for (const path of ["/scenarios", "/scenarios/nope/v1/agent/capabilities", "/scenarios/ALPHA/v1/agent/turns", "/scenarios/__proto__/v1/agent/capabilities", "/scenarios/%61lpha/v1/agent/capabilities", "/scenarios/alpha%2fx/v1/agent/capabilities", "/scenarios/", "/scenarios/hasOwnProperty"]) {
        const answer = yield* requestText(url + path)
        assert.strictEqual(answer.status, 404, path)
        const error = JSON.parse(answer.text).error
        assert.strictEqual(error.type, "not_found", path)
        assert.match(error.message, /no scenario .*\(scenarios: alpha, beta-2, failing, constructor\)/, path)
      }
      const turns = yield* post(`${url}/scenarios/nope/v1/agent/turns`, turnBody(firstTurn))
      assert.strictEqual(turns.status, 404)
      assert.match(JSON.parse(turns.text).error.message, /no scenario "nope"/)
      // inside a known scenario: its own 404 and 405, naming the whole path
      const missing = yield* requestText(`${url}/scenarios/alpha/v1/elsewhere`)
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(JSON.parse(missing.text).error.message, "no route /scenarios/alpha/v1/elsewhere")
      const wrongMethod = yield* requestText(`${url}/scenarios/alpha/v1/agent/turns`)
      assert.strictEqual(wrongMethod.status, 405)
      assert.strictEqual(wrongMethod.headers.get("allow"), "POST")
      assert.match(JSON.parse(wrongMethod.text).error.message, /on \/scenarios\/alpha\/v1\/agent\/turns/)
      // a relay without scenarios says it has none
      const plain = yield* start({ profile, script })
      const none = yield* requestText(`${plain.url}/scenarios/alpha/v1/agent/capabilities`)
      assert.strictEqual(none.status, 404)
      assert.match(JSON.parse(none.text).error.message, /\(scenarios: none\)/)
      assert.isFalse(polluted())
    }))

  it.scopedLive("faults: a scenario's profile faults apply to it alone; header faults, HEAD, queries and the body limit work inside a scenario", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ ...config, maxBodyBytes: 4096 })
      assert.strictEqual((yield* requestText(`${url}/scenarios/failing/v1/agent/capabilities`)).status, 500)
      const failingTurn = yield* post(`${url}/scenarios/failing/v1/agent/turns`, turnBody(firstTurn))
      assert.strictEqual(failingTurn.status, 500)
      assert.strictEqual(JSON.parse(failingTurn.text).error.type, "server_error")
      assert.strictEqual((yield* requestText(`${url}/scenarios/alpha/v1/agent/capabilities`)).status, 200)
      assert.strictEqual((yield* requestText(`${url}/v1/agent/capabilities`)).status, 200)
      const newer = yield* requestText(`${url}/scenarios/beta-2/v1/agent/capabilities?x=1`, { headers: { "x-toolgate-fault": "newer-major" } })
      assert.deepStrictEqual(JSON.parse(newer.text), { ...betaProfile, capabilities_version: "2.0" })
      const predates = yield* requestText(`${url}/scenarios/beta-2/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "predates" } })
      assert.deepStrictEqual(JSON.parse(predates.text), {})
      const unknownFault = yield* requestText(`${url}/scenarios/alpha/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "nope" } })
      assert.strictEqual(unknownFault.status, 400)
      for (const base of [url, `${url}/scenarios/alpha`]) {
        const head = yield* requestText(`${base}/v1/agent/capabilities`, { method: "HEAD" })
        assert.strictEqual(head.status, 200, base)
        assert.strictEqual(head.text, "")
      }
      const tooLarge = yield* post(`${url}/scenarios/alpha/v1/agent/turns`, turnBody([{ _tag: "User", text: "x".repeat(8192) }]))
      assert.strictEqual(tooLarge.status, 413)
    }))

  it.scopedLive("the request log names the whole path, scenario included", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => {
        lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
      }))
      const { url } = yield* Relay.start(config).pipe(Effect.provide(capture))
      yield* requestText(`${url}/scenarios/alpha/v1/agent/capabilities`)
      yield* post(`${url}/scenarios/beta-2/v1/agent/turns`, turnBody(firstTurn))
      yield* requestText(`${url}/scenarios/nope/v1/agent/capabilities`)
      assert.deepStrictEqual(lines.map((line) => line.replace(/\d+ms$/, "")), [
        "GET /scenarios/alpha/v1/agent/capabilities 200 ",
        "POST /scenarios/beta-2/v1/agent/turns 200 ",
        "GET /scenarios/nope/v1/agent/capabilities 404 "
      ])
    }))
})

describe("many scenarios", () => {
  it.scopedLive("10,000 scenarios: each is served under its name, an unknown one is a bounded 404", () =>
    Effect.gen(function*() {
      const many = new Map(Array.from({ length: 10_000 }, (_, i) => [`s-${i}`, { profile: { capabilities_version: `1.${i}` }, script: alphaScript }] as const))
      const { url } = yield* start({ profile, script, scenarios: many })
      for (const i of [0, 4_242, 9_999]) {
        assert.deepStrictEqual(yield* capabilitiesOf(`${url}/scenarios/s-${i}`), { status: 200, body: { capabilities_version: `1.${i}` } })
      }
      const unknown = yield* requestText(`${url}/scenarios/s-10000/v1/agent/capabilities`)
      assert.strictEqual(unknown.status, 404)
      // the list of names in the message is bounded
      assert.isBelow(JSON.parse(unknown.text).error.message.length, 400)
    }))
})

describe("scenario configuration", () => {
  const bad: ReadonlyArray<readonly [string, unknown]> = [
    ["an empty name", new Map([["", { profile, script }]])],
    ["a slash", new Map([["a/b", { profile, script }]])],
    ["a dot-dot", new Map([["..", { profile, script }]])],
    ["a space", new Map([["a b", { profile, script }]])],
    ["a newline", new Map([["a\nb", { profile, script }]])],
    ["a __proto__ name", new Map([["__proto__", { profile, script }]])],
    ["a name of 65 characters", new Map([["a".repeat(65), { profile, script }]])],
    ["a name that is not a string", new Map<unknown, unknown>([[42, { profile, script }]])],
    ["an unknown profile fault", new Map([["ok", { profile: { faults: ["nope"] }, script }]])],
    ["a scenario that is not { profile, script }", new Map([["ok", { profile }]])],
    ["a scenario that is null", new Map([["ok", null]])],
    ["scenarios that are not a map", { ok: { profile, script } }],
    ["scenarios that are a list", [["ok", { profile, script }]]]
  ]

  it.scopedLive("a bad name or scenario is a config error: start dies naming it, the router answers 500 saying why", () =>
    Effect.gen(function*() {
      for (const [what, scenarios] of bad) {
        const config = { profile, script, scenarios } as unknown as Relay.Config
        const exit = yield* Effect.exit(Relay.start(config))
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), what)
        const message = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
        assert.match(message, /Relay: (scenario|scenarios)/, what)
      }
      const exit = yield* Effect.exit(Relay.start({ profile, script, scenarios: new Map([["a b", { profile, script }]]) }))
      assert.match(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "", /scenario name "a b" is not url-safe/)
      assert.isTrue(Relay.isScenarioName("old-relay_2") && !Relay.isScenarioName("-x") && !Relay.isScenarioName({}))
      const context = yield* Layer.build(
        HttpServer.serve(Relay.router({ profile, script, scenarios: new Map([["a/b", { profile, script }]]) })).pipe(Layer.provideMerge(NodeHttpServer.layerTest))
      ).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
      const address = Context.get(context, HttpServer.HttpServer).address
      const port = address._tag === "TcpAddress" ? address.port : 0
      for (const path of ["/v1/agent/capabilities", "/scenarios/a/b/v1/agent/capabilities"]) {
        const answer = yield* requestText(`http://127.0.0.1:${port}${path}`)
        assert.strictEqual(answer.status, 500)
        assert.match(JSON.parse(answer.text).error.message, /misconfigured: scenario name "a\/b" is not url-safe/)
      }
      assert.isFalse(polluted())
    }))

  it.scopedLive("a scenario value that throws when read is a config error, not a crash", () =>
    Effect.gen(function*() {
      const throwing = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error("boom") } })
      const exit = yield* Effect.exit(Relay.start({ profile, script, scenarios: new Map([["ok", throwing as Relay.Scenario]]) }))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      assert.match(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "", /scenario "ok" must be \{ profile, script \}/)
    }))
})

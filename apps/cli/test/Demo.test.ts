import { assert, describe, it } from "@effect/vitest"
import { Normalize } from "@toolgate/json-schema"
import { Demo, Relay } from "@toolgate/relay"
import { type Message, SessionEvent } from "@toolgate/runtime"
import { Effect, Either, Logger, LogLevel, Schema } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as DemoChecks from "../src/internal/demoChecks.js"
import * as DemoRender from "../src/internal/demoRender.js"
import * as DemoRequests from "../src/internal/demoRequests.js"
import type * as DemoRun from "../src/internal/demoRun.js"
import * as DemoTools from "../src/internal/demoTools.js"
import * as DemoTrace from "../src/internal/demoTrace.js"
import { toolgateAsync as toolgate } from "./toolgate.js"

/** The relay in this process, quiet (its request log is tested in apps/relay). */
const start = (config: Relay.Config) => Relay.start(config).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))

/** A loopback port nothing listens on (bound, then closed). */
const refusedPort = (): Promise<number> =>
  new Promise((done) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => done(port))
    })
  })

/** The demo's scenarios: the eight of the contracts, text-routed tools, tool discovery and a dialect on Gemini's wire. */
const total = 11

const parseLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)

/** What every successful text run shows: each title, a ✔ per scenario, the summary, no stack trace. */
const assertAllPassed = (run: { code: number | null; stdout: string; stderr: string }) => {
  assert.strictEqual(run.code, 0, run.stderr + run.stdout)
  for (const [i, s] of Demo.scenarios.entries()) {
    assert.include(run.stdout, `━━ ${i + 1}/${total} ${s.name}: ${s.title}`)
    assert.match(run.stdout, new RegExp(`✔ +${i + 1}  ${s.name}\\s+${s.expect}\\s+${s.expect}`))
  }
  assert.strictEqual(run.stdout.match(/^✔ +\d+  /gm)?.length, total)
  assert.include(run.stdout, `${total} of ${total} scenarios ended as expected.`)
  assert.notMatch(run.stdout + run.stderr, /\n\s+at /)
  assert.notInclude(run.stdout, "WARN")
}

describe("toolgate demo (the process)", () => {
  it("runs the eleven scenarios against an in-process relay and exits 0", { timeout: 120_000 }, async () => {
    const run = await toolgate("demo")
    assertAllPassed(run)
    assert.include(run.stdout, "(started in-process)")
    // what the layers decided is visible in the trace
    assert.include(run.stdout, "gate      ✔ proven: get_weather, locate_user")
    assert.include(run.stdout, "witness: {}")
    assert.include(run.stdout, "after     0 stream requests · tools ran: none · history: 1 message")
    assert.include(run.stdout, "coerced days: \"15\" → 15 [string-to-integer]")
    assert.include(run.stdout, "layer 3   repair 1 of 1 spent")
    assert.include(run.stdout, "resolved city: {\"$tool\":\"call_1\",\"$path\":\"result.city\"} → \"Lisbon\"")
    assert.include(run.stdout, "ProviderEventContractViolation: The provider's event stream broke the contract: start_without_terminal (call call_1).")
    // text-routed tools: calls parsed from the reply text, repaired, coerced; the relay's model saw the sampling
    assert.include(run.stdout, "request 1 carried no native tools; the system prompt lists get_weather, locate_user and asks for <tool_call> blocks")
    assert.include(run.stdout, "calls get_weather (text_call_2_1)")
    assert.include(run.stdout, "coerced days: \"3\" → 3 [string-to-integer]")
    assert.include(run.stdout, "sampled with temperature=0.2; native tools: (none)")
    // tool discovery: the meta-tools first, then the activated domain's tools, never more than maxTools
    assert.include(run.stdout, "request 1 offered 2 tools: toolgate_list_domains, toolgate_activate_domain")
    assert.include(run.stdout, "request 3 offered 4 tools: toolgate_list_domains, toolgate_activate_domain, get_weather, get_air_quality")
    // Gemini's wire: what the relay received is Google's dialect; the arguments were checked against the original
    const sent = JSON.stringify(Normalize.google(Demo.forecastTool.parameters).schema)
    assert.include(run.stdout, `note      the relay received get_forecast on parametersJsonSchema ${sent}\n`)
    assert.include(run.stdout, "fed back  call_1: ✘ invalid_args (days): Argument `days` must be at most 16; got integer 20. [retryable]")
    assert.include(run.stdout, "coerced days: \"16\" → 16 [string-to-integer]")
    assert.include(run.stdout, "executor  ran get_forecast({\"city\":\"Paris\",\"days\":16,\"units\":\"imperial\"})")
  })

  it("--json prints JSON lines only: steps, one result per scenario, a summary with all passed", { timeout: 120_000 }, async () => {
    const run = await toolgate("demo", "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const lines = parseLines(run.stdout)
    const results = lines.filter((l) => l["type"] === "result")
    assert.deepStrictEqual(results.map((r) => [r["scenario"], r["expected"], r["got"], r["passed"]]), Demo.scenarios.map((s) => [s.name, s.expect, s.expect, true]))
    const summary = lines.at(-1)!
    assert.strictEqual(summary["type"], "summary")
    assert.strictEqual(summary["passed"], total)
    assert.deepStrictEqual(summary["failed"], [])
    const steps = lines.filter((l) => l["type"] === "step")
    const drift = steps.find((s) => s["scenario"] === "drift" && s["step"] === "error")!
    assert.strictEqual(drift["error"], "SchemaDriftError")
    assert.deepStrictEqual((drift["fields"] as Record<string, unknown>)["witness"], {})
    assert.isTrue(steps.some((s) => s["scenario"] === "repair" && s["step"] === "fed_back" && (s["envelope"] as { kind?: string }).kind === "invalid_args"))
    assert.deepStrictEqual(
      steps.filter((s) => s["scenario"] === "exhausted" && s["step"] === "ran"),
      []
    )
    // each event of every turn is a line as it happens, before its scenario's steps: a session event, or the turn's end
    const decode = Schema.decodeUnknownEither(SessionEvent.SessionEvent)
    for (const scenario of Demo.scenarios) {
      const mine = lines.flatMap((l, i) => l["scenario"] === scenario.name ? [{ line: l, at: i }] : [])
      const events = mine.filter((l) => l.line["type"] === "event").map((l) => ({ event: l.line["event"] as { _tag: string }, at: l.at }))
      const firstStep = mine.find((l) => l.line["type"] === "step")!.at
      assert.isTrue(events.length > 0 && events.every((e) => e.at < firstStep), scenario.name)
      assert.strictEqual(events[0]!.event._tag, "TurnStarted", scenario.name)
      const last = events.at(-1)!.event
      if (scenario.expect === "committed") assert.strictEqual(last._tag, "TurnFinished", scenario.name)
      else assert.strictEqual(last._tag, "TurnRolledBack", scenario.name)
      for (const { event } of events) if (event._tag !== "TurnFinished") assert.isTrue(Either.isRight(decode(event)), `${scenario.name}: ${JSON.stringify(event)}`)
    }
    const matches = lines.filter((l) => l["type"] === "event" && l["scenario"] === "matches").map((l) => l["event"] as { _tag: string; text?: string })
    assert.include(matches.filter((e) => e._tag === "TextDelta").map((e) => e.text).join(""), "It is 18 °C and sunny in Paris.")
  })

  it.scopedLive("--relay runs against a relay started elsewhere (here, in the test process)", () =>
    Effect.gen(function*() {
      const { url } = yield* start(Demo.config)
      const run = yield* Effect.promise(() => toolgate("demo", "--relay", `${url}/`))
      assertAllPassed(run)
      assert.include(run.stdout, `against the relay at ${url}\n`)
      assert.notInclude(run.stdout, "in-process")
    }), { timeout: 120_000 })

  it.scopedLive("is a self-test: a relay whose scenarios say otherwise fails them and exits 1", () =>
    Effect.gen(function*() {
      const scenarios = new Map(Demo.config.scenarios)
      const matching = scenarios.get("matches")!
      // the drift scenario served with the matching profile: the gate proves, so no SchemaDriftError
      scenarios.set("drift", { profile: matching.profile, script: scenarios.get("drift")!.script })
      // the repair scenario's model never repairs
      scenarios.set("repair", scenarios.get("exhausted")!)
      const { url } = yield* start({ ...Demo.config, scenarios })
      const run = yield* Effect.promise(() => toolgate("demo", "--relay", url, "--json"))
      assert.strictEqual(run.code, 1, run.stderr)
      const summary = parseLines(run.stdout).at(-1)!
      assert.strictEqual(summary["passed"], total - 2)
      assert.deepStrictEqual(summary["failed"], ["drift", "repair"])
    }), { timeout: 120_000 })

  it("--relay to a refused port: one readable line, exit 3, no trace", { timeout: 60_000 }, async () => {
    const port = await refusedPort()
    const run = await toolgate("demo", "--relay", `http://127.0.0.1:${port}`)
    assert.strictEqual(run.code, 3)
    assert.strictEqual(run.stdout, "")
    const lines = run.stderr.trim().split("\n")
    assert.strictEqual(lines.length, 1, run.stderr)
    assert.match(lines[0]!, new RegExp(`^toolgate: cannot reach the relay at http://127.0.0.1:${port} \\(connection refused\\)`))
  })

  it.scopedLive("--relay to a relay without the demo scenarios: one line, exit 3", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile: Demo.config.profile, script: Demo.config.script })
      const run = yield* Effect.promise(() => toolgate("demo", "--relay", url))
      assert.strictEqual(run.code, 3)
      assert.match(run.stderr.trim(), /^toolgate: the relay at .* does not serve the demo scenarios \(GET .*\/scenarios\/matches\/v1\/agent\/capabilities answered 404\)/)
      assert.strictEqual(run.stderr.trim().split("\n").length, 1)
    }), { timeout: 60_000 })

  it("a slow relay shows progress on stderr while it waits", { timeout: 60_000 }, async () => {
    // answers the preflight after 3 seconds (well past the 1 second progress threshold), with a 404
    const server = http.createServer((_, response) => {
      setTimeout(() => response.writeHead(404, { "content-type": "application/json" }).end("{}"), 3_000)
    })
    const port = await new Promise<number>((done) => server.listen(0, "127.0.0.1", () => done((server.address() as AddressInfo).port)))
    try {
      const run = await toolgate("demo", "--relay", `http://127.0.0.1:${port}`)
      assert.strictEqual(run.code, 3)
      assert.include(run.stderr, `… waiting for the relay at http://127.0.0.1:${port}\n`)
      assert.include(run.stderr, "does not serve the demo scenarios")
      assert.strictEqual(run.stdout, "")
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it("--relay that is not an http URL (or hostile text) is bad input: exit 2, one line", { timeout: 60_000 }, async () => {
    for (const bad of ["nope", "file:///etc/passwd", "__proto__", `http://${"a".repeat(5000)}:99999`]) {
      const run = await toolgate("demo", "--relay", bad)
      assert.strictEqual(run.code, 2, `${bad}: ${run.stderr}`)
      assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr)
      assert.match(run.stderr, /^toolgate: /)
    }
  })

  it("--json: bad input (2) and no relay (3) are one _tag-ed object on stdout", { timeout: 60_000 }, async () => {
    const bad = await toolgate("demo", "--relay", "nope", "--json")
    assert.strictEqual(bad.code, 2)
    assert.deepInclude(JSON.parse(bad.stdout), { _tag: "BadInput", exitCode: 2 })
    const port = await refusedPort()
    const none = await toolgate("demo", "--relay", `http://127.0.0.1:${port}`, "--json")
    assert.strictEqual(none.code, 3)
    const printed = JSON.parse(none.stdout) as Record<string, unknown>
    assert.deepInclude(printed, { _tag: "NoRelay", exitCode: 3 })
    assert.include(String(printed["message"]), "connection refused")
  })

  it("--help names the options and gives an example", { timeout: 60_000 }, async () => {
    const run = await toolgate("demo", "--help")
    assert.strictEqual(run.code, 0)
    assert.include(run.stdout, "--relay")
    assert.include(run.stdout, "--json")
    assert.include(run.stdout, "Example: toolgate demo")
  })
})

describe("the demo's trace, checks and rendering (hostile input)", () => {
  const deep = (levels: number): unknown => {
    let value: unknown = "bottom"
    for (let i = 0; i < levels; i++) value = { a: value }
    return value
  }
  const hostileArgs = JSON.parse(`{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "deep": ${JSON.stringify(deep(100))}}`)
  const events = [
    { _tag: "TurnStarted", turn: 1, text: "hi" },
    { _tag: "RoundStarted", turn: 1, round: 1 },
    { _tag: "ToolCalled", turn: 1, round: 1, callId: "__proto__", tool: "constructor", arguments: hostileArgs, outcome: "valid", issues: [] },
    { _tag: "ToolAnswered", turn: 1, round: 1, callId: "__proto__", tool: "constructor", envelope: { ok: false, kind: "invalid_args", message: "a\n- b\n- c", retryable: true } },
    { _tag: "TurnRolledBack", turn: 1, error: "SchemaDriftError", message: "drift" }
  ] as const
  const ran = [{
    tool: "constructor",
    callId: "__proto__",
    args: deep(10_000) as never,
    raw: JSON.stringify({ city: { $tool: "__proto__", $path: "result.__proto__" } }),
    coercions: [],
    result: deep(10_000) as never
  }]

  it("builds, checks and renders hostile steps without throwing or polluting a prototype", () => {
    const steps = DemoTrace.build("hi", events as never, ran, ["a warning"], "SchemaDriftError on constructor")
    assert.deepStrictEqual(steps.map((s) => s.step), ["user", "round", "call", "resolved", "ran", "fed_back", "gate", "warning", "rolled_back"])
    const resolved = steps.find((s) => s.step === "resolved")
    assert.deepStrictEqual(resolved && "value" in resolved ? resolved.value : "missing", null)
    const result: DemoRun.Result = {
      index: 1, scenario: "__proto__", title: "constructor", expected: "committed", got: "Defect", passed: false,
      steps: [...steps, { step: "error", error: "X", message: "m", fields: { witness: deep(10_000), __proto__: 1 } }],
      checks: [], ms: 0
    }
    const text = DemoRender.scenarioText(result, 8)
    assert.include(text, "✘ expected committed, got Defect")
    assert.include(text, "invalid_args: a; b; c [retryable]")
    for (const line of text.split("\n")) assert.isBelow(line.length, 400)
    const printed = DemoRender.scenarioJson(result).map((line) => JSON.parse(line))
    assert.deepStrictEqual(printed.map((o) => o.type === "step" ? o.step : o.type), [...result.steps.map((s) => s.step), "result"])
    assert.deepInclude(printed.at(-1), { type: "result", scenario: "__proto__", expected: "committed", got: "Defect", passed: false })
    assert.include(DemoRender.summaryText([result]), "0 of 1 scenarios ended as expected.")
    assert.deepStrictEqual(JSON.parse(DemoRender.summaryJson([result], "http://x")), { type: "summary", relay: "http://x", total: 1, passed: 0, failed: ["__proto__"] })
    const observed = { outcome: { _tag: "Failed", error: "X", message: "", fields: {} }, ran, history: [], requests: 0, offered: [], trace: steps, declared: [] } as const
    for (const name of ["__proto__", "constructor", "toString"]) {
      assert.deepStrictEqual(DemoChecks.checks({ ...Demo.scenarios[0]!, name }, observed), [])
    }
    assert.isTrue(DemoChecks.checks(Demo.scenarios[1]!, observed).some((c) => !c.ok))
    for (const name of ["text-tools", "discovery", "gemini-dialect"]) {
      const checks = DemoChecks.checks(Demo.scenarios.find((s) => s.name === name)!, observed)
      assert.isTrue(checks.length > 0 && checks.every((c) => !c.ok), `${name}: nothing happened, so no claim holds`)
    }
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("gemini-dialect's checks read what the relay received: the original schema on the wire, or legacy parameters, is not the dialect", () => {
    const s = Demo.scenarios.find((x) => x.name === "gemini-dialect")!
    const echo = (declarations: unknown): Message.Message => ({ _tag: "Assistant", text: `Declared to me: ${JSON.stringify(declarations)}\n`, toolCalls: [] })
    const original = Demo.forecastTool.parameters
    const google = Normalize.google(original).schema
    const claims = (declarations: unknown) =>
      DemoChecks.checks(s, { outcome: { _tag: "Failed", error: "X", message: "", fields: {} }, ran: [], history: [], requests: 0, offered: [], trace: [], declared: DemoRequests.declared([echo(declarations)]) })
        .slice(0, 2).map((c) => c.ok)
    assert.deepStrictEqual(claims([{ name: "get_forecast", parametersJsonSchema: google }]), [true, true])
    assert.deepStrictEqual(claims([{ name: "get_forecast", parametersJsonSchema: original }]), [true, false], "the app's schema sent as is")
    assert.deepStrictEqual(claims([{ name: "get_forecast", parameters: google }]), [false, false], "legacy parameters")
    assert.deepStrictEqual(claims([{ name: "get_forecast", parametersJsonSchema: google }, { name: "other" }]), [false, false], "another tool")
    for (const text of ["Declared to me: [{\"name\": 5}]", "Declared to me: [{\"__proto__\": {\"polluted\": 1}, \"name\": \"x\"}]", "Declared to me: [", "nothing", `Declared to me: ${"[".repeat(5000)}`]) {
      const declared = DemoRequests.declared([{ _tag: "Assistant", text, toolCalls: [] }])
      assert.isTrue(declared.length <= 1, text.slice(0, 40))
      assert.deepStrictEqual(DemoRequests.annotateDeclared([{ step: "user", text: "hi" }], []), [{ step: "user", text: "hi" }])
    }
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("the executors answer from their table and record every run; an unknown city is not_found", () =>
    Effect.gen(function*() {
      const { ran, toolkit } = yield* DemoTools.make()
      const weather = toolkit.tools.get("get_weather")!
      const ctx = (callId: string) => ({ tool: "get_weather", callId, idempotencyKey: callId, raw: {}, prepared: {}, coercions: [], saveArtifact: () => Effect.void })
      const ok = yield* weather.execute({ city: "Oslo", units: "imperial" }, ctx("c1"))
      assert.deepStrictEqual(ok, { city: "Oslo", units: "imperial", temperature: 43, sky: "overcast", days: 1 })
      const missing = yield* Effect.flip(weather.execute({ city: "__proto__" }, ctx("c2")))
      assert.strictEqual(missing.kind, "not_found")
      assert.deepStrictEqual(ran.map((r) => r.callId), ["c1"])
    }).pipe(Effect.runPromise))
})

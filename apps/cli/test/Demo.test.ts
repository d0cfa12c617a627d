import { assert, describe, it } from "@effect/vitest"
import { Demo, Relay } from "@toolgate/relay"
import { Effect, Logger, LogLevel } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
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

const parseLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)

/** What every successful text run shows: each title, a ✔ per scenario, the summary, no stack trace. */
const assertAllPassed = (run: { code: number | null; stdout: string; stderr: string }) => {
  assert.strictEqual(run.code, 0, run.stderr + run.stdout)
  for (const [i, s] of Demo.scenarios.entries()) {
    assert.include(run.stdout, `━━ ${i + 1}/8 ${s.name}: ${s.title}`)
    assert.match(run.stdout, new RegExp(`✔  ${i + 1}  ${s.name}\\s+${s.expect}\\s+${s.expect}`))
  }
  assert.strictEqual(run.stdout.match(/^✔ {2}\d/gm)?.length, 8)
  assert.include(run.stdout, "8 of 8 scenarios ended as expected.")
  assert.notMatch(run.stdout + run.stderr, /\n\s+at /)
  assert.notInclude(run.stdout, "WARN")
}

describe("toolgate demo (the process)", () => {
  it("runs the eight scenarios against an in-process relay and exits 0", { timeout: 120_000 }, async () => {
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
  })

  it("--json prints JSON lines only: steps, one result per scenario, a summary with 8 passed", { timeout: 120_000 }, async () => {
    const run = await toolgate("demo", "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const lines = parseLines(run.stdout)
    const results = lines.filter((l) => l["type"] === "result")
    assert.deepStrictEqual(results.map((r) => [r["scenario"], r["expected"], r["got"], r["passed"]]), Demo.scenarios.map((s) => [s.name, s.expect, s.expect, true]))
    const summary = lines.at(-1)!
    assert.strictEqual(summary["type"], "summary")
    assert.strictEqual(summary["passed"], 8)
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
      assert.strictEqual(summary["passed"], 6)
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

  it("--relay that is not an http URL (or hostile text) is bad input: exit 2, one line", { timeout: 60_000 }, async () => {
    for (const bad of ["nope", "file:///etc/passwd", "__proto__", `http://${"a".repeat(5000)}:99999`]) {
      const run = await toolgate("demo", "--relay", bad)
      assert.strictEqual(run.code, 2, `${bad}: ${run.stderr}`)
      assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr)
      assert.match(run.stderr, /^toolgate: /)
    }
  })

  it("--help names the options and gives an example", { timeout: 60_000 }, async () => {
    const run = await toolgate("demo", "--help")
    assert.strictEqual(run.code, 0)
    assert.include(run.stdout, "--relay")
    assert.include(run.stdout, "--json")
    assert.include(run.stdout, "Example: toolgate demo")
  })
})

/**
 * Every combination of the six fast fault switches (2^6 = 64; `slow` is covered on its own in
 * integration.faults.test.ts, as each of its answers waits 2 s), served by ONE relay as 64 named scenarios
 * whose profiles switch the faults on. Each combination runs through the three clients and is checked
 * against an oracle written from the relay's documented precedence (`fail`, then `garbage`, then `drop`;
 * `predates` wins over the other capability faults) and the clients' documented mapping. Every send is
 * bounded, so a combination that hangs fails as `TimeoutException`; none may end untyped, run a tool on a
 * failed turn, or send a turn request after a failed gate.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Message } from "@toolgate/runtime"
import { Effect, Either } from "effect"
import { Faults, Relay } from "../src/index.js"
import * as I from "./support/integration.js"

/** What a turn must end with: its tag, and for a ProviderError its reason and retryability. */
interface Expected {
  readonly tag: string
  readonly reason?: string
  readonly retryable?: boolean
}

/** The gate event a cloud-profile turn must publish (`none`: the gate failed or never answered). */
type Gate = "proven" | "predates" | "unreachable" | "none"

// `rate-limit` (a 429 on every endpoint) has its own tests in RealClients.test.ts
const fast: ReadonlyArray<Faults.Fault> = Faults.all.filter((fault) => fault !== "slow" && fault !== "rate-limit")

/** Every subset of the fast faults, in a fixed order. */
const combinations: ReadonlyArray<ReadonlyArray<Faults.Fault>> = Array.from(
  { length: 2 ** fast.length },
  (_, bits) => fast.filter((_, i) => (bits & (1 << i)) !== 0)
)

/** A stream under `faults`, as each provider reports it: the first of fail, garbage, drop that is on; else the turn commits. */
const streamOutcome = (faults: ReadonlySet<Faults.Fault>, via: "cloud" | "openai"): Expected => {
  if (faults.has("fail")) {
    return { tag: "ProviderError", retryable: true, reason: via === "cloud" ? "the relay answered HTTP 500" : "HTTP 500: the relay failed (its fail fault is on)" }
  }
  if (faults.has("garbage")) return { tag: "ProviderError", retryable: false, reason: via === "cloud" ? "malformed event" : "malformed chunk" }
  if (faults.has("drop")) {
    return { tag: "ProviderError", retryable: true, reason: via === "cloud" ? "the relay's stream broke off" : "the response body broke off" }
  }
  return { tag: "committed" }
}

/** A cloud-profile turn under `faults`: the probe's answer decides the gate, then the stream decides the turn. */
const gatedOutcome = (faults: ReadonlySet<Faults.Fault>): Expected & { readonly gate: Gate } => {
  // 500: unreachable, the gate degrades and the stream (500 too) fails.
  if (faults.has("fail")) return { ...streamOutcome(faults, "cloud"), gate: "unreachable" }
  // A body that arrived whole but is not JSON: the gate fails closed.
  if (faults.has("garbage")) return { tag: "RelayProfileContractError", gate: "none" }
  // A body cut half-way is a network failure: the gate degrades and the stream (cut too) fails.
  if (faults.has("drop")) return { ...streamOutcome(faults, "cloud"), gate: "unreachable" }
  if (faults.has("predates")) return { ...streamOutcome(faults, "cloud"), gate: "predates" }
  if (faults.has("malformed") || faults.has("newer-major")) return { tag: "RelayProfileContractError", gate: "none" }
  return { ...streamOutcome(faults, "cloud"), gate: "proven" }
}

const user: ReadonlyArray<Message.Message> = [{ _tag: "User", text: I.prompt }]

/** The outcome matches `expected`; a failed turn ran nothing and kept only the user's message. */
const assertOutcome = (outcome: I.Outcome, expected: Expected, label: string) => {
  assert.strictEqual(I.tagOf(outcome), expected.tag, `${label}: ${JSON.stringify(outcome.result)}`)
  if (Either.isRight(outcome.result)) {
    assert.strictEqual(outcome.runs, 1, label)
    assert.strictEqual(outcome.result.right.text, I.answerText, label)
    return
  }
  const error = outcome.result.left as unknown as Record<string, unknown>
  if (expected.reason !== undefined) assert.deepStrictEqual([error["reason"], error["retryable"]], [expected.reason, expected.retryable], label)
  assert.strictEqual(outcome.runs, 0, `${label}: no tool runs on a failed turn`)
  assert.deepStrictEqual(outcome.history, user, label)
}

const gateOf = (outcome: I.Outcome): Gate => {
  const event = outcome.events.find((e) => e._tag === "DriftGateChecked")
  if (event?._tag !== "DriftGateChecked") return "none"
  return event.outcome === "proven" ? "proven" : /predates/.test(event.detail) ? "predates" : "unreachable"
}

const nameOf = (index: number) => `combo-${index}`

describe("fault combinations: one relay, 64 scenarios, three clients, one oracle", () => {
  it("the oracle covers every subset once, and the documented single faults", () => {
    assert.strictEqual(new Set(combinations.map((c) => c.join(","))).size, 64)
    assert.deepStrictEqual(gatedOutcome(new Set(["predates"])), { tag: "committed", gate: "predates" })
    assert.deepStrictEqual(gatedOutcome(new Set(["newer-major"])), { tag: "RelayProfileContractError", gate: "none" })
    assert.deepStrictEqual(gatedOutcome(new Set()), { tag: "committed", gate: "proven" })
  })

  it.scopedLive("every combination ends as the oracle says through CloudRelay + DriftGate, CloudRelay's stream and OpenAiCompatible", () =>
    Effect.gen(function*() {
      const scenarios = new Map(combinations.map((faults, i) => [nameOf(i), { profile: { ...I.profile, faults }, script: I.script }]))
      const relay = yield* I.startRelay({ profile: I.profile, script: I.script, scenarios })
      yield* Effect.forEach(combinations, (faults, i) =>
        Effect.gen(function*() {
          const on = new Set(faults)
          const label = `[${faults.join(",")}]`
          const path = Relay.scenarioPath(nameOf(i))
          const base = relay.url + path

          const expected = gatedOutcome(on)
          const gated = yield* Effect.flatMap(I.cloudSession(), (s) => s.turn()).pipe(Effect.provide(I.cloudLayer(base)))
          assertOutcome(gated, expected, `cloud ${label}`)
          assert.strictEqual(gateOf(gated), expected.gate, `cloud gate ${label}`)
          if (expected.gate === "none") {
            assert.strictEqual(relay.count("POST", path + I.turnsPath), 0, `no turn request after a failed gate ${label}`)
          }

          const stream = yield* Effect.flatMap(I.localSession(), (s) => s.turn()).pipe(Effect.provide(I.cloudStreamLayer(base)))
          assertOutcome(stream, streamOutcome(on, "cloud"), `cloud stream ${label}`)
          const chat = yield* Effect.flatMap(I.localSession(), (s) => s.turn()).pipe(Effect.provide(I.openAiLayer(base)))
          assertOutcome(chat, streamOutcome(on, "openai"), `openai ${label}`)
        }), { concurrency: 4 })
      assert.strictEqual(relay.count("GET", I.capabilitiesPath), 64, "one probe per combination")
    }), 120_000)
})

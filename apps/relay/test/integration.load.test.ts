/**
 * Load through one relay on loopback: 200 concurrent sessions, each one turn that calls a tool and
 * answers. Over `CloudRelay` in cloud-profile mode the sessions share ONE layer (one client process: one
 * relay profile probe cache, one DriftGate), so the relay's log must show exactly one profile request
 * for all of them; a second client process probes once more. Over `OpenAiCompatible` every round trip is
 * a Chat Completions request. Every send is bounded, so a stuck turn fails as `TimeoutException`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect, Either } from "effect"
import * as I from "./support/integration.js"

const sessions = 200

/** Each send's bound: generous for 2 shared cores, well inside the test's own timeout. */
const bound = "60 seconds"

/** Every outcome committed with the scripted answer, its tool run once, its history the four messages of the turn. */
const assertAllCommitted = (outcomes: ReadonlyArray<I.Outcome>) => {
  assert.strictEqual(outcomes.length, sessions)
  const failed = outcomes.filter((outcome) => Either.isLeft(outcome.result))
  assert.deepStrictEqual(failed.map((outcome) => I.tagOf(outcome)), [], JSON.stringify(failed[0]?.result))
  for (const outcome of outcomes) {
    const turn = Either.getOrThrow(outcome.result)
    assert.strictEqual(turn.text, I.answerText)
    assert.strictEqual(outcome.runs, 1)
    assert.deepStrictEqual(turn.calls.map((call) => call.envelope.ok), [true])
    assert.deepStrictEqual(outcome.history.map((message) => message._tag), ["User", "Assistant", "ToolResult", "Assistant"])
  }
}

describe("load: 200 concurrent sessions through one relay", () => {
  it.scopedLive("cloud profile over ONE CloudRelay layer: every turn commits, the gate proves each session, one capabilities probe", () =>
    Effect.gen(function*() {
      const relay = yield* I.startRelay({ profile: I.profile, script: I.script })
      const client = I.cloudLayer(relay.url, { timeout: "30 seconds", idleTimeout: "30 seconds" })
      const outcomes = yield* Effect.forEach(
        Arr.range(1, sessions),
        () => Effect.flatMap(I.cloudSession(bound), (session) => session.turn()),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(client))
      assertAllCommitted(outcomes)
      for (const outcome of outcomes) {
        assert.deepStrictEqual(Either.getOrThrow(outcome.result).gate, { _tag: "Proven", tools: ["get_weather"] })
        assert.deepStrictEqual(outcome.warnings, [])
      }
      yield* I.settle(relay, 1 + 2 * sessions)
      assert.strictEqual(relay.count("GET", I.capabilitiesPath), 1, "one probe for the whole client process")
      assert.strictEqual(relay.count("POST", I.turnsPath), 2 * sessions)
      assert.isTrue(relay.lines.every((line) => / 200 \d+ms$/.test(line)), relay.lines.find((line) => !/ 200 \d+ms$/.test(line)))

      // A second client process (its own layer, so its own probe cache) asks once more, and only once.
      const second = yield* Effect.forEach(
        Arr.range(1, 20),
        () => Effect.flatMap(I.cloudSession(bound), (session) => session.turn()),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(I.cloudLayer(relay.url)))
      assert.deepStrictEqual(second.map(I.tagOf), Arr.replicate("committed", 20))
      assert.strictEqual(relay.count("GET", I.capabilitiesPath), 2)
    }), 120_000)

  it.scopedLive("OpenAiCompatible over /v1/chat/completions: every turn commits, two Chat Completions requests per session", () =>
    Effect.gen(function*() {
      const relay = yield* I.startRelay({ profile: I.profile, script: I.script })
      const outcomes = yield* Effect.forEach(
        Arr.range(1, sessions),
        () => Effect.flatMap(I.localSession(bound), (session) => session.turn()),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(I.openAiLayer(relay.url, "30 seconds")))
      assertAllCommitted(outcomes)
      yield* I.settle(relay, 2 * sessions)
      assert.strictEqual(relay.count("POST", I.chatPath), 2 * sessions)
      assert.strictEqual(relay.count("GET", I.capabilitiesPath), 0)
    }), 120_000)
})

/**
 * Every fault switch of the relay (set in the profile's `faults`: the providers send no fault headers),
 * met by real clients over loopback: a cloud-profile session over `CloudRelay.layerWith` with
 * `DriftGate.layer` on top, a local-mode session over `CloudRelay` (its streams alone, no gate), and a
 * local-mode session over `OpenAiCompatible` (`/v1/chat/completions`). Each send is bounded, so a hang
 * fails as `TimeoutException` instead of blocking; each asserts the exact typed outcome, the tool runs, the
 * history after a failure (the user's message only) and how many requests the relay served.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Duration, Effect, Either } from "effect"
import type { Message } from "@toolgate/runtime"
import type { Faults } from "../src/index.js"
import * as I from "./support/integration.js"

const user: ReadonlyArray<Message.Message> = [{ _tag: "User", text: I.prompt }]

// Each send is bounded at 15 s (`I.sendBound`), well inside each test's 30 s, so a hang fails as TimeoutException.

/** A failed turn: the error is `tag` with `fields`, no tool ran, history is the user's message, the rollback was published. */
const assertFailed = (outcome: I.Outcome, tag: string, fields: Record<string, unknown> = {}) => {
  assert.strictEqual(I.tagOf(outcome), tag, JSON.stringify(outcome.result))
  const error = Either.isLeft(outcome.result) ? outcome.result.left as unknown as Record<string, unknown> : {}
  for (const [key, value] of Object.entries(fields)) assert.deepStrictEqual(error[key], value, `${tag}.${key}`)
  assert.strictEqual(outcome.runs, 0, "no tool runs on a failed turn")
  assert.deepStrictEqual(outcome.history, user)
  const last = outcome.events.at(-1)
  assert.strictEqual(last?._tag === "TurnRolledBack" ? last.error : undefined, tag)
}

/** A committed turn: the tool ran once for Paris and the model's answer came back. */
const assertCommitted = (outcome: I.Outcome) => {
  assert.strictEqual(I.tagOf(outcome), "committed", JSON.stringify(outcome.result))
  const turn = Either.getOrThrow(outcome.result)
  assert.strictEqual(turn.text, I.answerText)
  assert.strictEqual(outcome.runs, 1)
  assert.deepStrictEqual(turn.calls.map((call) => call.envelope), [{ ok: true, tool: "get_weather", result: { city: "Paris", sky: "sunny" } }])
  assert.strictEqual(outcome.history.length, 4)
}

/** The gate events of a turn: `proven` or `degraded` with its detail. */
const gateEvents = (outcome: I.Outcome) =>
  outcome.events.flatMap((event) => event._tag === "DriftGateChecked" ? [`${event.outcome}: ${event.detail}`] : [])

/** A relay with `fault` on for every request. */
const relayWith = (fault: Faults.Fault) => I.startRelay({ profile: { ...I.profile, faults: [fault] }, script: I.script })

/** One send of a fresh session per client kind. */
const cloud = (url: string, timeouts?: I.Timeouts) =>
  Effect.flatMap(I.cloudSession(), (s) => s.turn()).pipe(Effect.provide(I.cloudLayer(url, timeouts)))
const cloudStream = (url: string, timeouts?: I.Timeouts) =>
  Effect.flatMap(I.localSession(), (s) => s.turn()).pipe(Effect.provide(I.cloudStreamLayer(url, timeouts)))
const openAi = (url: string, timeout?: Duration.DurationInput) =>
  Effect.flatMap(I.localSession(), (s) => s.turn()).pipe(Effect.provide(I.openAiLayer(url, timeout)))

describe("fault switches through CloudRelay (+ DriftGate) and OpenAiCompatible", () => {
  it.scopedLive("no fault: the gate proves get_weather, the tool runs once, every client commits", () =>
    Effect.gen(function*() {
      const relay = yield* I.startRelay({ profile: I.profile, script: I.script })
      const gated = yield* cloud(relay.url)
      assertCommitted(gated)
      assert.deepStrictEqual(gateEvents(gated), ["proven: 1 exported tool(s) proven"])
      assertCommitted(yield* cloudStream(relay.url))
      assertCommitted(yield* openAi(relay.url))
      assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath), relay.count("POST", I.chatPath)], [1, 4, 2])
    }), 30_000)

  it.scopedLive("predates: the gate degrades with one warning, the turn proceeds and the tool runs", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("predates")
      const gated = yield* cloud(relay.url)
      assertCommitted(gated)
      const turn = Either.getOrThrow(gated.result)
      assert.deepStrictEqual(turn.gate, { _tag: "Degraded", reason: "predates", detail: "the relay predates the tool schema export" })
      assert.strictEqual(gated.warnings.length, 1)
      assert.match(gated.warnings[0]!, /^Drift gate skipped: the relay predates the tool schema export; .* \[predates\]$/)
      // A capabilities-only fault: the streams are untouched.
      assertCommitted(yield* cloudStream(relay.url))
      assertCommitted(yield* openAi(relay.url))
    }), 30_000)

  for (const [fault, reason, detail] of [
    ["malformed", "malformed", /tool_schemas must be an object/],
    ["newer-major", "unsupported_version", /capabilities_version 2\.0 has major 2/]
  ] as const) {
    it.scopedLive(`${fault}: RelayProfileContractError (${reason}), zero turn requests, zero tool runs; streams untouched`, () =>
      Effect.gen(function*() {
        const relay = yield* relayWith(fault)
        const gated = yield* cloud(relay.url)
        assertFailed(gated, "RelayProfileContractError", { reason })
        assert.match(Either.isLeft(gated.result) ? String((gated.result.left as { detail?: unknown }).detail) : "", detail)
        assert.deepStrictEqual(gateEvents(gated), [])
        assert.deepStrictEqual(gated.events.map((event) => event._tag), ["TurnStarted", "TurnRolledBack"])
        assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath)], [1, 0])
        assertCommitted(yield* cloudStream(relay.url))
        assertCommitted(yield* openAi(relay.url))
      }), 30_000)
  }

  it.scopedLive("slow (2 s) past the stream timeout (1 s): the probe (5 s) proves, the stream is a retryable ProviderError", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("slow")
      const timeouts: I.Timeouts = { timeout: "1 second", idleTimeout: "1 second" }
      const gated = yield* cloud(relay.url, timeouts)
      assertFailed(gated, "ProviderError", { provider: "cloud-relay", reason: "the relay did not answer within 1s", retryable: true })
      assert.deepStrictEqual(gateEvents(gated), ["proven: 1 exported tool(s) proven"])
      assertFailed(yield* cloudStream(relay.url, timeouts), "ProviderError", { reason: "the relay did not answer within 1s", retryable: true })
      assertFailed(yield* openAi(relay.url, "1 second"), "ProviderError", { provider: "openai-compatible", reason: "no response within 1s", retryable: true })
    }), 30_000)

  it.scopedLive("slow (2 s) past the probe timeout (500 ms): Degraded unreachable with a warning; the stream (5 s) waits and the tool runs", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("slow")
      const gated = yield* cloud(relay.url, { probeTimeout: "500 millis" })
      assertCommitted(gated)
      const turn = Either.getOrThrow(gated.result)
      assert.deepStrictEqual(turn.gate, { _tag: "Degraded", reason: "unreachable", detail: "the relay is unreachable (no answer within 500ms)" })
      assert.strictEqual(gated.warnings.length, 1)
      assert.match(gated.warnings[0]!, /\[unreachable\]$/)
    }), 30_000)

  it.scopedLive("fail: capabilities 500 = Degraded unreachable (warning), then turns 500 = retryable ProviderError; no tool runs", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("fail")
      const gated = yield* cloud(relay.url)
      assertFailed(gated, "ProviderError", { provider: "cloud-relay", reason: "the relay answered HTTP 500", retryable: true })
      assert.deepStrictEqual(gateEvents(gated), ["degraded: the relay is unreachable (HTTP 500)"])
      assert.strictEqual(gated.warnings.length, 1)
      assert.match(gated.warnings[0]!, /the relay is unreachable \(HTTP 500\).*\[unreachable\]$/)
      assertFailed(yield* cloudStream(relay.url), "ProviderError", { reason: "the relay answered HTTP 500", retryable: true })
      assertFailed(yield* openAi(relay.url), "ProviderError", {
        reason: "HTTP 500: the relay failed (its fail fault is on)",
        retryable: true
      })
      assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath), relay.count("POST", I.chatPath)], [1, 2, 1])
    }), 30_000)

  it.scopedLive("drop: a capabilities body cut mid-way is a network failure (Degraded unreachable, warning); streams end in a retryable ProviderError (not missing_done)", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("drop")
      const gated = yield* cloud(relay.url)
      assertFailed(gated, "ProviderError", { provider: "cloud-relay", reason: "the relay's stream broke off", retryable: true })
      assert.deepStrictEqual(gateEvents(gated), ["degraded: the relay is unreachable (the connection broke off while the body was read (HTTP 200))"])
      assert.strictEqual(gated.warnings.length, 1)
      assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath)], [1, 1])
      const stream = yield* cloudStream(relay.url)
      assertFailed(stream, "ProviderError", { provider: "cloud-relay", reason: "the relay's stream broke off", retryable: true })
      const chat = yield* openAi(relay.url)
      assertFailed(chat, "ProviderError", { provider: "openai-compatible", reason: "the response body broke off", retryable: true })
    }), 30_000)

  it.scopedLive("a failing second turn rolls back to the first turn's history plus its user message; the gate does not run again", () =>
    Effect.gen(function*() {
      const overloaded = { fail: { reason: "the model is overloaded", retryable: true } }
      const relay = yield* I.startRelay({ profile: I.profile, script: { turns: [I.script.turns[0]!, [overloaded]] } })
      const twice = (s: { readonly turn: (text?: string) => Effect.Effect<I.Outcome> }) =>
        Effect.flatMap(s.turn(), (first) => Effect.map(s.turn("and tomorrow?"), (second) => [first, second] as const))
      const check = ([first, second]: readonly [I.Outcome, I.Outcome], reason: string) => {
        assertCommitted(first)
        assert.strictEqual(I.tagOf(second), "ProviderError", JSON.stringify(second.result))
        assert.deepStrictEqual(Either.isLeft(second.result) ? [(second.result.left as { reason?: unknown }).reason, (second.result.left as { retryable?: unknown }).retryable] : [], [reason, true])
        assert.strictEqual(second.runs, 0)
        assert.deepStrictEqual(second.history, [...first.history, { _tag: "User", text: "and tomorrow?" }])
        return second
      }
      const gated = check(yield* Effect.flatMap(I.cloudSession(), twice).pipe(Effect.provide(I.cloudLayer(relay.url))), "the model is overloaded")
      assert.deepStrictEqual(gateEvents(gated), [], "a proven verdict is remembered")
      check(yield* Effect.flatMap(I.localSession(), twice).pipe(Effect.provide(I.openAiLayer(relay.url))), "HTTP 503: the model is overloaded")
      assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath), relay.count("POST", I.chatPath)], [1, 3, 3])
    }), 30_000)

  it.scopedLive("garbage: RelayProfileContractError for capabilities, a non-retryable ProviderError for streams", () =>
    Effect.gen(function*() {
      const relay = yield* relayWith("garbage")
      const gated = yield* cloud(relay.url)
      assertFailed(gated, "RelayProfileContractError", { reason: "malformed", detail: "HTTP 200 with a body that is not JSON" })
      assert.deepStrictEqual([relay.count("GET", I.capabilitiesPath), relay.count("POST", I.turnsPath)], [1, 0])
      assertFailed(yield* cloudStream(relay.url), "ProviderError", { provider: "cloud-relay", reason: "malformed event", retryable: false })
      assertFailed(yield* openAi(relay.url), "ProviderError", { provider: "openai-compatible", reason: "malformed chunk", retryable: false })
    }), 30_000)
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger } from "effect"
import { AgentSession, ArgumentValidator, DriftGate, RelayProfile, Tool, Toolkit } from "@toolgate/runtime"
import type { Provider } from "@toolgate/runtime"
import { answer, make } from "../../runtime/test/support/scriptedProvider.js"
import { answer as reply, envelope, profileClient, start } from "./support/relayDouble.js"
import type { Handler } from "./support/relayDouble.js"

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
const loosened = { ...weather, required: [] }

const toolkit = Either.getOrThrow(Toolkit.make(
  Tool.make("get_weather", { description: "w", parameters: weather, execute: () => Effect.succeed("sunny") })
))

/** A cloud-profile session whose drift gate asks a loopback relay answering with `handler`. */
const cloudSession = (handler: Handler, provider: Provider.AgentProvider, gate: DriftGate.Options = {}) =>
  Effect.gen(function*() {
    const relay = yield* start(handler)
    const service = yield* profileClient(relay.url)
    const layers = Layer.mergeAll(
      ArgumentValidator.layer,
      DriftGate.layerWith(gate).pipe(Layer.provide(Layer.succeed(RelayProfile.RelayProfile, service))),
      Logger.remove(Logger.defaultLogger)
    )
    const session = yield* AgentSession.make({ provider, toolkit, mode: "cloudProfile" }).pipe(Effect.provide(layers))
    return { relay, session }
  })

describe("AgentSession (cloud profile: the drift gate over a loopback relay)", () => {
  it.scopedLive("drift: SchemaDriftError before any stream request; history keeps only the user message", () =>
    Effect.gen(function*() {
      const provider = make([answer("never")])
      const { relay, session } = yield* cloudSession(reply(envelope({ get_weather: loosened })), provider)
      const error = yield* Effect.flip(session.send("weather?"))
      assert.strictEqual(error._tag, "SchemaDriftError")
      assert.strictEqual(provider.requests.length, 0)
      assert.strictEqual(relay.requests(), 1)
      assert.deepStrictEqual(yield* session.history, [{ _tag: "User", text: "weather?" }])
    }))

  it.scopedLive("degraded proceeds and the gate runs again on the next send; a proven verdict is remembered", () =>
    Effect.gen(function*() {
      const provider = make([answer("one"), answer("two"), answer("three")])
      const handler: Handler = (req, res, n) =>
        n === 1 ? reply({ error: "down" }, 503)(req, res, n) : reply(envelope({ get_weather: weather }))(req, res, n)
      const { relay, session } = yield* cloudSession(handler, provider)
      const first = yield* session.send("1")
      assert.strictEqual(first.gate?._tag, "Degraded")
      assert.strictEqual(first.text, "one")
      const second = yield* session.send("2")
      assert.deepStrictEqual(second.gate, DriftGate.Verdict.Proven({ tools: ["get_weather"] }))
      assert.strictEqual(relay.requests(), 2)
      const third = yield* session.send("3")
      assert.strictEqual(third.gate, undefined)
      assert.strictEqual(relay.requests(), 2)
      assert.strictEqual(provider.requests.length, 3)
    }))

  it.scopedLive("onUnreachable \"fail\": a 503 relay fails every send with RelayProfileUnreachable before any provider request; a reachable one proves", () =>
    Effect.gen(function*() {
      const provider = make([answer("one")])
      let down = true
      const handler: Handler = (req, res, n) => down ? reply({ error: "down" }, 503)(req, res, n) : reply(envelope({ get_weather: weather }))(req, res, n)
      const { relay, session } = yield* cloudSession(handler, provider, { onUnreachable: "fail" })
      for (const text of ["a", "b"]) {
        const error = yield* Effect.flip(session.send(text))
        assert.strictEqual(error._tag, "RelayProfileUnreachable")
        assert.include(error.message, "HTTP 503")
      }
      assert.deepStrictEqual([relay.requests(), provider.requests.length], [2, 0])
      down = false
      const turn = yield* session.send("c")
      assert.deepStrictEqual(turn.gate, DriftGate.Verdict.Proven({ tools: ["get_weather"] }))
      assert.strictEqual(turn.text, "one")
    }))

  it.scopedLive("onUnreachable \"fail\" still degrades for a relay that predates the export", () =>
    Effect.gen(function*() {
      const { session } = yield* cloudSession(reply({ other: 1 }), make([answer("one")]), { onUnreachable: "fail" })
      const turn = yield* session.send("x")
      assert.strictEqual(turn.gate?._tag === "Degraded" && turn.gate.reason, "predates")
    }))

  it.scopedLive("a malformed relay profile is a RelayProfileContractError with zero provider requests", () =>
    Effect.gen(function*() {
      const provider = make([answer("never")])
      const { session } = yield* cloudSession(reply({ capabilities_version: "1.0" }), provider)
      const error = yield* Effect.flip(session.send("x"))
      assert.strictEqual(error._tag, "RelayProfileContractError")
      assert.strictEqual(provider.requests.length, 0)
      assert.deepStrictEqual(yield* session.history, [{ _tag: "User", text: "x" }])
    }))

  it.scopedLive("a provider-driven provider skips the gate", () =>
    Effect.gen(function*() {
      const provider = make([answer("pd")], { executionModel: "providerDriven" })
      const { relay, session } = yield* cloudSession(reply(envelope({ get_weather: loosened })), provider)
      const turn = yield* session.send("x")
      assert.strictEqual(turn.gate, undefined)
      assert.strictEqual(relay.requests(), 0)
    }))

  it.scopedLive("local mode never asks the relay", () =>
    Effect.gen(function*() {
      const relay = yield* start(reply(envelope({ get_weather: loosened })))
      const session = yield* AgentSession.make({ provider: make([answer("l")]), toolkit, mode: "local" }).pipe(
        Effect.provide(ArgumentValidator.layer)
      )
      const turn = yield* session.send("x")
      assert.strictEqual(turn.gate, undefined)
      assert.strictEqual(relay.requests(), 0)
    }))
})

import { assert, describe, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { ConfigProvider, Deferred, Effect, Either, Exit, Fiber, Layer, Supervisor, TestClock } from "effect"
import { RelayProfile } from "@toolgate/runtime"
import * as RelayProfileClient from "../src/RelayProfileClient.js"
import { answer, envelope, profileClient, start } from "./support/relayDouble.js"
import type { Handler } from "./support/relayDouble.js"

const good = envelope({ get_weather: { type: "object" } })

/** Answers after `ms` (so concurrent callers really overlap the request). */
const slowly = (ms: number, handler: Handler): Handler => (req, res, n) => {
  setTimeout(() => handler(req, res, n), ms)
}

/** Answers the n-th request with `handlers[n - 1]` (the last one repeats). */
const inTurn = (...handlers: ReadonlyArray<Handler>): Handler => (req, res, n) =>
  handlers[Math.min(n, handlers.length) - 1]!(req, res, n)

describe("RelayProfileClient: single flight and caching", () => {
  it.scopedLive("100 concurrent first callers make exactly one request and share its answer", () =>
    Effect.gen(function*() {
      const relay = yield* start(slowly(50, answer(good)))
      const service = yield* profileClient(relay.url)
      const probes = yield* Effect.all(Array.from({ length: 100 }, () => service.probe()), { concurrency: "unbounded" })
      assert.strictEqual(relay.requests(), 1)
      assert.isTrue(probes.every((p) => p._tag === "Exported"))
      assert.isTrue(probes.every((p) => p === probes[0]))
    }))

  // TestClock: the time to live is crossed by adjusting the clock, not by waiting (the HTTP stays real).
  it.scoped("a success is cached for the time to live, then asked again", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(good))
      const service = yield* profileClient(relay.url, { timeToLive: "5 minutes" })
      const first = yield* service.probe()
      yield* TestClock.adjust("4 minutes")
      const second = yield* service.probe()
      assert.strictEqual(relay.requests(), 1)
      assert.strictEqual(first, second)
      yield* TestClock.adjust("61 seconds")
      const third = yield* service.probe()
      assert.strictEqual(relay.requests(), 2)
      assert.strictEqual(third._tag, "Exported")
      assert.notStrictEqual(third, first)
    }))

  it.scopedLive("Predates is an answer from the relay: cached like a success", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer({ documents: true }))
      const service = yield* profileClient(relay.url)
      assert.strictEqual((yield* service.probe())._tag, "Predates")
      assert.strictEqual((yield* service.probe())._tag, "Predates")
      assert.strictEqual(relay.requests(), 1)
    }))

  it.scopedLive("a contract failure is not cached: the next call asks again and sees the fixed relay", () =>
    Effect.gen(function*() {
      const relay = yield* start(inTurn(answer({ capabilities_version: "1.0" }), answer(good)))
      const service = yield* profileClient(relay.url)
      const first = yield* Effect.either(service.probe())
      assert.isTrue(Either.isLeft(first) && first.left.reason === "incomplete")
      const second = yield* service.probe()
      assert.strictEqual(second._tag, "Exported")
      assert.strictEqual(relay.requests(), 2)
      yield* service.probe()
      assert.strictEqual(relay.requests(), 2)
    }))

  it.scopedLive("Unreachable is not cached: a recovered relay is seen on the next call", () =>
    Effect.gen(function*() {
      const relay = yield* start(inTurn(answer("down", 503), answer("down", 404), answer(good)))
      const service = yield* profileClient(relay.url)
      assert.strictEqual((yield* service.probe())._tag, "Unreachable")
      assert.strictEqual((yield* service.probe())._tag, "Unreachable")
      assert.strictEqual((yield* service.probe())._tag, "Exported")
      assert.strictEqual(relay.requests(), 3)
    }))

  it.scopedLive("concurrent callers of a failing probe share the failure, and only one new request follows", () =>
    Effect.gen(function*() {
      const relay = yield* start(inTurn(slowly(50, answer([])), answer(good)))
      const service = yield* profileClient(relay.url)
      const firsts = yield* Effect.all(Array.from({ length: 20 }, () => Effect.either(service.probe())), {
        concurrency: "unbounded"
      })
      assert.isTrue(firsts.every(Either.isLeft))
      assert.strictEqual(relay.requests(), 1)
      const seconds = yield* Effect.all(Array.from({ length: 20 }, () => service.probe()), { concurrency: "unbounded" })
      assert.isTrue(seconds.every((p) => p._tag === "Exported"))
      assert.strictEqual(relay.requests(), 2)
    }))

  it.scopedLive("interrupting the first caller leaves the others with the answer, and the answer cached", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const held: Handler = (req, res, n) => {
        Effect.runFork(Deferred.await(release).pipe(Effect.andThen(() => answer(good)(req, res, n))))
      }
      const relay = yield* start(held)
      const service = yield* profileClient(relay.url)
      const first = yield* Effect.fork(service.probe())
      yield* relay.received(1)
      const others = yield* Effect.fork(Effect.all(Array.from({ length: 10 }, () => service.probe()), { concurrency: "unbounded" }))
      yield* Effect.yieldNow()
      const interrupted = yield* Fiber.interrupt(first)
      assert.isTrue(Exit.isInterrupted(interrupted))
      const late = yield* Effect.fork(service.probe())
      yield* Deferred.succeed(release, undefined)
      const answers = yield* Fiber.join(others)
      assert.isTrue(answers.every((p) => p._tag === "Exported"))
      assert.strictEqual((yield* Fiber.join(late))._tag, "Exported")
      assert.strictEqual((yield* service.probe())._tag, "Exported")
      assert.strictEqual(relay.requests(), 1)
    }))

  it.scopedLive("a failure its only caller never saw (interrupted) is not served later: the next call asks again", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const held: Handler = (req, res, n) => {
        Effect.runFork(Deferred.await(release).pipe(Effect.andThen(() => answer("down", 503)(req, res, n))))
      }
      const relay = yield* start(inTurn(held, answer(good)))
      const service = yield* profileClient(relay.url)
      // The supervisor tracks the fibers the first call forks: the request, which outlives its caller.
      const supervisor = yield* Supervisor.track
      const first = yield* Effect.fork(service.probe().pipe(Effect.supervised(supervisor)))
      yield* relay.received(1)
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(release, undefined)
      // The request (now nobody's) finishes with its 503 before the next call.
      yield* Fiber.awaitAll(yield* supervisor.value)
      assert.strictEqual((yield* service.probe())._tag, "Exported")
      assert.strictEqual(relay.requests(), 2)
    }))

  it.scopedLive("closing the layer's scope interrupts a probe in flight without leaking it", () =>
    Effect.gen(function*() {
      const relay = yield* start(() => {})
      const outcome = yield* Effect.scoped(Effect.gen(function*() {
        const service = yield* profileClient(relay.url, { timeout: "10 seconds" })
        const fiber = yield* Effect.fork(service.probe())
        yield* relay.received(1)
        return fiber
      })).pipe(Effect.flatMap(Fiber.await))
      assert.isTrue(Exit.isInterrupted(outcome))
      assert.strictEqual(relay.requests(), 1)
    }))

  it.scopedLive("layerEnv reads the relay URL, timeout and time to live while the layer is built", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(good))
      const provider = ConfigProvider.fromMap(new Map([
        ["TOOLGATE_RELAY_URL", `${relay.url}/`],
        ["TOOLGATE_RELAY_PROFILE_TIMEOUT", "1 second"],
        ["TOOLGATE_RELAY_PROFILE_TTL", "1 hour"]
      ]))
      const live = RelayProfileClient.layerEnv.pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.setConfigProvider(provider)))
      const probes = yield* Effect.flatMap(RelayProfile.RelayProfile, (c) => Effect.all([c.probe(), c.probe()])).pipe(Effect.provide(live))
      assert.deepStrictEqual(probes.map((p) => p._tag), ["Exported", "Exported"])
      assert.strictEqual(relay.requests(), 1)
      const missing = RelayProfileClient.layerEnv.pipe(
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["TOOLGATE_RELAY_URL", "not a url"]]))))
      )
      const built = yield* Effect.exit(Effect.provide(RelayProfile.RelayProfile, missing))
      assert.isTrue(Exit.isFailure(built))
      assert.strictEqual(relay.requests(), 1)
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import * as Message from "../src/Message.js"
import * as Provider from "../src/Provider.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

// supportsVision, modelSelection and inFlightTracker: what each changes about a send.

const toolkit = Either.getOrThrow(Toolkit.make())
const png: Message.Image = { _tag: "ImageData", mediaType: "image/png", data: "iVBORw0KGgo=" }
const url: Message.Image = { _tag: "ImageUrl", url: "https://example.com/cat.jpg", mediaType: "image/jpeg" }

describe("AgentSession (vision)", () => {
  it.effect("images reach the request's user message, and history, of a provider that declares supportsVision", () =>
    Effect.gen(function*() {
      const provider = make([answer("a cat")], { supportsVision: true })
      const s = yield* session(provider, toolkit)
      yield* s.send("what is this?", { images: [png, url] })
      assert.deepStrictEqual(provider.requests[0]!.messages, [{ _tag: "User", text: "what is this?", images: [png, url] }])
      assert.deepStrictEqual((yield* s.history)[0], { _tag: "User", text: "what is this?", images: [png, url] })
    }))

  it.effect("images to a provider without supportsVision (the default): VisionUnsupported, no request, history unchanged", () =>
    Effect.gen(function*() {
      for (const flags of [{}, { supportsVision: false }]) {
        const provider = make([answer("x")], flags)
        const s = yield* session(provider, toolkit)
        const error = yield* Effect.flip(s.send("look", { images: [png] }))
        assert.strictEqual(error._tag, "VisionUnsupported")
        assert.strictEqual(error.message, "Provider scripted does not declare vision support; the send's 1 image(s) were not sent.")
        assert.strictEqual(provider.requests.length, 0)
        assert.deepStrictEqual(yield* s.history, [])
      }
    }))

  it.effect("images that are not images fail typed as InvalidOptions before any request", () =>
    Effect.gen(function*() {
      const provider = make([answer("x")], { supportsVision: true })
      const s = yield* session(provider, toolkit)
      const bad: ReadonlyArray<unknown> = [
        [],
        [{ _tag: "ImageData", mediaType: "text/plain", data: "aGk=" }],
        [{ _tag: "ImageData", mediaType: "image/png", data: "data:image/png;base64,aGk=" }],
        [{ _tag: "ImageData", mediaType: "image/png", data: "a" }],
        [{ _tag: "ImageUrl", url: "file:///etc/passwd" }],
        [{ _tag: "ImageUrl", url: "javascript:alert(1)" }],
        Array.from({ length: 17 }, () => png),
        "not an array"
      ]
      for (const images of bad) {
        const error = yield* Effect.flip(s.send("look", { images: images as never }))
        assert.strictEqual(error._tag, "InvalidOptions", JSON.stringify(images))
      }
      assert.strictEqual(provider.requests.length, 0)
    }))

  it.effect("a directives preamble keeps the user's images", () =>
    Effect.gen(function*() {
      const provider = make([answer("x")], { supportsVision: true, backendManagedSystemPrompt: true })
      const s = yield* session(provider, toolkit)
      yield* s.send("look", { images: [png], directives: "be brief" })
      assert.deepStrictEqual(provider.requests[0]!.messages[0], { _tag: "User", text: "be brief\n\nlook", images: [png] })
    }))
})

describe("AgentSession (model selection)", () => {
  it.effect("perRequest: the send's model rides the request; no model, no field", () =>
    Effect.gen(function*() {
      const provider = make([answer("a"), answer("b")], { modelSelection: "perRequest" })
      const s = yield* session(provider, toolkit)
      yield* s.send("x", { model: "small-model" })
      yield* s.send("y")
      assert.strictEqual(provider.requests[0]!.model, "small-model")
      assert.isFalse("model" in provider.requests[1]!)
    }))

  it.effect("none (the default) and fixed refuse a model typed before any request", () =>
    Effect.gen(function*() {
      for (const flags of [{}, { modelSelection: "none" as const }, { modelSelection: "fixed" as const }]) {
        const provider = make([answer("x")], flags)
        const s = yield* session(provider, toolkit)
        const error = yield* Effect.flip(s.send("x", { model: "big" }))
        assert.strictEqual(error._tag, "ModelSelectionUnsupported")
        assert.strictEqual(provider.requests.length, 0)
        assert.deepStrictEqual(yield* s.history, [])
      }
      const s = yield* session(make([answer("x")], { modelSelection: "perRequest" }), toolkit)
      for (const model of ["", "   ", "x".repeat(257), 42]) {
        assert.strictEqual((yield* Effect.flip(s.send("x", { model: model as never })))._tag, "InvalidOptions")
      }
    }))

  it.effect("capability flags of the wrong type fail the session's make as InvalidOptions", () =>
    Effect.gen(function*() {
      for (const flags of [{ modelSelection: "sometimes" }, { supportsVision: "yes" }]) {
        const error = yield* Effect.flip(session(make([], flags as never), toolkit))
        assert.strictEqual(error._tag, "InvalidOptions")
      }
    }))
})

/** A tracker recording what it was told. */
const recorder = () => {
  const log: Array<string> = []
  const tracker: Provider.InFlightTracker = {
    started: (id) => Effect.sync(() => void log.push(`+${id}`)),
    finished: (id) => Effect.sync(() => void log.push(`-${id}`))
  }
  return { log, tracker }
}

describe("AgentSession (inFlightTracker)", () => {
  it.effect("told when each request starts and ends, with the session, turn and round in its id", () =>
    Effect.gen(function*() {
      const { log, tracker } = recorder()
      const provider = { ...make([[call("c1", "missing"), done], answer("ok")]), inFlightTracker: tracker }
      const s = yield* AgentSession.make({ id: "s1", provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      yield* s.send("x")
      assert.deepStrictEqual(log, ["+s1:1:1", "-s1:1:1", "+s1:1:2", "-s1:1:2"])
    }))

  it.effect("finished runs when the request fails", () =>
    Effect.gen(function*() {
      const { log, tracker } = recorder()
      const provider = { ...make([{ fail: { reason: "down", retryable: true } }]), inFlightTracker: tracker }
      const s = yield* AgentSession.make({ id: "s", provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual((yield* Effect.flip(s.send("x")))._tag, "ProviderError")
      assert.deepStrictEqual(log, ["+s:1:1", "-s:1:1"])
    }))

  it.effect("finished runs when the send is interrupted mid-request", () =>
    Effect.gen(function*() {
      const { log, tracker } = recorder()
      const inside = yield* Deferred.make<void>()
      const hanging = () => Stream.fromEffect(Effect.zipRight(Deferred.succeed(inside, undefined), Effect.never))
      const provider = { ...make([hanging]), inFlightTracker: tracker }
      const s = yield* AgentSession.make({ id: "s", provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const fiber = yield* Effect.fork(s.send("x"))
      yield* Deferred.await(inside)
      assert.deepStrictEqual(log, ["+s:1:1"])
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(log, ["+s:1:1", "-s:1:1"])
    }))

  it.effect("a tracker that fails, throws or answers a non-effect does not change the turn", () =>
    Effect.gen(function*() {
      const trackers: ReadonlyArray<Provider.InFlightTracker> = [
        { started: () => Effect.die("boom"), finished: () => Effect.die("boom") },
        { started: () => { throw new Error("sync") }, finished: () => { throw new Error("sync") } },
        { started: () => undefined as never, finished: () => 42 as never }
      ]
      for (const inFlightTracker of trackers) {
        const provider = { ...make([answer("fine")]), inFlightTracker }
        const s = yield* session(provider, toolkit)
        assert.strictEqual((yield* s.send("x")).text, "fine")
      }
    }))
})
